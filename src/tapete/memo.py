"""Per-object memos for values derived from frozen objects (a table's settings dict, its bet spec).

Keyed by the object's id and dropped when the object is collected (weakref.finalize), so a long-running
server or a million-round simulation that creates rules objects keeps no stale entries.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TypeVar

V = TypeVar("V")


def memo(store: dict[int, V], obj: object, make: Callable[[], V]) -> V:
    """The value `make()` computed once for `obj` and kept in `store` while `obj` lives."""
    key = id(obj)
    try:
        return store[key]
    except KeyError:
        value = store[key] = make()
        weakref.finalize(obj, store.pop, key, None)
        return value
