"""ridgeline: a fast, TensorBoard-compatible training monitor."""

from ridgeline._version import __version__
from ridgeline.writer.summary_writer import SummaryWriter

__all__ = ["SummaryWriter", "__version__"]
