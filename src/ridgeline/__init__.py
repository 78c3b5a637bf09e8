"""ridgeline: a fast, TensorBoard-compatible training monitor.

``SummaryWriter`` writes logs; ``open(logdir)`` reads them. The reading side is imported on first use of
``open``, so training code that only writes never loads it.
"""

from typing import TYPE_CHECKING, Any

from ridgeline._version import __version__
from ridgeline.writer.summary_writer import SummaryWriter

if TYPE_CHECKING:
    from ridgeline.api import open

__all__ = ["SummaryWriter", "__version__", "open"]


def __getattr__(name: str) -> Any:
    if name == "open":
        from ridgeline.api import open

        return open
    raise AttributeError(f"module 'ridgeline' has no attribute {name!r}")
