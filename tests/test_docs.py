"""The regulation map names only tests that exist: every `test_…` it cites is defined under tests/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(re.findall(r"^\s*def (test_\w+)", path.read_text(encoding="utf-8"), flags=re.M))
    return names


def test_regulation_map_cites_only_existing_tests() -> None:
    text = (ROOT / "docs" / "regulation-map.md").read_text(encoding="utf-8")
    # test names, not module names (`test_x.py`) nor globs (`test_art4_*`)
    cited = {m for m in re.findall(r"\b(test_\w+)\b(?!\.py|\*)", text) if not m.endswith("_")}
    missing = sorted(cited - _defined_tests())
    assert not missing, f"docs/regulation-map.md cites tests that do not exist: {missing}"
    assert len(cited) > 100


def test_every_article_test_is_in_the_map() -> None:
    text = (ROOT / "docs" / "regulation-map.md").read_text(encoding="utf-8")
    unmapped = sorted(t for t in _defined_tests() if re.match(r"test_art\d", t) and t not in text)
    assert not unmapped, f"article tests missing from docs/regulation-map.md: {unmapped}"
