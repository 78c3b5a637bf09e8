"""Having the kernel map a pre-sized column's pages in a background thread, ahead of the thread that fills it.

A column reserved for the points the rest of a file will bring (hundreds of MB for a large file) is fresh memory:
each 4 KiB page of it is zeroed and mapped by the kernel the first time it is written. Filling 720 MB of columns
(30M points) that way took as long as parsing the 1.6 GB file that held them, one page fault at a time in the
thread that appends. :func:`populate` hands such a column to one daemon thread, which asks the kernel to map it
ahead (Linux's ``madvise(MADV_POPULATE_WRITE)``, called through ctypes, which releases the GIL), a slice of every
pending column in turn, so that the columns a pass fills side by side are mapped side by side, while the pass
parses.

Mapping a page changes none of its bytes, so the appending thread may write anywhere meanwhile: a page it
reaches first it maps itself, as without this module. Where the call is missing (another system, a kernel
before 5.14) nothing is done and the pages are mapped on first write, as before.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from typing import Any

import numpy as np

MIN_BYTES = 4 << 20  # smaller columns are mapped on first write: a hand-over would cost more than it saves
SLICE_BYTES = 2 << 20  # what one call maps of a column before the next column's turn
PAGE = 4096
MADV_POPULATE_WRITE = 23  # linux/mman.h (5.14+)

_lock = threading.Lock()
_idle = threading.Condition(_lock)
_pending: deque[tuple[np.ndarray, int, int]] = deque()  # (column, next byte address, end address)
_madvise: Any = None  # libc's madvise, once looked up; False where there is none that can populate
_running = False  # whether the thread runs (it ends once nothing is pending)
_busy = False  # whether it is mapping a slice it took


def populate(*columns: np.ndarray) -> bool:
    """Map the pages of ``columns`` (C-contiguous arrays of fresh memory) in the background thread; returns whether
    they were handed over (False: too small, or no way to populate here)."""
    handed = False
    for column in columns:
        if column.nbytes < MIN_BYTES or not column.flags.c_contiguous or not _available():
            continue
        address = int(column.ctypes.data)
        start = -(-address // PAGE) * PAGE
        end = (address + column.nbytes) // PAGE * PAGE
        if end > start:
            with _lock:
                _pending.append((column, start, end))
                _start_worker()
            handed = True
    return handed


def wait() -> None:
    """Block until every column handed over so far is mapped (or given up on): for tests and benchmarks."""
    with _idle:
        while _pending or _busy:
            _idle.wait()


def _available() -> bool:
    global _madvise
    if _madvise is None:
        _madvise = _libc_madvise()
    return _madvise is not False


def _libc_madvise() -> Any:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return False
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise


def _start_worker() -> None:
    """(under ``_lock``)"""
    global _running
    if not _running:
        _running = True
        threading.Thread(target=_run, name="ridgeline-pages", daemon=True).start()


def _run() -> None:
    global _busy, _running
    while True:
        with _lock:
            if not _pending:
                _busy = _running = False
                _idle.notify_all()
                return
            column, start, end = _pending.popleft()
            _busy = True
        stop = min(start + SLICE_BYTES, end)
        failed = _madvise(start, stop - start, MADV_POPULATE_WRITE) != 0  # the GIL is released meanwhile
        with _lock:
            if failed:
                _give_up()
            elif stop < end:
                _pending.append((column, stop, end))  # the next slice after every other column's turn
        del column


def _forget() -> None:
    """In a forked child: the thread did not survive the fork, and its lock may have been held by it."""
    global _lock, _idle, _running, _busy
    _lock = threading.Lock()
    _idle = threading.Condition(_lock)
    _pending.clear()
    _running = _busy = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def _give_up() -> None:
    """(under ``_lock``) After a failed call: EINVAL, a kernel without MADV_POPULATE_WRITE, stops populating for
    good; anything else (ENOMEM, a signal) drops what is pending, left to the first writes."""
    global _madvise
    import ctypes
    import errno

    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS):
        _madvise = False
    _pending.clear()
