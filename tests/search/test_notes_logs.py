"""``note:`` and ``log:``: search over the runs' notes (README and ``add_note``) and their captured console lines,
on runs written by ridgeline's writer, kept current as a run prints more and its README is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import ridgeline
from ridgeline.search import Searcher, SearchError


def write(logdir: Path) -> None:
    with ridgeline.SummaryWriter(logdir / "baseline", capture_console=True) as writer:
        writer.add_note("# Baseline\nplain SGD, **no warmup**", tags=["baseline"])
        writer.add_scalar("loss", 1.0, 0)
        print("epoch 0 loss 1.000")
        writer.add_scalar("loss", 0.5, 7)
        print("CUDA out of memory", file=sys.stderr)
    with ridgeline.SummaryWriter(logdir / "warmup", capture_console=True) as writer:
        writer.add_scalar("loss", 0.9, 0)
        print("epoch 0 loss 0.900")
    (logdir / "warmup" / "README.md").write_text("Cosine schedule with linear warmup\n")


def test_note_finds_the_notes_lines_of_file_and_add_note(tmp_path: Path) -> None:
    write(tmp_path)
    searcher = Searcher(ridgeline.open(tmp_path, cache=False))
    hits = searcher.search("note:warmup", limit=None).hits
    assert sorted((hit.kind, hit.run, hit.text) for hit in hits) == [
        ("note", "baseline", "plain SGD, **no warmup**"),
        ("note", "warmup", "Cosine schedule with linear warmup"),
    ]
    assert searcher.search("notes:^# Baseline").runs == ["baseline"]
    assert searcher.search("note:loss").hits == []  # console lines are not notes


def test_log_finds_console_lines_with_their_stream_and_step(tmp_path: Path) -> None:
    write(tmp_path)
    searcher = Searcher(ridgeline.open(tmp_path, cache=False))
    hits = searcher.search("log:epoch 0", limit=None).hits
    assert sorted((hit.run, hit.tag, hit.step, hit.text) for hit in hits) == [
        ("baseline", "stdout", 0, "epoch 0 loss 1.000"),
        ("warmup", "stdout", 0, "epoch 0 loss 0.900"),
    ]
    (oom,) = searcher.search("logs:(?i)out of memory").hits
    assert (oom.kind, oom.run, oom.tag, oom.step) == ("log", "baseline", "stderr", 7)
    assert searcher.search("log:epoch AND note:warmup").runs == ["baseline", "warmup"]
    assert searcher.search("log:epoch NOT note:^Cosine").runs == ["baseline"]
    assert {hit.kind for hit in searcher.search("warmup", limit=None).hits} == {"note", "run"}  # every field


def test_new_lines_and_a_readme_are_found_after_the_run_changes(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(tmp_path / "live", capture_console=True)
    writer.add_scalar("loss", 1.0, 0)
    print("first line")
    writer.flush()
    logdir = ridgeline.open(tmp_path, cache=False)
    searcher = Searcher(logdir)
    assert searcher.search("log:line").hits[0].text == "first line"
    assert searcher.search("note:diverged").hits == []
    (tmp_path / "live" / "NOTES.md").write_text("diverged at step 1\n")
    writer.add_scalar("loss", 2.0, 1)
    print("second line")
    writer.close()
    logdir.reload()
    assert [hit.text for hit in searcher.search("log:line", limit=None).hits] == ["first line", "second line"]
    assert searcher.search("note:diverged").runs == ["live"]


def test_a_bad_pattern_in_log_is_a_search_error(tmp_path: Path) -> None:
    write(tmp_path)
    searcher = Searcher(ridgeline.open(tmp_path, cache=False))
    with pytest.raises(SearchError):
        searcher.search("log:(unclosed")
