"""Real training runs for the diagnosis evaluation (issue 17): small torch models trained on the CPU on
scikit-learn's bundled digits (1,797 8x8 images, no download), broken on purpose, logged with torch's own
``SummaryWriter`` as people log them, then diagnosed from the event files.

Runs (:data:`RUNS`): a healthy tiny CNN (Adam at 2e-3, SGD with momentum at 0.05), the same with a learning rate
far too high (SGD with momentum at 3.0 and at 0.6; Adam at 0.05, which still learns), too low (SGD with
momentum at 2e-3), ReLU death by a
large negative bias in the first layer (its activations and every earlier gradient exactly zero from the first
step), a 10-layer sigmoid MLP (vanishing gradients), and an MLP without weight decay on 120 examples
(overfitting). Each run logs ``train/loss`` and ``lr`` every step, the gradient norm of every weight
(``grad_norm/<name>``) and the total, ``val/loss`` and ``val/acc`` every epoch, and weight and activation
histograms every epoch.

    python bench/diagnosis_torch.py [--quick] [--json PATH]      (also: bench/diagnosis_eval.py --torch)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class TorchRun:
    labels: frozenset[str]
    allowed: frozenset[str]  # also a fair reading (a network dead from the start does not learn either)
    model: str  # "cnn" or "mlp"
    optimiser: str
    lr: float
    epochs: int
    momentum: float = 0.0
    train_size: int = 1400
    dead_bias: float | None = None  # first layer's bias (a large negative value kills its ReLUs)
    depth: int = 2
    activation: str = "relu"


# What a far too high learning rate leaves behind is also a fair reading: units it killed, a loss that is stuck.
KILLED = frozenset({"dead_units", "underfitting"})
RUNS: dict[str, TorchRun] = {
    "digits_cnn_healthy": TorchRun(frozenset(), frozenset(), "cnn", "adam", 2e-3, 12),
    "digits_cnn_sgd_healthy": TorchRun(frozenset(), frozenset(), "cnn", "sgd", 0.05, 12, momentum=0.9),
    "digits_cnn_sgd_lr_3": TorchRun(frozenset({"lr_too_high"}), KILLED, "cnn", "sgd", 3.0, 6, momentum=0.9),
    "digits_cnn_sgd_lr_0.6": TorchRun(frozenset({"lr_too_high"}), KILLED, "cnn", "sgd", 0.6, 12, momentum=0.9),
    # 25x Adam's usual rate: it still reaches 93% validation accuracy (healthy: 96%), so nothing is required of
    # the diagnosis here, and lr_too_high is allowed.
    "digits_cnn_adam_lr_0.05": TorchRun(frozenset(), frozenset({"lr_too_high"}), "cnn", "adam", 0.05, 12),
    # 25x lower than the healthy SGD run (plain SGD at 2e-3 learns nothing visible in 12 epochs: that reads as
    # underfitting, also allowed).
    "digits_cnn_lr_too_low": TorchRun(
        frozenset({"lr_too_low"}), frozenset({"underfitting"}), "cnn", "sgd", 2e-3, 12, momentum=0.9
    ),
    "digits_cnn_dead_relu": TorchRun(
        frozenset({"dead_units"}), frozenset({"underfitting", "plateau"}), "cnn", "adam", 2e-3, 12, dead_bias=-20.0
    ),
    "digits_mlp_sigmoid_stack": TorchRun(
        frozenset({"vanishing_gradients"}),
        frozenset({"underfitting"}),
        "mlp",
        "sgd",
        0.05,
        12,
        depth=10,
        activation="sigmoid",
    ),
    "digits_mlp_overfit": TorchRun(
        frozenset({"overfitting"}), frozenset(), "mlp", "adam", 1e-3, 300, train_size=120, depth=3
    ),
}


def _model(spec: TorchRun, torch: Any) -> Any:
    nn = torch.nn
    act: Callable[[], Any] = nn.Sigmoid if spec.activation == "sigmoid" else nn.ReLU
    if spec.model == "cnn":
        model = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            act(),
            nn.Conv2d(8, 16, 3, padding=1),
            act(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, 32),
            act(),
            nn.Linear(32, 10),
        )
    else:
        width = 64 if spec.activation == "sigmoid" else 256
        layers: list[Any] = [nn.Flatten(), nn.Linear(64, width), act()]
        for _ in range(spec.depth - 1):
            layers += [nn.Linear(width, width), act()]
        model = nn.Sequential(*layers, nn.Linear(width, 10))
    if spec.dead_bias is not None:
        with torch.no_grad():
            first = next(m for m in model if isinstance(m, nn.Conv2d | nn.Linear))
            first.bias.fill_(spec.dead_bias)
    return model


def train(root: Path, name: str, spec: TorchRun, seed: int = 0) -> None:
    """Train one run and log it under ``root / name`` with torch's SummaryWriter."""
    import torch
    from sklearn.datasets import load_digits
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    digits = load_digits()
    x_all = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
    y_all = torch.tensor(digits.target, dtype=torch.int64)
    order = torch.randperm(len(y_all), generator=generator)
    x_all, y_all = x_all[order], y_all[order]
    x_val, y_val = x_all[1400:], y_all[1400:]
    x_train, y_train = x_all[: spec.train_size], y_all[: spec.train_size]
    model = _model(spec, torch)
    optimiser = (
        torch.optim.Adam(model.parameters(), lr=spec.lr)
        if spec.optimiser == "adam"
        else torch.optim.SGD(model.parameters(), lr=spec.lr, momentum=spec.momentum)
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    activations: dict[str, Any] = {}
    for i, module in enumerate(model):
        if isinstance(module, torch.nn.ReLU | torch.nn.Sigmoid):  # the activations of the last forward pass
            module.register_forward_hook(lambda _m, _i, out, k=f"activations/layer{i}": activations.update({k: out}))
    writer = SummaryWriter(str(root / name))
    batch = 64 if spec.train_size > 200 else spec.train_size
    step = 0
    try:
        for epoch in range(spec.epochs):
            model.train()
            perm = torch.randperm(len(y_train), generator=generator)
            for start in range(0, len(y_train), batch):
                idx = perm[start : start + batch]
                optimiser.zero_grad()
                loss = loss_fn(model(x_train[idx]), y_train[idx])
                loss.backward()
                norms = {n: float(p.grad.norm()) for n, p in model.named_parameters() if p.grad is not None}
                optimiser.step()
                writer.add_scalar("train/loss", float(loss.detach()), step)
                writer.add_scalar("lr", optimiser.param_groups[0]["lr"], step)
                writer.add_scalar("grad_norm/total", math.sqrt(sum(v * v for v in norms.values())), step)
                for n, value in norms.items():
                    if n.endswith("weight"):
                        writer.add_scalar(f"grad_norm/{n}", value, step)
                step += 1
            model.eval()
            with torch.no_grad():
                logits = model(x_val)
                writer.add_scalar("val/loss", float(loss_fn(logits, y_val)), step)
                writer.add_scalar("val/acc", float((logits.argmax(1) == y_val).float().mean()), step)
                if epoch % max(1, spec.epochs // 30) == 0 or epoch == spec.epochs - 1:
                    for n, p in model.named_parameters():
                        if bool(torch.isfinite(p).all()):  # torch's writer refuses NaN weights
                            writer.add_histogram(n, p.detach(), step)
                    for key, out in activations.items():
                        if bool(torch.isfinite(out).all()):
                            writer.add_histogram(key, out.detach(), step)
    finally:
        writer.close()


def run_torch(quick: bool = False, keep: Path | None = None) -> dict[str, Any]:
    """Train every run (or, ``quick``, the first few), diagnose the log directory, compare with the labels
    (``keep``: write the runs there, and leave them)."""
    import torch

    import ridgeline
    from ridgeline.services.diagnosis import diagnose_logdir

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    chosen = dict(list(RUNS.items())[:4]) if quick else RUNS
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = keep or Path(tmp)
            started = time.perf_counter()
            for name, spec in chosen.items():
                train(root, name, spec)
            trained = time.perf_counter() - started
            findings = diagnose_logdir(ridgeline.open(root, cache=False))
    finally:
        torch.set_num_threads(threads)
    for name, spec in chosen.items():
        found = [f for f in findings if f.run == name]
        kinds = {f.kind for f in found}
        results[name] = {
            "expected": sorted(spec.labels),
            "found": sorted(kinds),
            "right": spec.labels <= kinds and kinds <= spec.labels | spec.allowed,
            "findings": [{"kind": f.kind, "confidence": f.confidence, "message": f.message} for f in found],
        }
    return {"runs": results, "all_right": all(r["right"] for r in results.values()), "train_seconds": trained}


def print_torch(results: dict[str, Any]) -> None:
    print(f"real torch runs (sklearn digits, CPU; {results['train_seconds']:.0f} s of training):")
    for name, r in results["runs"].items():
        mark = "ok  " if r["right"] else "WRONG"
        print(f"  {mark} {name:26s} expected {r['expected'] or ['nothing']}, found {r['found'] or ['nothing']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="the first four runs only")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--logdir", metavar="DIR", type=Path, help="write the runs here and keep them")
    args = parser.parse_args(argv)
    results = run_torch(args.quick, args.logdir)
    print_torch(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0 if results["all_right"] else 1


if __name__ == "__main__":
    sys.exit(main())
