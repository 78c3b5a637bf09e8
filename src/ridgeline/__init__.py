"""ridgeline: a fast, TensorBoard-compatible training monitor.

``SummaryWriter`` writes logs; ``open(logdir)`` reads them. Each side is imported on first use of its name, so
training code that only writes never loads the reading side, and the CLI and the reading API never load the
writer's summaries (half a second of imports).
"""

from typing import TYPE_CHECKING, Any

from ridgeline._version import __version__

if TYPE_CHECKING:
    from ridgeline.api import open
    from ridgeline.writer.summary_writer import SummaryWriter
    from ridgeline.writer.system_metrics import log_system_metrics

__all__ = ["SummaryWriter", "__version__", "log_system_metrics", "open"]


def __getattr__(name: str) -> Any:
    if name == "open":
        from ridgeline.api import open

        return open
    if name == "SummaryWriter":
        from ridgeline.writer.summary_writer import SummaryWriter

        return SummaryWriter
    if name == "log_system_metrics":
        from ridgeline.writer.system_metrics import log_system_metrics

        return log_system_metrics
    raise AttributeError(f"module 'ridgeline' has no attribute {name!r}")
