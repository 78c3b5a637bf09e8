"""Forecast model comparison: which model predicts the held-out tail of a training curve best.

Each curve's history is its first 1/1.2 of steps; the forecast covers the next 20 % of the history's span (the
horizon ``/api/forecast`` uses), scored by the mean absolute scaled error (MASE: the forecast's mean absolute error
over the tail divided by the in-sample mean absolute error of the one-step naive forecast on the history; below 1
beats that naive error).

Models (``ridgeline.analysis.forecast``): ``naive`` (the last raw value: the baseline), ``last_value`` (the
smoothed level), ``exponential`` and ``power_law`` fits (always fitted to the last 70 % of the history after
warm-up), ``auto`` (what ridgeline ships: per curve, the candidate with the least error on the curve's own
held-out tail) and ``lstm``: a small sequence model (one LSTM layer, 48 units, then a linear layer predicting 16
points of the normalised future from 64 points of the normalised history) trained with torch on generated
curves, as the forecasting literature suggests; it needs torch.

Test curves: generated loss curves (``ridgeline.fixtures.curves``, a seed neither the fits nor the LSTM saw) and
real ones: tiny MLPs trained with torch on the CPU, logged with torch's SummaryWriter and read back with
``ridgeline.open`` (train/loss, train/acc, val/loss per run).

    python bench/forecast.py [--curves 300] [--mlp-runs 8] [--train-curves 4000] [--epochs 20] [--quick]
                             [--no-lstm] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import ridgeline
from ridgeline.analysis.forecast import forecast
from ridgeline.fixtures.curves import generated_curves, write_mlp_runs

HISTORY_POINTS, FUTURE_POINTS = 64, 16
Curve = tuple[np.ndarray, np.ndarray]
Forecaster = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]  # (history steps, values, tail steps)


def split(steps: np.ndarray, values: np.ndarray, fraction: float = 1 / 1.2) -> tuple[np.ndarray, ...]:
    cut = steps[0] + (steps[-1] - steps[0]) * fraction
    history = steps <= cut
    return steps[history], values[history], steps[~history], values[~history]


def mase(history: np.ndarray, actual: np.ndarray, predicted: np.ndarray) -> float:
    scale = float(np.mean(np.abs(np.diff(history))))
    return float(np.mean(np.abs(actual - predicted)) / scale) if scale > 0 else float("nan")


def ours(model: str) -> Forecaster:
    def predict(hs: np.ndarray, hv: np.ndarray, fs: np.ndarray) -> np.ndarray:
        result = forecast(hs, hv, model=model, until=int(fs[-1]))  # type: ignore[arg-type]
        return np.interp(fs, result.step, result.value)

    return predict


def naive(hs: np.ndarray, hv: np.ndarray, fs: np.ndarray) -> np.ndarray:
    return np.full(len(fs), hv[-1])


# --- the LSTM -----------------------------------------------------------------------------------------------------
def encode(hs: np.ndarray, hv: np.ndarray) -> tuple[np.ndarray, float, float]:
    """64 evenly spaced points of the history, as (value - last) / scale, with the last and the scale."""
    grid = np.linspace(hs[0], hs[-1], HISTORY_POINTS)
    resampled = np.interp(grid, hs, hv)
    scale = float(np.std(hv)) or 1.0
    return (resampled - hv[-1]) / scale, float(hv[-1]), scale


def future_grid(hs: np.ndarray, end: float) -> np.ndarray:
    return np.linspace(hs[-1], end, FUTURE_POINTS + 1)[1:]


def training_set(curves: list[Curve], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Histories cut at random points (40-85 % of each curve) and the next 20 % of each history's span."""
    xs, ys = [], []
    for steps, values in curves:
        for _ in range(3):
            fraction = rng.uniform(0.4, 1 / 1.2)
            hs, hv, _, _ = split(steps, values, fraction)
            if len(hs) < 10:
                continue
            end = hs[-1] + 0.2 * (hs[-1] - hs[0])
            x, last, scale = encode(hs, hv)
            ys.append((np.interp(future_grid(hs, end), steps, values) - last) / scale)
            xs.append(x)
    return np.array(xs, np.float32), np.array(ys, np.float32)


def train_lstm(curves: list[Curve], epochs: int, seed: int = 0) -> Forecaster:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # the machine is shared; one thread is the fastest under load

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = torch.nn.LSTM(1, 48, batch_first=True)
            self.head = torch.nn.Linear(48, FUTURE_POINTS)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            _, (hidden, _) = self.lstm(x.unsqueeze(-1))
            return self.head(hidden[-1])

    xs, ys = training_set(curves, np.random.default_rng(seed))
    x, y = torch.from_numpy(xs), torch.from_numpy(ys)
    net = Net()
    optimiser = torch.optim.Adam(net.parameters(), lr=3e-3)
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        total = 0.0
        for start in range(0, len(x), 128):
            batch = order[start : start + 128]
            loss = torch.nn.functional.l1_loss(net(x[batch]), y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(batch)
        print(f"  lstm epoch {epoch + 1}/{epochs}: training L1 {total / len(x):.4f}", file=sys.stderr)
    net.eval()

    def predict(hs: np.ndarray, hv: np.ndarray, fs: np.ndarray) -> np.ndarray:
        encoded, last, scale = encode(hs, hv)
        with torch.no_grad():
            out = net(torch.from_numpy(encoded.astype(np.float32))[None])[0].numpy()
        grid = future_grid(hs, float(fs[-1]))
        return np.interp(fs, np.concatenate([[hs[-1]], grid]), np.concatenate([[hv[-1]], out * scale + last]))

    return predict


# --- evaluation ---------------------------------------------------------------------------------------------------
def real_curves(runs: int) -> list[Curve]:
    with tempfile.TemporaryDirectory() as folder:
        write_mlp_runs(Path(folder), range(runs), steps=400)
        logdir = ridgeline.open(folder, cache=False)
        return [
            (np.asarray(s.step), np.asarray(s.value, np.float64))
            for run in logdir.runs()
            for tag in logdir.tags(run)["scalars"]
            for s in [logdir.scalars(run, tag)]
        ]


def evaluate(models: dict[str, Forecaster], curves: list[Curve]) -> dict[str, dict[str, float]]:
    scores: dict[str, list[float]] = {name: [] for name in models}
    seconds: dict[str, float] = dict.fromkeys(models, 0.0)
    for steps, values in curves:
        hs, hv, fs, fv = split(steps, values)
        if len(hs) < 10 or len(fs) < 2 or not np.mean(np.abs(np.diff(hv))) > 0:
            continue
        for name, predict in models.items():
            started = time.perf_counter()
            scores[name].append(mase(hv, fv, predict(hs, hv, fs)))
            seconds[name] += time.perf_counter() - started
    base = np.array(scores["naive"])
    return {
        name: {
            "mean_mase": float(np.mean(s)),
            "median_mase": float(np.median(s)),
            "beats_naive": float(np.mean(np.array(s) < base)),
            "ms_per_forecast": 1000 * seconds[name] / max(len(s), 1),
            "curves": len(s),
        }
        for name, s in scores.items()
    }


def table(title: str, results: dict[str, dict[str, float]]) -> str:
    lines = [title, f"  {'model':<12} {'mean MASE':>10} {'median':>8} {'beats naive':>12} {'ms/forecast':>12}"]
    for name, r in results.items():
        lines.append(
            f"  {name:<12} {r['mean_mase']:>10.3f} {r['median_mase']:>8.3f} {r['beats_naive']:>11.0%} "
            f"{r['ms_per_forecast']:>12.2f}"
        )
    return "\n".join(lines)


def run(curves: int, mlp_runs: int, train_curves: int, epochs: int, lstm: bool) -> dict[str, object]:
    models: dict[str, Forecaster] = {"naive": naive}
    for model in ("last_value", "exponential", "power_law", "auto"):
        models[model] = ours(model)
    if lstm:
        try:
            started = time.perf_counter()
            models["lstm"] = train_lstm(generated_curves(train_curves, seed=7), epochs)
            print(f"  lstm trained in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        except ImportError:
            print("  torch is not installed: no LSTM", file=sys.stderr)
    generated = evaluate(models, generated_curves(curves, seed=99))
    real = evaluate(models, real_curves(mlp_runs))
    return {"generated": generated, "real": real, "curves": curves, "mlp_runs": mlp_runs, "epochs": epochs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--curves", type=int, default=300, help="generated test curves")
    parser.add_argument("--mlp-runs", type=int, default=8, help="real torch MLP runs (3 curves each)")
    parser.add_argument("--train-curves", type=int, default=4000, help="generated curves the LSTM learns from")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--no-lstm", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run: few curves, 2 epochs")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.quick:
        args.curves, args.mlp_runs, args.train_curves, args.epochs = 20, 1, 200, 2
    results = run(args.curves, args.mlp_runs, args.train_curves, args.epochs, not args.no_lstm)
    print(table(f"generated curves ({args.curves}), mean absolute scaled error:", results["generated"]))  # type: ignore[arg-type]
    print(table(f"real torch MLP curves ({args.mlp_runs} runs x 3 tags):", results["real"]))  # type: ignore[arg-type]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
