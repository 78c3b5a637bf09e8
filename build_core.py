"""Compiling ridgeline's C extensions: the record loop (``ridgeline.ingest._core``), the histogram count
(``ridgeline.writer.summaries._histogram_core``), the writer thread's scalar framing
(``ridgeline.writer._scalar_core``), the profiler trace scanner (``ridgeline.profile._scan``) and the store's
encoder of packed segments (``ridgeline.store._segment_core``).

All are optional at run time: without them ridgeline takes its numpy and Python paths (slower, same results). The
package build (``hatch_build.py``) calls :func:`build` for the wheel and for the editable install, which ``make
serve`` and ``make test`` run; ``make fuzz`` calls this script to build the record loop again with
AddressSanitizer and libFuzzer's coverage hooks, into a build folder of its own:

    python build_core.py --inplace                   # next to the sources in src/ (what `pip install -e .` does)
    python build_core.py --build-dir build/fuzz --sanitize   # clang, -fsanitize=address,fuzzer-no-link

Compiled with the compiler and flags this Python was built with (setuptools' build_ext), plus -O3; gcc or clang
on Linux and macOS, x86-64 or AArch64. Needs setuptools and Python's headers (Debian: python3-dev).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent
EXTENSIONS = {
    "ridgeline.ingest._core": ["src/ridgeline/ingest/_core.c"],
    "ridgeline.writer.summaries._histogram_core": ["src/ridgeline/writer/summaries/_histogram_core.c"],
    "ridgeline.profile._scan": ["src/ridgeline/profile/_scan.c"],
    "ridgeline.writer._scalar_core": ["src/ridgeline/writer/_scalar_core.c"],
    "ridgeline.store._segment_core": ["src/ridgeline/store/_segment_core.c"],
}
# What the extensions' sources include, for the Makefile's and the build's notion of "changed".
HEADERS = ["src/ridgeline/ingest/_crc32c.h"]
# The sanitizer's runtime is not linked in: the instrumented module finds it in the process, where fuzz/run.sh
# preloads the one atheris ships (asan_with_fuzzer.so), so no compiler runtime package is needed.
SANITIZE_FLAGS = ["-fsanitize=address,fuzzer-no-link", "-fno-omit-frame-pointer", "-g", "-O1"]


def build(
    *, inplace: bool, build_dir: Path, sanitize: bool = False, only: list[str] | None = None, root: Path = ROOT
) -> list[Path]:
    """Compile the extensions (``only``: those names); returns the paths of the built modules.

    ``inplace``: next to their sources under ``src/`` (an editable install imports them from there); otherwise
    into ``build_dir`` as ``ridgeline/...``. Raises on any compiler error.
    """
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    unix = os.name == "posix"
    flags = (SANITIZE_FLAGS if sanitize else ["-O3"]) if unix else []
    extensions = [
        Extension(
            name,
            [str(root / source) for source in sources],
            depends=[str(root / header) for header in HEADERS],
            extra_compile_args=[*flags, "-Wall", "-Wextra", "-Wno-unused-parameter"] if unix else [],
        )
        for name, sources in EXTENSIONS.items()
        if only is None or name in only
    ]
    distribution = Distribution(
        {"name": "ridgeline-core", "ext_modules": extensions, "package_dir": {"": str(root / "src")}}
    )
    command = build_ext(distribution)
    command.inplace = inplace
    command.build_lib = str(build_dir)
    command.build_temp = str(build_dir / "temp")
    command.force = True
    with warnings.catch_warnings():  # setuptools warns about `setup.py install`, which nothing here runs
        warnings.filterwarnings("ignore", message=r"\s*setup\.py install is deprecated")
        command.ensure_finalized()
        command.run()
        return [Path(command.get_ext_fullpath(extension.name)) for extension in extensions]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--inplace", action="store_true", help="build next to the sources in src/")
    parser.add_argument("--build-dir", type=Path, default=ROOT / "build" / "core")
    parser.add_argument("--sanitize", action="store_true", help="AddressSanitizer + libFuzzer coverage (clang)")
    parser.add_argument("--only", action="append", help="an extension's module name (repeatable)")
    args = parser.parse_args(argv)
    if args.sanitize:
        os.environ.setdefault("CC", "clang")
        os.environ.setdefault("LDSHARED", f"{os.environ['CC']} -shared")
    for path in build(inplace=args.inplace, build_dir=args.build_dir, sanitize=args.sanitize, only=args.only):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
