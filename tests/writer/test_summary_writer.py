"""SummaryWriter's own behaviour: directories, restarts, metadata, annotations, hparams=, and bad input."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ridgeline import SummaryWriter
from ridgeline.format.proto import hparams_pb2
from ridgeline.format.run_metadata import parse
from ridgeline.format.tags import ANNOTATION_TAG, RUN_METADATA_TAG
from tests.conftest import event_files, read_events, read_scalars


def tensorboard_accumulator(path: Path):  # type: ignore[no-untyped-def]
    from tensorboard.backend.event_processing import event_accumulator

    accumulator = event_accumulator.EventAccumulator(
        str(path), size_guidance=dict.fromkeys(event_accumulator.DEFAULT_SIZE_GUIDANCE, 0)
    )
    accumulator.Reload()
    return accumulator


def test_default_log_dir_is_torchs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as writer:
        log_dir = Path(writer.get_logdir())
    assert log_dir.parent == Path("runs")
    assert log_dir.name.endswith("_lr0.1")
    assert event_files(tmp_path / log_dir)


def test_torchrun_ranks_write_to_their_own_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    with SummaryWriter(tmp_path) as writer:
        assert writer.get_logdir() == str(tmp_path / "rank3")
    with SummaryWriter(tmp_path, per_rank=False) as writer:
        assert writer.get_logdir() == str(tmp_path)
    with SummaryWriter(tmp_path, rank=0) as writer:
        assert writer.get_logdir() == str(tmp_path / "rank0")
    monkeypatch.delenv("WORLD_SIZE")
    with SummaryWriter(tmp_path / "single") as writer:
        assert writer.get_logdir() == str(tmp_path / "single")


def test_purge_step_hides_the_crashed_tail_in_tensorboard(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as first:
        for step in range(10):
            first.add_scalar("loss", float(step), step)
    with SummaryWriter(tmp_path, purge_step=5) as resumed:
        for step in range(5, 8):
            resumed.add_scalar("loss", 100.0 + step, step)
    shown = [(e.step, e.value) for e in tensorboard_accumulator(tmp_path).Scalars("loss")]
    assert shown == [(s, float(s)) for s in range(5)] + [(s, 100.0 + s) for s in range(5, 8)]


def test_run_metadata_is_recorded_once(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("x", 1.0)
    texts = [v for e in read_events(event_files(tmp_path)[0]) for v in e.summary.value if v.tag == RUN_METADATA_TAG]
    assert len(texts) == 1
    assert texts[0].metadata.plugin_data.plugin_name == "ridgeline_run_metadata"
    info = parse(texts[0].tensor.string_val[0].decode())
    assert info["pid"] > 0 and info["host"] and info["python"].count(".") == 2
    assert info["command"] == sys.argv
    assert info["versions"]["numpy"] == np.__version__
    assert info["git"] is None or len(info["git"]["commit"]) == 40


def test_run_metadata_names_the_git_commit_and_dirty_flag(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "train.py").write_text("x = 1\n")
    subprocess.run([*git, "-C", str(repo), "add", "train.py"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "init"], check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    (repo / "train.py").write_text(  # an uncommitted change: the tree is dirty
        textwrap.dedent(
            """
            import sys
            from ridgeline import SummaryWriter
            SummaryWriter(sys.argv[1]).close()
            """
        )
    )
    subprocess.run([sys.executable, str(repo / "train.py"), str(tmp_path / "run")], check=True, cwd=tmp_path)
    values = [v for e in read_events(event_files(tmp_path / "run")[0]) for v in e.summary.value]
    info = parse(values[0].tensor.string_val[0].decode())
    assert info["git"] == {"commit": commit.stdout.strip(), "dirty": True}
    assert info["command"][0].endswith("train.py")


def test_annotations_show_in_tensorboard_as_text(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        writer.add_annotation("lr decayed to 1e-4", step=1200)
    accumulator = tensorboard_accumulator(tmp_path)
    (event,) = accumulator.Tensors(ANNOTATION_TAG)
    assert event.step == 1200
    assert event.tensor_proto.string_val == [b"lr decayed to 1e-4"]
    assert accumulator.SummaryMetadata(ANNOTATION_TAG).plugin_data.plugin_name == "text"


def test_hparams_argument_records_the_run_for_the_hparams_dashboard(tmp_path: Path) -> None:
    from tensorboard.plugins.hparams import plugin_data_pb2

    with SummaryWriter(tmp_path, hparams={"lr": 0.01, "optimizer": "adam", "augment": True}) as writer:
        writer.add_scalar("val/loss", 0.25, 100)
    accumulator = tensorboard_accumulator(tmp_path)
    contents = accumulator.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(contents["_hparams_/session_start_info"])
    hparams = {k: v.WhichOneof("kind") for k, v in start.session_start_info.hparams.items()}
    assert hparams == {"lr": "number_value", "optimizer": "string_value", "augment": "bool_value"}
    assert start.session_start_info.hparams["lr"].number_value == 0.01
    end = plugin_data_pb2.HParamsPluginData.FromString(contents["_hparams_/session_end_info"])
    assert end.session_end_info.status == hparams_pb2.STATUS_SUCCESS


def test_add_scalars_writes_one_sub_run_per_key(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalars("loss/all", {"train": 1.0 + step, "val": 2.0 + step}, step)
    assert read_scalars(tmp_path / "loss_all_train", "loss/all") == [(s, 1.0 + s) for s in range(3)]
    assert read_scalars(tmp_path / "loss_all_val", "loss/all") == [(s, 2.0 + s) for s in range(3)]


def test_values_and_steps_of_every_numeric_kind(tmp_path: Path) -> None:
    import torch

    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("v", 1, np.int64(1))
        writer.add_scalar("v", np.float32(2.5), torch.tensor(2))
        writer.add_scalar("v", torch.tensor([3.5]), 3.0)
        writer.add_scalar("v", np.array(4.5), 4)
        writer.add_scalar("v", True, 5)
        writer.add_scalar("v", float("nan"), 6)
        writer.add_scalar("v", float("-inf"), 7)
        writer.add_scalar("v", torch.tensor(8.5, dtype=torch.bfloat16), 8)
    points = read_scalars(tmp_path, "v")
    assert points[:5] == [(1, 1.0), (2, 2.5), (3, 3.5), (4, 4.5), (5, 1.0)]
    assert points[5][0] == 6 and np.isnan(points[5][1])
    assert points[6:] == [(7, float("-inf")), (8, 8.5)]


def test_torch_is_not_imported_for_plain_values(tmp_path: Path) -> None:
    code = """
        import sys
        import numpy as np
        from ridgeline import SummaryWriter
        with SummaryWriter(sys.argv[1], hparams={"lr": 0.1}) as writer:
            writer.add_scalar("x", 1.0, 1)
            writer.add_histogram("h", np.arange(10.0), 1)
            writer.add_image("i", np.zeros((3, 4, 4)), 1)
            writer.add_text("t", "hello", 1)
        print("torch" in sys.modules)
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


BAD_CALLS = [
    (lambda w: w.add_scalar(3, 1.0), TypeError, "add_scalar: tag must be a non-empty string, got int"),
    (lambda w: w.add_scalar("", 1.0), ValueError, "add_scalar: tag must be a non-empty string, got ''"),
    (lambda w: w.add_scalar("x", "1.0"), TypeError, "add_scalar: scalar_value must be a number"),
    (
        lambda w: w.add_scalar("x", [1.0, 2.0]),
        ValueError,
        r"add_scalar: scalar_value must be a single number, got an array of shape \(2,\)",
    ),
    (lambda w: w.add_scalar("x", 1.0, "ten"), TypeError, "add_scalar: global_step must be an integer"),
    (lambda w: w.add_scalar("x", 1.0, 2.5), ValueError, "add_scalar: global_step must be an integer, got 2.5"),
    (
        lambda w: w.add_scalar("x", 1.0, 2**63),
        ValueError,
        "add_scalar: global_step must fit in a signed 64-bit integer",
    ),
    (lambda w: w.add_histogram("h", np.array([])), ValueError, "add_histogram: values"),
    (lambda w: w.add_histogram("h", [1.0, 2.0], bins=[0.0, np.inf]), ValueError, "add_histogram: bins"),
    (lambda w: w.add_image("i", np.zeros((3, 4))), ValueError, "add_image: img_tensor"),
    (lambda w: w.add_image("i", np.zeros((3, 4, 4), dtype=np.complex64)), TypeError, "add_image: img_tensor"),
    (lambda w: w.add_images("i", np.zeros((3, 4, 4))), ValueError, "add_images: img_tensor"),
    (lambda w: w.add_text("t", 5), TypeError, "add_text: text_string"),
    (lambda w: w.add_scalars("m", [1.0]), TypeError, "add_scalars: tag_scalar_dict must be a dict"),
    (lambda w: w.add_annotation(""), ValueError, "add_annotation: text must be a non-empty string"),
    (lambda w: w.add_hparams([("lr", 1)], {}), TypeError, "add_hparams: hparam_dict and metric_dict must be dicts"),
]


@pytest.mark.parametrize(
    ("call", "error", "message"), BAD_CALLS, ids=[m.split(":")[0] + str(i) for i, (_, _, m) in enumerate(BAD_CALLS)]
)
def test_bad_input_names_the_argument(tmp_path: Path, call, error: type[Exception], message: str) -> None:  # type: ignore[no-untyped-def]
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(error, match=message):
            call(writer)
        writer.add_scalar("after", 1.0, 1)  # the writer is still usable
    assert read_scalars(tmp_path, "after") == [(1, 1.0)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"log_dir": 5}, "SummaryWriter: log_dir must be a path"),
        ({"max_queue": 0}, "SummaryWriter: max_queue must be a positive integer"),
        ({"flush_secs": -1}, "SummaryWriter: flush_secs must be a positive number"),
        ({"log_dir": "s3://bucket/run"}, "SummaryWriter: log_dir must be a local path"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        SummaryWriter(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ending", "status"), [("pass", "STATUS_SUCCESS"), ("raise RuntimeError('diverged')", "STATUS_FAILURE")]
)
def test_a_run_given_hparams_records_how_it_ended_even_without_close(tmp_path: Path, ending: str, status: str) -> None:
    code = f"""
        import sys
        from ridgeline import SummaryWriter
        writer = SummaryWriter(sys.argv[1], hparams={{"lr": 0.1}})
        writer.add_scalar("loss", 1.0, 1)
        {ending}
    """
    subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path)], capture_output=True, check=False)
    contents = tensorboard_accumulator(tmp_path).PluginTagToContent("hparams")
    end = hparams_pb2.HParamsPluginData.FromString(contents["_hparams_/session_end_info"]).session_end_info
    assert hparams_pb2.Status.Name(end.status) == status
    assert end.end_time_secs > 0


def test_add_scalars_writes_nothing_when_one_value_is_bad(tmp_path: Path) -> None:
    with (
        SummaryWriter(tmp_path) as writer,
        pytest.raises(TypeError, match=r"add_scalars: tag_scalar_dict\['b'\] must be a number"),
    ):
        writer.add_scalars("m", {"a": 1.0, "b": "two"}, 1)
    assert not (tmp_path / "m_a").exists()


def test_negative_rank_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SummaryWriter: rank must be >= 0, got -1"):
        SummaryWriter(tmp_path, rank=-1)


def test_bad_hparams_argument_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="SummaryWriter: hparam_dict"):
        SummaryWriter(tmp_path / "run", hparams={"lr": object()})
    assert not (tmp_path / "run").exists()
