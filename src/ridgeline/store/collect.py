"""The cyclic garbage collector paused while a burst of long-lived objects is built (a warm start's runs).

Every collection of the oldest generation walks every object alive; building the runs of a store (tens of
thousands of series, the decoded manifests they came from) set off collection after collection that found nothing
to free, a quarter of a warm start's time. Nothing built there is garbage: collecting once afterwards is enough.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside the block (other threads' included); as it was again after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
