"""The cyclic garbage collector kept out of a burst of long-lived objects being built (a warm start's runs, a
run's series as a first pass reads it).

Every collection walks the objects alive in the generations it collects; building the runs of a store (the
decoded manifests, tens of thousands of containers) set off collection after collection that found nothing to
free, a quarter of a warm start's time, and once paused the survivors were still walked twice (into the middle
generation, then the oldest), a fifth. Nothing built there is garbage, so it goes straight to the oldest
generation instead, walked by the next full collection only, as any long-lived object is.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """No automatic collection inside the block (other threads' included); what the block left alive, and
    everything else alive then, moved to the oldest generation without a walk (``gc.freeze`` then
    ``gc.unfreeze``: nothing stays frozen). Where the process froze objects itself, it is left alone: paused
    only."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()
