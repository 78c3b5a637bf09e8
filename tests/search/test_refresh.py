"""The index follows a growing log directory: each refresh reads only what changed (new runs, new tags, new text
lines, a moved end time), never indexes an entry twice, and forgets a deleted run."""

from __future__ import annotations

import shutil
from pathlib import Path

import ridgeline
from ridgeline.search import Searcher


def texts(searcher: Searcher, query: str) -> list[tuple[str, str]]:
    return [(hit.run, hit.text) for hit in searcher.search(query, limit=None).hits]


def test_refresh_follows_a_growing_log_dir(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    first = SummaryWriter(str(tmp_path / "first"))
    first.add_scalar("loss", 1.0, 0, walltime=1_700_000_000)
    first.add_text("log", "epoch 0 ok", 0, walltime=1_700_000_000)
    first.flush()
    logdir = ridgeline.open(tmp_path, cache=False)
    searcher = Searcher(logdir)
    assert sorted(texts(searcher, "tag:.")) == [("first", "log/text_summary"), ("first", "loss")]
    assert texts(searcher, "text:epoch") == [("first", "epoch 0 ok")]
    tag_entries = len(searcher.index.fields["tag"].entry_value)

    # The run grows (a new tag, a new text line, a later end time) and a second run appears.
    first.add_scalar("acc", 0.5, 1, walltime=1_700_000_100)
    first.add_text("log", "epoch 1 nan detected", 1, walltime=1_700_000_100)
    first.flush()
    second = SummaryWriter(str(tmp_path / "second"))
    second.add_scalar("loss", 2.0, 0, walltime=1_700_000_050)
    second.flush()
    logdir.reload()
    assert sorted(texts(searcher, "tag:.")) == [
        ("first", "acc"),
        ("first", "log/text_summary"),
        ("first", "loss"),
        ("second", "loss"),
    ]
    assert texts(searcher, "text:epoch") == [("first", "epoch 0 ok"), ("first", "epoch 1 nan detected")]
    assert len(searcher.index.fields["tag"].entry_value) == tag_entries + 2  # only the new tags were added
    # One start and one end per run, each in both forms: the moved end replaced the old one.
    dates = searcher.search("date:.", limit=None).hits
    assert sorted((hit.run, hit.tag) for hit in dates) == sorted(
        [(run, label) for run in ("first", "second") for label in ("start", "end")] * 2
    )

    # Nothing new: a reload that adds nothing leaves the index as it was.
    entries = {name: len(field.entry_value) for name, field in searcher.index.fields.items()}
    logdir.reload()
    searcher.refresh()
    assert {name: len(field.entry_value) for name, field in searcher.index.fields.items()} == entries

    # A deleted run disappears.
    second.close()
    shutil.rmtree(tmp_path / "second")
    logdir.reload()
    assert searcher.search("run:.").runs == ["first"]
    assert texts(searcher, "tag:^loss$") == [("first", "loss")]
    first.close()


def test_a_run_deleted_then_written_again_is_indexed_afresh(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"), record_run_metadata=False)
    writer.add_scalar("old_tag", 1.0, 0)
    writer.close()
    logdir = ridgeline.open(tmp_path, cache=False)
    searcher = Searcher(logdir)
    assert searcher.search("tag:old").total == 1
    shutil.rmtree(tmp_path / "run")
    logdir.reload()
    assert searcher.search("tag:old").total == 0
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"), record_run_metadata=False)
    writer.add_scalar("new_tag", 1.0, 0)
    writer.close()
    logdir.reload()
    assert [hit.tag for hit in searcher.search("tag:.", limit=None).hits] == ["new_tag"]


def test_unreadable_records_are_skipped(tmp_path: Path) -> None:
    """A corrupt hparams session start (and the other awkward trials of tests/plugins/hparams/hparams_logs.py)
    leave the rest of the log directory searchable."""
    from tests.plugins.hparams.hparams_logs import write_bad_hparams

    write_bad_hparams(tmp_path)
    searcher = Searcher(ridgeline.open(tmp_path, cache=False))
    assert "broken" in searcher.search("run:broken").runs
    lines = {hit.run: hit.text for hit in searcher.search("hparam:.", limit=None).hits}
    assert "broken" not in lines
    assert lines["number"] == "lr=0.1 width=32" and lines["string"] == "lr=0.1 width=wide"
    assert lines["bool"] == "lr=0.1 width=true"
    assert any(line == "lr=nan width=64" for line in lines.values())  # torch's trial with a NaN lr
