"""The run metadata record stays out of TensorBoard's text dashboard (it was the first text section of every run):
its plugin name is ridgeline's own. ridgeline reads run metadata from such files and from files written before,
whose record named the text plugin."""

from __future__ import annotations

from pathlib import Path

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.format.run_metadata import render
from ridgeline.format.tags import RUN_METADATA_TAG
from ridgeline.writer.event_file import EventFileWriter
from ridgeline.writer.run_metadata import collect, text_summary


def tensorboard_text_tags(log_dir: Path) -> dict[str, list[str]]:
    """What TensorBoard's own text plugin lists, run by run, reading ``log_dir`` as `tensorboard --logdir` does."""
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
    from tensorboard.context import RequestContext
    from tensorboard.plugins import base_plugin
    from tensorboard.plugins.text import text_plugin

    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(log_dir))
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, str(log_dir))
    plugin = text_plugin.TextPlugin(base_plugin.TBContext(data_provider=provider, multiplexer=multiplexer))
    listed: dict[str, list[str]] = plugin.index_impl(RequestContext(), experiment="")
    return listed


def write_old_style(run_dir: Path) -> None:
    """A run as ridgeline wrote it before: the record under the text plugin's name."""
    run_dir.mkdir(parents=True)
    record = text_summary(RUN_METADATA_TAG, render(collect(1_700_000_000.0)))
    assert record.value[0].metadata.plugin_data.plugin_name == "text"
    events = EventFileWriter(str(run_dir))
    events.add_summary(record, 0, 1_700_000_000.0)
    events.close()


def test_tensorboard_text_dashboard_does_not_list_the_record(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path / "new") as writer:
        writer.add_text("notes", "what I wrote", 0)
        writer.add_scalar("loss", 1.0, 0)
    write_old_style(tmp_path / "old")
    listed = tensorboard_text_tags(tmp_path)
    assert listed["new"] == ["notes/text_summary"]
    assert listed["old"] == [RUN_METADATA_TAG]  # the case this fixes, as TensorBoard shows files written before


def test_ridgeline_reads_run_metadata_of_new_and_old_files(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path / "new") as writer:
        writer.add_scalar("loss", 1.0, 0)
    write_old_style(tmp_path / "old")
    for cache in (False, True):
        logdir = ridgeline.open(tmp_path, cache=cache, cache_dir=tmp_path / "cache")
        new, old = logdir.run_metadata("new"), logdir.run_metadata("old")
        assert new is not None and new["pid"] > 0 and new["host"]
        assert old is not None and old["start_time"] == 1_700_000_000.0
        assert "text" not in logdir.tags("new") or RUN_METADATA_TAG not in logdir.tags("new")["text"]
