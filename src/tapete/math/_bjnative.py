"""The Black Jack analyzer's kernels compiled from C (`_bjkernels.c`) and loaded with ctypes.

Why: the analysis itself takes a few tenths of a second, and Numba's own start (its import and the
first call of any cached kernel, about 0.6 s of CPU) was most of `tapete analyze blackjack`'s time. The
C file holds the same loops as the Numba kernels in `blackjack.py`, in the same order of operations, so
both give the same figures; Numba (or plain Python) stays the fallback. The library is built once with
the system's C compiler (``cc``, or ``$CC``) into a cache directory keyed by the source's hash, the way
Numba caches its own machine code; `load()` returns None when no compiler is found or the build fails,
or when ``TAPETE_NATIVE=0``.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

_SRC = Path(__file__).with_name("_bjkernels.c")
_P = ctypes.c_void_p
_I = ctypes.c_int64
_B = ctypes.c_int

#: argument types of each exported function (pointers to numpy data, int64 sizes, int flags)
_SIGNATURES: dict[str, list[Any]] = {
    "dealer_kernel": [_P, _P, _I, _P, _P, _P, _P, _P, _P, _P, _P, _P, _P],
    "cd_kernel": [_P, _I, _P, _I, _P, _P, _P, _P, _P, _B, _B, _P, _P, _P],
    "split_kernel": [
        *(_P, _I, _I, _P, _I, _P, _P, _P, _P, _P, _P, _P, _P),
        *(_P, _I, _P, _P, _B, _P, _I, _P, _I),
    ],
    "td_eval_kernel": [_P, _I, _P, _I, _P, _P, _P, _P, _P, _P, _P, _B, _P, _P],
    "td_decide_kernel": [_P, _I, _P, _I, _P, _P, _P, _P, _P, _I, _P, _P, _P, _P, _B, _P, _P, _P],
    "reach_kernel": [_P, _P, _I, _P, _P, _P, _P, _P, _P],
}


#: functions that return 0, or -1 when they could not allocate their scratch memory
_RETURNS_STATUS = frozenset({"split_kernel"})


def _cache_dirs() -> list[Path]:
    """Where the built library may live: beside the module (like __pycache__), else the user's cache."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return [_SRC.parent / "__pycache__", Path(base) / "tapete"]


def _build(target: Path) -> bool:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
        os.close(fd)
        subprocess.run(
            [cc, "-O3", "-shared", "-fPIC", "-o", tmp, str(_SRC)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        os.replace(tmp, target)  # atomic: a concurrent build leaves one whole library
        return True
    except (OSError, subprocess.SubprocessError):
        return False


def _library() -> ctypes.CDLL | None:
    if os.environ.get("TAPETE_NATIVE", "1") == "0" or not _SRC.exists():
        return None
    digest = hashlib.sha256(_SRC.read_bytes() + sys.platform.encode()).hexdigest()[:16]
    name = f"_bjkernels-{digest}.so"
    for folder in _cache_dirs():
        path = folder / name
        if path.exists() or _build(path):
            try:
                lib = ctypes.CDLL(str(path))
            except OSError:
                continue
            for fn, argtypes in _SIGNATURES.items():
                f = getattr(lib, fn)
                f.argtypes = argtypes
                f.restype = _B if fn in _RETURNS_STATUS else None
            return lib
    return None


def cache_file(stem: str, key: bytes, suffix: str) -> Path | None:
    """A file in the first writable cache directory, named by `stem` and a hash of `key`."""
    digest = hashlib.sha256(key + sys.platform.encode()).hexdigest()[:16]
    for folder in _cache_dirs():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK) or (folder / f"{stem}-{digest}{suffix}").exists():
            return folder / f"{stem}-{digest}{suffix}"
    return None


def save_npz(path: Path, arrays: dict[str, Any]) -> None:
    """Write arrays to `path` atomically (a concurrent writer leaves one whole file); errors ignored."""
    try:
        fd, tmp = tempfile.mkstemp(suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except OSError:
        pass


def _ptr(a: np.ndarray[Any, Any]) -> int:
    if not a.flags.c_contiguous:
        raise ValueError("native kernel arrays must be C-contiguous")
    return int(a.ctypes.data)


class _TrieC(ctypes.Structure):
    """The C side's `Trie`: a dealer trie packed for the walk."""

    _fields_ = [
        ("parent", _P),
        ("vb", _P),
        ("depth", _P),
        ("n_nodes", _I),
        ("term_node", _P),
        ("term_out", _P),
        ("term_orders", _P),
        ("n_term", _I),
    ]


class Native:
    """The compiled kernels behind the signatures of blackjack.py's Numba kernels."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self._tries: dict[int, tuple[_TrieC, list[np.ndarray[Any, Any]]]] = {}
        self._held: dict[int, tuple[np.ndarray[Any, Any], int]] = {}

    def _sp(self, a: Any) -> int:
        """The address of an array that lives as long as the process (the hand states' tables): the
        array is held here, so its id cannot be reused."""
        got = self._held.get(id(a))
        if got is not None and got[0] is a:
            return got[1]
        ptr = _ptr(a)
        self._held[id(a)] = (a, ptr)
        return ptr

    def _trie(self, parent: Any, value: Any, before: Any, depth: Any, orders: Any, outcome: Any) -> _TrieC:
        """The packed form of a trie (kept, with its arrays, for the process's life)."""
        got = self._tries.get(id(parent))
        if got is not None and got[1][0] is parent:
            return got[0]
        if before.max(initial=0) >= 16 or depth.max(initial=0) >= 32:
            raise ValueError("dealer trie deeper than the C walk's tables")
        term = np.nonzero(outcome >= 0)[0]
        arrays = [
            parent,
            np.ascontiguousarray(parent, dtype=np.int32),
            np.ascontiguousarray(value * 16 + before, dtype=np.int16),
            np.ascontiguousarray(depth, dtype=np.int16),
            np.ascontiguousarray(term, dtype=np.int32),
            np.ascontiguousarray(outcome[term], dtype=np.int32),
            np.ascontiguousarray(orders[term], dtype=np.float64),
        ]
        packed = _TrieC(
            _ptr(arrays[1]), _ptr(arrays[2]), _ptr(arrays[3]), parent.shape[0],
            _ptr(arrays[4]), _ptr(arrays[5]), _ptr(arrays[6]), term.shape[0],
        )  # fmt: skip
        self._tries[id(parent)] = (packed, arrays)
        return packed

    def dealer_kernel(self, avail: Any, cnt: Any, ncards: Any, need: Any, *rest: Any) -> None:
        (
            t_parent,
            t_value,
            t_before,
            t_depth,
            t_orders,
            t_outcome,
            src_idx,
            src_done,
            src_dist,
            dist,
            feas,
            done,
        ) = rest
        nodep = np.zeros(t_parent.shape[0])
        trie = self._trie(t_parent, t_value, t_before, t_depth, t_orders, t_outcome)
        self.lib.dealer_kernel(
            _ptr(avail), self._sp(cnt), cnt.shape[0], self._sp(ncards), _ptr(need), ctypes.addressof(trie),
            _ptr(nodep), _ptr(src_idx), _ptr(src_done), _ptr(src_dist), _ptr(dist), _ptr(feas), _ptr(done),
        )  # fmt: skip

    def cd_kernel(
        self, avail: Any, up: int, cnt: Any, ncards: Any, trans: Any, stand_w: Any, *rest: Any
    ) -> None:
        feas, play, enhc, peek, hit, dbl, best = rest
        self.lib.cd_kernel(
            _ptr(avail), up, self._sp(cnt), cnt.shape[0], self._sp(ncards), self._sp(trans), _ptr(stand_w),
            _ptr(feas), _ptr(play), int(enhc), int(peek), _ptr(hit), _ptr(dbl), _ptr(best),
        )  # fmt: skip

    def split_kernel(self, avail0: Any, up: int, p: int, cnt: Any, ncards: Any, tot: Any, *rest: Any) -> None:
        (trans, starts, pol, t_parent, t_value, t_before, t_depth, t_orders, t_outcome, reg_idx, reg_dist,
         comp, dist, done, enhc, modes, out) = rest  # fmt: skip
        flags = np.ascontiguousarray(modes, dtype=np.bool_)
        trie = self._trie(t_parent, t_value, t_before, t_depth, t_orders, t_outcome)
        failed = self.lib.split_kernel(
            _ptr(avail0), up, p, self._sp(cnt), cnt.shape[0], self._sp(ncards), self._sp(tot),
            self._sp(trans), _ptr(starts), _ptr(pol), ctypes.addressof(trie), _ptr(reg_idx), _ptr(reg_dist),
            self._sp(comp), done.shape[1], _ptr(dist), _ptr(done), int(enhc), _ptr(flags), flags.shape[0],
            _ptr(out), out.shape[1],
        )  # fmt: skip
        if failed:
            raise MemoryError("split kernel: no memory for its scratch tables")

    def td_eval_kernel(
        self, avail: Any, up: int, cnt: Any, ncards: Any, trans: Any, cls: Any, *rest: Any
    ) -> None:
        stand_w, feas, play, policy, enhc, hit, v_out = rest
        self.lib.td_eval_kernel(
            _ptr(avail), up, self._sp(cnt), cnt.shape[0], self._sp(ncards), self._sp(trans), self._sp(cls),
            _ptr(stand_w),
            _ptr(feas), _ptr(play), _ptr(policy), int(enhc), _ptr(hit), _ptr(v_out),
        )  # fmt: skip

    def td_decide_kernel(self, avail: Any, up: int, cnt: Any, ncards: Any, trans: Any, *rest: Any) -> None:
        (stand_w, feas, class_order, member_start, members, weight, fallback, enhc, policy, v_out) = rest
        hitv = np.zeros(cnt.shape[0])
        self.lib.td_decide_kernel(
            _ptr(avail), up, self._sp(cnt), cnt.shape[0], self._sp(ncards), self._sp(trans), _ptr(stand_w),
            _ptr(feas),
            _ptr(class_order), class_order.shape[0], _ptr(member_start), _ptr(members), _ptr(weight),
            _ptr(fallback), int(enhc), _ptr(policy), _ptr(v_out), _ptr(hitv),
        )  # fmt: skip

    def reach_kernel(self, avail: Any, cnt: Any, ncards: Any, trans: Any, *rest: Any) -> None:
        feas, two_hit, hit_flag, w = rest
        self.lib.reach_kernel(
            _ptr(avail), self._sp(cnt), cnt.shape[0], self._sp(ncards), self._sp(trans), _ptr(feas),
            _ptr(two_hit),
            _ptr(hit_flag), _ptr(w),
        )  # fmt: skip


def load() -> Native | None:
    """The compiled kernels, or None (no compiler, a failed build, or ``TAPETE_NATIVE=0``)."""
    lib = _library()
    return Native(lib) if lib is not None else None
