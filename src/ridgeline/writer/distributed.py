"""``SummaryWriter.sync_step``: when this rank reached a synchronisation point and when it left it.

In a synchronous job every rank waits for the slowest at each collective, so the wall times of logged values say
nothing about who is late; the arrival at the synchronisation point does. :func:`synchronise` reads the clock, waits
at the barrier, reads the clock again. The writer records one scalar per call under
:data:`ridgeline.format.tags.SYNC_TAG`: wall time = departure, value = seconds waited. Since every rank leaves a
barrier at (nearly) the same instant, the departures also align the ranks' clocks (``ridgeline ranks``).

The barrier is the caller's ``barrier`` callable, else ``torch.distributed.barrier()`` when torch is already
imported and a default process group is initialised, else none (the record then still says when the rank got
there). torch is never imported here.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def default_barrier() -> Callable[[], object] | None:
    """``torch.distributed.barrier`` when a default process group is initialised, else None."""
    dist = sys.modules.get("torch.distributed")
    if dist is None:
        return None
    try:
        if not (dist.is_available() and dist.is_initialized()):
            return None
    except (AttributeError, RuntimeError):
        return None
    barrier: Callable[[], object] = dist.barrier
    return barrier


def synchronise(barrier: Callable[[], object] | None) -> tuple[float, float]:
    """(arrival, departure) wall times around one call of ``barrier`` (or of the default barrier)."""
    wait = barrier if barrier is not None else default_barrier()
    arrival = time.time()
    if wait is not None:
        wait()
    return arrival, time.time()
