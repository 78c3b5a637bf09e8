"""``python -m ridgeline.cli``: the ``ridgeline`` command (how the tests and benchmarks start a server)."""

from ridgeline.cli import main

main()
