"""What the fuzz targets share: the sanitized build of the compiled core, and inputs fenced by guard pages.

The targets run under ``fuzz/run.sh`` (``make fuzz``): Python with AddressSanitizer's runtime preloaded and
``PYTHONMALLOC=malloc``, so that every allocation of the core's is checked. The bytes under test are copied to
the very end of a page followed by an inaccessible one (and preceded by another), so that reading even one byte
past either end of the buffer faults at once, whatever allocator Python uses.
"""

from __future__ import annotations

import ctypes
import importlib.util
import mmap
import os
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def load_sanitized(name: str) -> ModuleType:
    """Import extension ``name`` (e.g. ridgeline.ingest._core) from $RIDGELINE_FUZZ_BUILD, the sanitized build,
    in place of the one an editable install would find next to its source."""
    build = Path(os.environ.get("RIDGELINE_FUZZ_BUILD", ROOT / "build" / "fuzz"))
    package, _, leaf = name.rpartition(".")
    matches = sorted((build / package.replace(".", "/")).glob(f"{leaf}.*.so"))
    if not matches:
        raise SystemExit(f"no sanitized build of {name} in {build}: run `make fuzz` (or build_core.py --sanitize)")
    importlib.import_module(package)
    spec = importlib.util.spec_from_file_location(name, matches[0])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    setattr(sys.modules[package], leaf, module)
    return module


class Guarded:
    """``data`` in memory with an inaccessible page right after its last byte and right before its first."""

    def __init__(self, data: bytes) -> None:
        pages = (len(data) + PAGE - 1) // PAGE
        self._map = mmap.mmap(-1, (pages + 2) * PAGE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self._map))
        for start in (base, base + (pages + 1) * PAGE):
            if _libc.mprotect(start, PAGE, 0) != 0:
                raise OSError(ctypes.get_errno(), "mprotect failed")
        self.start = (pages + 1) * PAGE - len(data)
        self._map[self.start : self.start + len(data)] = data
        self.view = memoryview(self._map)[self.start : self.start + len(data)]

    def close(self) -> None:
        self.view.release()
        self._map.close()
