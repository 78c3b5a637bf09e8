"""The collector kept out of a warm start's burst of long-lived objects (ridgeline.store.collect)."""

from __future__ import annotations

import gc

from ridgeline.store.collect import long_lived


def test_what_the_block_built_goes_to_the_oldest_generation_and_the_collector_is_as_it_was() -> None:
    assert gc.isenabled()
    with long_lived():
        assert not gc.isenabled()
        built = [[index] for index in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0, "nothing stays frozen"
    oldest = {id(found) for found in gc.get_objects(generation=2)}
    assert all(id(one) in oldest for one in built)
    garbage: list[object] = []
    garbage.append(garbage)  # a cycle made afterwards is still collected
    del garbage
    assert gc.collect() >= 1


def test_a_collector_disabled_or_objects_frozen_by_the_process_are_left_so() -> None:
    gc.disable()
    try:
        with long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    mine = [["frozen by the process"]]
    gc.freeze()
    try:
        with long_lived():
            built = [[index] for index in range(10)]
        # Not the freeze count: objects other threads free meanwhile (threads earlier tests left running) lower it.
        # An object still frozen is in no generation the collector walks; unfrozen, it would be in the oldest.
        walked = {id(found) for found in gc.get_objects()}
        assert id(mine) not in walked and id(mine[0]) not in walked, "the process's frozen objects stay frozen"
        assert gc.get_freeze_count() > 0
        assert gc.isenabled() and built
    finally:
        gc.unfreeze()
