"""The demo log directory, read back with TensorBoard's own loader: every dashboard has data, and it is realistic."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from ridgeline.fixtures import demo as fixtures

STEPS = 200
START_TIME = 1_700_000_000.0
KEEP_EVERYTHING = {
    event_accumulator.COMPRESSED_HISTOGRAMS: 0,
    event_accumulator.IMAGES: 0,
    event_accumulator.AUDIO: 0,
    event_accumulator.SCALARS: 0,
    event_accumulator.HISTOGRAMS: 0,
    event_accumulator.TENSORS: 0,
}
RUNS = ["resnet/lr_0.1", "resnet/lr_0.01", "resnet/lr_0.001", "resnet/overfit", "resnet/spike"]


def load(run_dir: Path) -> EventAccumulator:
    accumulator = EventAccumulator(str(run_dir), size_guidance=KEEP_EVERYTHING)
    accumulator.Reload()
    return accumulator


def values(accumulator: EventAccumulator, tag: str) -> tuple[np.ndarray, np.ndarray]:
    events = accumulator.Scalars(tag)
    return np.array([e.step for e in events]), np.array([e.value for e in events])


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[tuple[int, int]]]:
    logdir = tmp_path_factory.mktemp("demo")
    calls: list[tuple[int, int]] = []
    runs = fixtures.write_demo(logdir, steps=STEPS, seed=0, progress=lambda done, total: calls.append((done, total)))
    return logdir, runs, calls


@pytest.fixture(scope="module")
def loaded(demo: tuple[Path, list[str], list[tuple[int, int]]]) -> dict[str, EventAccumulator]:
    logdir, runs, _ = demo
    return {run: load(logdir / run) for run in runs}


def test_writes_the_named_runs(demo: tuple[Path, list[str], list[tuple[int, int]]]) -> None:
    logdir, runs, _ = demo
    assert runs == RUNS
    for run in runs:
        assert any("tfevents" in path.name for path in (logdir / run).iterdir()), run


def test_progress_counts_steps_up_to_the_total(demo: tuple[Path, list[str], list[tuple[int, int]]]) -> None:
    _, runs, calls = demo
    total = len(runs) * STEPS
    assert calls[0] == (0, total)
    assert calls[-1] == (total, total)
    assert all(later[0] > earlier[0] for earlier, later in itertools.pairwise(calls))


def test_every_run_has_the_training_scalars(loaded: dict[str, EventAccumulator]) -> None:
    for run, accumulator in loaded.items():
        scalar_tags = set(accumulator.Tags()["scalars"])
        expected = {"train/loss", "train/accuracy", "train/lr", "train/grad_norm", "val/loss", "val/accuracy"}
        assert expected <= scalar_tags, run
        steps, _ = values(accumulator, "train/loss")
        assert list(steps) == list(range(STEPS))
        val_steps, _ = values(accumulator, "val/loss")
        assert 10 <= len(val_steps) < STEPS / 2  # validation runs less often than training steps
        assert val_steps[-1] == STEPS - 1


def test_losses_fall_and_accuracies_rise(loaded: dict[str, EventAccumulator]) -> None:
    for run in ("resnet/lr_0.1", "resnet/lr_0.01"):
        _, loss = values(loaded[run], "train/loss")
        _, accuracy = values(loaded[run], "val/accuracy")
        assert loss[-20:].mean() < loss[:20].mean() / 3, run
        assert accuracy[-1] > 0.8 > 0.2 > accuracy[0], run


def test_larger_learning_rates_are_noisier_and_faster(loaded: dict[str, EventAccumulator]) -> None:
    def relative_noise(run: str) -> float:
        _, loss = values(loaded[run], "train/loss")
        tail = loss[STEPS // 4 : STEPS // 2]
        return float(np.std(np.diff(np.log(tail))))

    assert relative_noise("resnet/lr_0.1") > relative_noise("resnet/lr_0.01") > relative_noise("resnet/lr_0.001")
    _, fast = values(loaded["resnet/lr_0.01"], "val/loss")
    _, slow = values(loaded["resnet/lr_0.001"], "val/loss")
    assert fast[-1] < slow[-1]


def test_lr_decays_with_an_annotation_at_each_decay(loaded: dict[str, EventAccumulator]) -> None:
    accumulator = loaded["resnet/lr_0.1"]
    steps, lr = values(accumulator, "train/lr")
    decay_steps = list(steps[1:][np.diff(lr) < 0])
    assert decay_steps == [STEPS // 2, STEPS * 3 // 4]
    annotations = accumulator.Tensors("_ridgeline/annotations")
    assert [event.step for event in annotations] == decay_steps
    texts = [event.tensor_proto.string_val[0].decode() for event in annotations]
    assert texts == ["lr decayed to 0.01", "lr decayed to 0.001"]


def test_overfit_run_val_loss_turns_up_while_train_loss_keeps_falling(loaded: dict[str, EventAccumulator]) -> None:
    accumulator = loaded["resnet/overfit"]
    val_steps, val_loss = values(accumulator, "val/loss")
    best = int(val_steps[np.argmin(val_loss)])
    assert best < 0.6 * STEPS
    assert val_loss[-1] > 1.5 * val_loss.min()
    _, train_loss = values(accumulator, "train/loss")
    around_best = train_loss[max(0, best - 10) : best + 10].mean()
    assert train_loss[-20:].mean() < around_best / 2


def test_spike_run_has_a_sudden_jump_that_recovers(loaded: dict[str, EventAccumulator]) -> None:
    _, loss = values(loaded["resnet/spike"], "train/loss")
    window = 10
    before = np.array([np.median(loss[max(0, i - window) : i]) for i in range(window, STEPS)])
    jumps = loss[window:] / before
    spike_step = window + int(np.argmax(jumps))
    assert jumps.max() > 3
    assert 0.3 * STEPS <= spike_step <= 0.5 * STEPS
    assert loss[-20:].mean() < loss[spike_step] / 3  # recovered
    for run in RUNS[:3]:  # the other runs have no such jump
        _, calm = values(loaded[run], "train/loss")
        calm_before = np.array([np.median(calm[i - window : i]) for i in range(STEPS // 4, STEPS)])
        assert (calm[STEPS // 4 :] / calm_before).max() < jumps.max() / 2, run


def test_histograms_of_weights_and_gradients_evolve(loaded: dict[str, EventAccumulator]) -> None:
    accumulator = loaded["resnet/lr_0.01"]
    tags = set(accumulator.Tags()["histograms"])
    for layer in ("conv1", "fc1", "fc2"):
        assert {f"weights/{layer}", f"grad/{layer}"} <= tags
    gradients = accumulator.Histograms("grad/fc1")
    assert len(gradients) >= 10

    def spread(histogram: event_accumulator.HistogramValue) -> float:
        mean = histogram.sum / histogram.num
        return float(np.sqrt(histogram.sum_squares / histogram.num - mean**2))

    assert spread(gradients[-1].histogram_value) < spread(gradients[0].histogram_value) / 2
    weights = accumulator.Histograms("weights/fc1")
    assert spread(weights[-1].histogram_value) > spread(weights[0].histogram_value)


def test_images(loaded: dict[str, EventAccumulator]) -> None:
    accumulator = loaded["resnet/lr_0.01"]
    assert {"samples/input", "eval/confusion_matrix"} <= set(accumulator.Tags()["images"])
    inputs = accumulator.Images("samples/input")
    assert len(inputs) >= 3
    assert inputs[0].encoded_image_string.startswith(b"\x89PNG")
    matrix = accumulator.Images("eval/confusion_matrix")[-1]
    assert (matrix.width, matrix.height) == (160, 160)


def test_text_notes_hold_markdown_tables(loaded: dict[str, EventAccumulator]) -> None:
    for run, accumulator in loaded.items():
        notes = accumulator.Tensors("notes/text_summary")
        assert [event.step for event in notes] == [0, STEPS - 1], run
        first = notes[0].tensor_proto.string_val[0].decode()
        assert first.startswith(f"## {run}") and "| lr |" in first
        assert accumulator.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def test_pr_curves(loaded: dict[str, EventAccumulator]) -> None:
    for accumulator in loaded.values():
        curves = accumulator.Tensors("pr/cat")
        assert len(curves) == 4
        assert accumulator.SummaryMetadata("pr/cat").plugin_data.plugin_name == "pr_curves"
        # rows: TP, FP, TN, FN, precision, recall; one column per threshold
        assert len(curves[0].tensor_proto.tensor_shape.dim) == 2
        assert curves[0].tensor_proto.tensor_shape.dim[0].size == 6


def test_audio_once_in_the_showcase_run(loaded: dict[str, EventAccumulator]) -> None:
    clips = loaded["resnet/lr_0.01"].Audio("samples/tones")
    assert len(clips) == 1
    assert clips[0].encoded_audio_string.startswith(b"RIFF")
    assert clips[0].sample_rate == 16_000
    for run in ("resnet/lr_0.1", "resnet/overfit"):
        assert loaded[run].Tags()["audio"] == []


def test_hparams_on_every_run(loaded: dict[str, EventAccumulator]) -> None:
    from tensorboard.plugins.hparams import metadata as hparams_metadata

    learning_rates = set()
    for run, accumulator in loaded.items():
        content = accumulator.PluginTagToContent("hparams")
        assert hparams_metadata.SESSION_START_INFO_TAG in content, run
        assert hparams_metadata.SESSION_END_INFO_TAG in content, run
        start = hparams_metadata.parse_session_start_info_plugin_data(content[hparams_metadata.SESSION_START_INFO_TAG])
        assert set(start.hparams) == {"lr", "batch_size", "optimizer", "dropout"}
        learning_rates.add(start.hparams["lr"].number_value)
        assert start.hparams["optimizer"].string_value in {"sgd", "adam"}
        assert {"hparam/best_val_accuracy", "hparam/final_val_loss"} <= set(accumulator.Tags()["scalars"])
    assert learning_rates == {0.1, 0.01, 0.001, 0.05}


def test_custom_scalars_layout_and_its_tags(loaded: dict[str, EventAccumulator]) -> None:
    from tensorboard.plugins.custom_scalar import layout_pb2

    accumulator = loaded["resnet/lr_0.01"]
    [config] = accumulator.Tensors("custom_scalars__config__")
    layout = layout_pb2.Layout.FromString(config.tensor_proto.string_val[0])
    assert [category.title for category in layout.category] == ["Loss", "Accuracy"]
    margin = layout.category[0].chart[1].margin.series[0]
    scalar_tags = set(accumulator.Tags()["scalars"])
    assert {margin.value, margin.lower, margin.upper} <= scalar_tags


def test_embedding_with_labels(demo: tuple[Path, list[str], list[tuple[int, int]]]) -> None:
    logdir, _, _ = demo
    run_dir = logdir / "resnet/lr_0.01"
    config = (run_dir / "projector_config.pbtxt").read_text()
    assert "tensors.tsv" in config and "metadata.tsv" in config
    [metadata] = run_dir.rglob("metadata.tsv")
    [tensors] = run_dir.rglob("tensors.tsv")
    labels = metadata.read_text().splitlines()
    assert len(labels) == len(tensors.read_text().splitlines()) == 300
    assert set(labels) <= set(fixtures.CLASSES)


def test_run_metadata_is_recorded(loaded: dict[str, EventAccumulator]) -> None:
    for accumulator in loaded.values():
        assert "_ridgeline/run_metadata" in accumulator.Tags()["tensors"]


def test_wall_times_advance_like_a_real_run_that_just_ended(
    demo: tuple[Path, list[str], list[tuple[int, int]]], loaded: dict[str, EventAccumulator]
) -> None:
    logdir, _, _ = demo
    for run, accumulator in loaded.items():
        walls = np.array([event.wall_time for event in accumulator.Scalars("train/loss")])
        assert np.all(np.diff(walls) > 0), run
        assert 0.01 < np.median(np.diff(walls)) < 0.5, run  # about 0.1 s a step, scaled by the batch size
        # Ended shortly before it was written (when the file was last modified), however long ago that was: the
        # module's fixture may be written minutes before this test runs on a busy machine.
        written = max(path.stat().st_mtime for path in (logdir / run).iterdir() if "tfevents" in path.name)
        assert written - 600 < walls[-1] < written, run


def test_start_time_pins_the_wall_times(tmp_path: Path) -> None:
    fixtures.write_demo(tmp_path, steps=10, start_time=START_TIME)
    for run in RUNS:
        walls = [event.wall_time for event in load(tmp_path / run).Scalars("train/loss")]
        assert START_TIME <= walls[0] < walls[-1] < START_TIME + 600, run


def test_same_seed_same_values_other_seed_other_values(tmp_path: Path) -> None:
    def snapshot(logdir: Path, seed: int) -> dict[str, list[object]]:
        fixtures.write_demo(logdir, steps=10, seed=seed, start_time=START_TIME)
        found: dict[str, list[object]] = {}
        for run in RUNS:
            accumulator = load(logdir / run)
            tags = accumulator.Tags()
            for tag in tags["scalars"]:
                found[f"{run} {tag}"] = [(e.step, e.wall_time, e.value) for e in accumulator.Scalars(tag)]
            for tag in tags["histograms"]:
                found[f"{run} {tag}"] = [(e.step, list(e.histogram_value.bucket)) for e in accumulator.Histograms(tag)]
            for tag in tags["images"]:
                found[f"{run} {tag}"] = [e.encoded_image_string for e in accumulator.Images(tag)]
            for tag in ("pr/cat", "notes/text_summary"):
                found[f"{run} {tag}"] = [e.tensor_proto.SerializeToString() for e in accumulator.Tensors(tag)]
        return found

    first = snapshot(tmp_path / "a", seed=7)
    assert first == snapshot(tmp_path / "b", seed=7)
    other = snapshot(tmp_path / "c", seed=8)
    assert first.keys() == other.keys()
    assert first["resnet/lr_0.1 train/loss"] != other["resnet/lr_0.1 train/loss"]


def test_refuses_to_write_over_existing_runs(tmp_path: Path) -> None:
    fixtures.write_demo(tmp_path, steps=10)
    with pytest.raises(FileExistsError, match="already holds event files"):
        fixtures.write_demo(tmp_path, steps=10)


@pytest.mark.parametrize("steps", [9, 0, -5, 2.5, True])
def test_rejects_too_few_steps(tmp_path: Path, steps: object) -> None:
    with pytest.raises(ValueError, match="steps must be an integer of at least 10"):
        fixtures.write_demo(tmp_path, steps=steps)  # type: ignore[arg-type]
