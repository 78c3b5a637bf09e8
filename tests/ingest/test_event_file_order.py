"""A run's event files are read in the order they were opened, also when a process opened ten or more in one
second: the writers' names end in a counter, ``.9`` then ``.10``, which a plain sort by name reverses (a restart
in the later file was then read first, and its superseded points came back)."""

from __future__ import annotations

from pathlib import Path

import ridgeline
from ridgeline.ingest.discovery import event_file_order


def test_the_counter_at_the_end_of_a_name_is_compared_as_a_number() -> None:
    names = [f"events.out.tfevents.1700000000.host.4242.{n}" for n in (10, 9, 11, 0, 100)]
    assert sorted(names, key=event_file_order) == [
        f"events.out.tfevents.1700000000.host.4242.{n}" for n in (0, 9, 10, 11, 100)
    ]
    # A later second still comes after, whatever its counter.
    assert sorted(
        ["events.out.tfevents.1700000001.h.1.0", "events.out.tfevents.1700000000.h.1.12"], key=event_file_order
    )[0].endswith(".12")


def write(directory: Path, steps: range, value: float, name: str) -> None:
    with ridgeline.SummaryWriter(directory, record_run_metadata=False) as writer:
        for step in steps:
            writer.add_scalar("loss", value, step)
    (written,) = [
        path for path in directory.iterdir() if path.name.startswith("events") and ".host.4242." not in path.name
    ]
    written.rename(directory / name)


def test_a_restart_in_the_tenth_file_of_a_second_supersedes_the_ninth(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write(run, range(0, 20), 1.0, "events.out.tfevents.1700000000.host.4242.9")
    write(run, range(10, 15), 2.0, "events.out.tfevents.1700000000.host.4242.10")
    loss = ridgeline.open(tmp_path, cache=False).scalars("run", "loss")
    assert loss.step.tolist() == list(range(15))
    assert loss.value.tolist() == [1.0] * 10 + [2.0] * 5
