"""Retention on the local disk: which runs a policy takes, which files go with them, what always stays, and
that nothing outside the log directory is ever touched. Real log directories written by SummaryWriter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ridgeline.ingest.discovery import LogDirError, LogDirSource, sources_from
from ridgeline.retention.policy import Policy, PolicyError
from ridgeline.retention.sweep import Action, Outcome, TrashError, sweep
from tests.retention.logs import DAY, age, ago, files_below, relative, snapshot, write_run, write_trial_and_series

DELETE = Action("delete")


def clean(logdir: Path | str, policy: Policy, action: Action = DELETE) -> Outcome:
    return sweep(sources_from(str(logdir)), policy, action)


def going(outcome: Outcome) -> list[str]:
    return sorted(decision.candidate.name for decision in outcome.plan.going)


def test_a_dry_run_lists_what_would_go_and_touches_nothing(tmp_path: Path) -> None:
    write_run(tmp_path / "old", 40)
    write_run(tmp_path / "new", 2)
    before = snapshot(tmp_path)
    outcome = clean(tmp_path, Policy(older_than=30 * DAY), Action())
    assert going(outcome) == ["old"]
    assert outcome.plan.freed == sum(p.stat().st_size for p in (tmp_path / "old").iterdir())
    assert outcome.removed == [] and outcome.files == 0
    assert snapshot(tmp_path) == before


def test_older_than_deletes_old_runs_and_their_emptied_directories(tmp_path: Path) -> None:
    write_run(tmp_path / "project" / "old", 40)
    write_run(tmp_path / "project" / "new", 2)
    write_run(tmp_path / "other" / "older", 90)
    outcome = clean(tmp_path, Policy(older_than=30 * DAY))
    assert sorted(d.candidate.name for d in outcome.removed) == ["other/older", "project/old"]
    assert not (tmp_path / "project" / "old").exists() and not (tmp_path / "other").exists()
    assert (tmp_path / "project" / "new").is_dir() and tmp_path.is_dir()
    assert outcome.files == 2 and outcome.freed == outcome.plan.freed > 0


def test_keep_last_and_max_size_take_the_oldest_first(tmp_path: Path) -> None:
    for days in (1.5, 3, 5, 8):
        write_run(tmp_path / f"run_{days}d", days)
    assert going(clean(tmp_path, Policy(keep_last=2), Action())) == ["run_5d", "run_8d"]
    size = {path.name: sum(f.stat().st_size for f in path.iterdir()) for path in tmp_path.iterdir()}
    three_newest = size["run_1.5d"] + size["run_3d"] + size["run_5d"]
    assert going(clean(tmp_path, Policy(max_size=three_newest), Action())) == ["run_8d"]
    assert going(clean(tmp_path, Policy(max_size=three_newest - 1), Action())) == ["run_5d", "run_8d"]
    assert going(clean(tmp_path, Policy(max_size=0), Action())) == ["run_1.5d", "run_3d", "run_5d", "run_8d"]


def test_max_size_never_keeps_an_older_run_that_a_newer_one_made_room_for(tmp_path: Path) -> None:
    # Sizes differ by run (here by design; the writer's metadata alone makes them differ by a byte or two): a
    # small old run that would fit beside the newest ones still goes once a newer run went.
    write_run(tmp_path / "new", 1.5, steps=20)
    write_run(tmp_path / "big_middle", 3, steps=400)
    write_run(tmp_path / "small_old", 5, steps=2)
    size = {path.name: sum(f.stat().st_size for f in path.iterdir()) for path in tmp_path.iterdir()}
    assert size["small_old"] < size["big_middle"]
    limit = size["new"] + size["small_old"]
    assert going(clean(tmp_path, Policy(max_size=limit), Action())) == ["big_middle", "small_old"]


def test_keep_and_the_last_hour_rule_win_over_every_rule(tmp_path: Path) -> None:
    write_run(tmp_path / "baseline", 60)
    write_run(tmp_path / "resumed", 60)
    (tmp_path / "resumed" / "NOTES.md").write_text("still training")  # written to just now
    write_run(tmp_path / "live", 0.01)  # its last event 15 minutes ago, its files as old
    write_run(tmp_path / "old", 60)
    outcome = clean(tmp_path, Policy(older_than=30 * DAY, keep_last=0, keep="^base"), Action())
    assert going(outcome) == ["old"]
    kept = {d.candidate.name: d.kept for d in outcome.plan.decisions if d.kept}
    assert kept["baseline"] == "matches --keep"
    assert kept["resumed"] == "written to just now"
    assert kept["live"] is not None and kept["live"].startswith("written to ") and "minutes ago" in kept["live"]


def test_nested_runs_go_with_their_parent(tmp_path: Path) -> None:
    write_run(tmp_path / "sweep", 40)
    nested = write_trial_and_series(tmp_path / "sweep", 40)
    assert len(nested) == 3  # the hparams trial and two add_scalars series
    write_run(tmp_path / "kept", 40)
    write_trial_and_series(tmp_path / "kept", 40)
    trial = next(name for name in os.listdir(tmp_path / "kept") if name[0].isdigit())
    outcome = clean(tmp_path, Policy(older_than=30 * DAY, keep=f"kept/{trial}$"))
    (removed,) = outcome.removed
    assert removed.candidate.runs == ("sweep", *(f"sweep/{name}" for name in nested))
    assert not (tmp_path / "sweep").exists()
    assert len(files_below(tmp_path / "kept")) == 5, "keeping one trial keeps its parent and siblings"


def test_an_add_hparams_trial_is_a_nested_run(tmp_path: Path) -> None:
    from ridgeline import SummaryWriter
    from ridgeline.retention.candidates import scan
    from ridgeline.retention.tree import tree_for

    with SummaryWriter(tmp_path / "sweep") as writer:
        writer.add_hparams({"lr": 0.1}, {"hparam/acc": 0.4})
    source = LogDirSource(str(tmp_path))
    (candidate,) = scan(source, tree_for(source)).candidates
    (trial,) = (path for path in (tmp_path / "sweep").iterdir() if path.is_dir())
    assert candidate.name == "sweep" and candidate.runs == ("sweep", f"sweep/{trial.name}")


def test_projector_files_go_but_traces_and_notes_stay_unless_all_files(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", 40, embedding=True)
    assert (run / "projector_config.pbtxt").is_file() and (run / "00003" / "default" / "tensors.tsv").is_file()
    (run / "rank0.1700000000.pt.trace.json.gz").write_bytes(b"trace")
    (run / "NOTES.md").write_text("why this run")
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / "last.pt").write_bytes(b"weights")
    age(run, ago(40))
    clean(tmp_path, Policy(older_than=30 * DAY))
    assert relative(files_below(tmp_path), tmp_path) == {
        "run/rank0.1700000000.pt.trace.json.gz",
        "run/NOTES.md",
        "run/checkpoints/last.pt",
    }, "event and projector files go, torch's <step>/<tag>/ folder with them"
    write_run(run, 40)
    age(run, ago(40))
    outcome = clean(tmp_path, Policy(older_than=30 * DAY, all_files=True))
    assert outcome.files == 4 and not run.exists()


def test_symlinks_are_neither_followed_nor_removed(tmp_path: Path) -> None:
    logdir, outside = tmp_path / "logs", tmp_path / "outside"
    write_run(outside / "precious", 400)
    write_run(logdir / "run", 40)
    (logdir / "run" / "linked_dir").symlink_to(outside / "precious", target_is_directory=True)
    precious_events = next((outside / "precious").glob("*tfevents*"))
    (logdir / "run" / "events.out.tfevents.link").symlink_to(precious_events)
    (logdir / "via_link").symlink_to(outside, target_is_directory=True)  # a run reached only through a link
    before = snapshot(outside)
    outcome = clean(logdir, Policy(older_than=30 * DAY, all_files=True))
    assert [d.candidate.name for d in outcome.removed] == ["run"]
    assert snapshot(outside) == before
    assert sorted(os.listdir(logdir / "run")) == ["events.out.tfevents.link", "linked_dir"]
    assert (logdir / "via_link").is_symlink()


def test_a_directory_swapped_for_a_symlink_after_the_scan_leads_nowhere(tmp_path: Path) -> None:
    """Between the scan and the deletion a run's directory is replaced by a link to another with the same files:
    the deletion checks each file's real directory first."""
    from ridgeline.retention.candidates import scan
    from ridgeline.retention.policy import plan
    from ridgeline.retention.sweep import apply
    from ridgeline.retention.tree import tree_for

    logdir, outside = tmp_path / "logs", tmp_path / "outside"
    write_run(logdir / "run" / "inner", 40)
    source = LogDirSource(str(logdir))
    planned = plan([scan(source, tree_for(source))], Policy(older_than=30 * DAY), ago(0))
    (logdir / "run").rename(outside)
    (logdir / "run").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    outcome = apply(planned, DELETE)
    assert snapshot(outside) == before
    assert any("outside the log directory" in failure for failure in outcome.failures), outcome.failures


def test_a_run_written_to_after_the_scan_stays(tmp_path: Path) -> None:
    from ridgeline.retention.candidates import scan
    from ridgeline.retention.policy import plan
    from ridgeline.retention.sweep import apply
    from ridgeline.retention.tree import tree_for

    write_run(tmp_path / "resumed", 40)
    write_run(tmp_path / "restarted", 40)
    source = LogDirSource(str(tmp_path))
    planned = plan([scan(source, tree_for(source))], Policy(older_than=30 * DAY), ago(0))
    assert len(planned.going) == 2
    next((tmp_path / "resumed").glob("*tfevents*")).touch()
    (tmp_path / "restarted" / "events.out.tfevents.9.host.1.0").write_bytes(b"")
    age(tmp_path / "restarted", ago(40))
    outcome = apply(planned, DELETE)
    assert outcome.removed == []
    why = {decision.candidate.name: reason for decision, reason in outcome.skipped}
    assert "written to since the scan" in why["resumed"]
    assert "a new event file appeared" in why["restarted"]
    assert len(files_below(tmp_path)) == 3


def test_the_root_run_takes_only_its_own_files(tmp_path: Path) -> None:
    write_run(tmp_path, 40)  # event files directly in the log directory: the run "."
    write_run(tmp_path / "child", 40)
    (tmp_path / "README.md").write_text("the project")
    age(tmp_path, ago(40))
    outcome = clean(tmp_path, Policy(older_than=30 * DAY))
    assert sorted(d.candidate.name for d in outcome.removed) == [".", "child"]
    assert relative(files_below(tmp_path), tmp_path) == {"README.md"}


def test_the_policy_applies_to_each_log_directory_on_its_own(tmp_path: Path) -> None:
    for name, days in (("a/one", 2), ("a/two", 3), ("b/one", 20), ("b/two", 30)):
        write_run(tmp_path / name, days)
    spec = f"first:{tmp_path / 'a'},second:{tmp_path / 'b'}"
    assert going(clean(spec, Policy(keep_last=1), Action())) == ["first/two", "second/two"]


def test_trash_moves_runs_keeping_their_paths(tmp_path: Path) -> None:
    logdir, trash = tmp_path / "logs", tmp_path / "trash"
    write_run(logdir / "project" / "old", 40, embedding=True)
    before = {path.relative_to(logdir): path.read_bytes() for path in files_below(logdir)}
    outcome = clean(logdir, Policy(older_than=30 * DAY), Action("trash", str(trash)))
    assert not (logdir / "project").exists()
    assert outcome.trash_folder is not None
    (folder,) = trash.iterdir()
    assert folder.name.startswith("ridgeline-clean-") and str(folder) == outcome.trash_folder
    assert {path.relative_to(folder): path.read_bytes() for path in files_below(folder)} == before


def test_a_trash_inside_the_log_directory_or_elsewhere_is_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "old", 40)
    before = snapshot(tmp_path)
    policy = Policy(older_than=30 * DAY)
    with pytest.raises(TrashError, match="inside the log directory"):
        clean(tmp_path, policy, Action("trash", str(tmp_path / "trash")))
    with pytest.raises(TrashError, match="is a URL but the log directory"):
        clean(tmp_path, policy, Action("trash", "s3://bucket/trash"))
    assert snapshot(tmp_path) == before


def test_root_and_home_directories_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "people" / "me"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    policy = Policy(older_than=30 * DAY)
    with pytest.raises(LogDirError, match="the root of the file system"):
        clean("/", policy, Action())
    with pytest.raises(LogDirError, match="it is the home directory"):
        clean(home, policy, Action())
    with pytest.raises(LogDirError, match="it holds the home directory"):
        clean(tmp_path / "people", policy, Action())
    (tmp_path / "link").symlink_to(home, target_is_directory=True)
    with pytest.raises(LogDirError, match="it is the home directory"):
        clean(tmp_path / "link", policy, Action())
    write_run(home / "runs" / "old", 40)
    assert going(clean(home / "runs", policy, Action())) == ["old"]


def test_a_log_directory_that_is_a_symlink_is_cleaned_where_it_leads(tmp_path: Path) -> None:
    write_run(tmp_path / "data" / "old", 40)
    (tmp_path / "runs").symlink_to(tmp_path / "data", target_is_directory=True)
    clean(tmp_path / "runs", Policy(older_than=30 * DAY))
    assert not (tmp_path / "data" / "old").exists() and (tmp_path / "runs").is_symlink()


def test_a_missing_log_directory_and_an_empty_policy_are_errors(tmp_path: Path) -> None:
    with pytest.raises(LogDirError, match="does not exist"):
        clean(tmp_path / "nope", Policy(older_than=DAY), Action())
    with pytest.raises(PolicyError, match="--older-than, --keep-last or --max-size"):
        Policy()
