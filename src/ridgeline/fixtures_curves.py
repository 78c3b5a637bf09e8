"""Training curves for the phase and forecast tests and benchmarks: generated loss curves of known shape, and
real ones from a tiny torch MLP written with torch's own SummaryWriter.

Generated curves mix the shapes training produces: exponential and power-law decay, a warm-up plateau, a step
learning-rate drop, noise proportional to the level, occasional spikes. ``write_mlp_runs`` trains real models
(torch imported lazily) so the forecasts are also judged on curves no formula wrote.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def generated_curve(rng: np.random.Generator, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """One random loss-like curve: (steps, values), steps 0, s, 2s, ... for a random stride s."""
    stride = int(rng.choice([1, 5, 10, 50]))
    steps = np.arange(points, dtype=np.int64) * stride
    t = np.arange(points) / points
    floor = rng.uniform(0.0, 1.0)
    height = rng.uniform(0.5, 3.0)
    shape = rng.integers(3)
    if shape == 0:
        trend = floor + height * np.exp(-rng.uniform(1.0, 12.0) * t)
    elif shape == 1:
        offset = rng.uniform(0.005, 0.1)
        trend = floor + height * ((t + offset) / offset) ** -rng.uniform(0.2, 1.2)
    else:  # a step learning-rate drop: a second, faster decay to a lower floor
        drop = rng.uniform(0.3, 0.7)
        first = floor + height * np.exp(-rng.uniform(2.0, 10.0) * t)
        trend = np.where(t < drop, first, first - 0.3 * floor * (1 - np.exp(-20 * (t - drop))))
    if rng.random() < 0.3:  # warm-up plateau
        warm = rng.uniform(0.02, 0.15)
        shifted = np.interp(np.clip((t - warm) / (1 - warm), 0, 1), t, trend)
        trend = np.where(t < warm, trend[0], shifted)
    noise = rng.uniform(0.0, 0.05) * trend * rng.standard_normal(points)
    values = trend + noise
    if rng.random() < 0.2:
        spikes = rng.random(points) < 0.01
        values = np.where(spikes, values * rng.uniform(1.5, 3.0), values)
    return steps, values


def generated_curves(count: int, seed: int = 0, points: int = 400) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [generated_curve(rng, points) for _ in range(count)]


def write_mlp_runs(directory: Path, seeds: range = range(4), steps: int = 300) -> list[str]:
    """Train a tiny MLP on a noisy two-moons-like task per seed (learning rate and width vary with the seed) and
    log ``train/loss``, ``val/loss`` and ``train/acc`` with ``torch.utils.tensorboard``. Returns the run names."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    names = []
    for seed in seeds:
        torch.manual_seed(seed)
        gen = torch.Generator().manual_seed(seed)
        x = torch.randn(2048, 8, generator=gen)
        y = ((x[:, 0] * x[:, 1] + torch.sin(2 * x[:, 2]) + 0.3 * torch.randn(2048, generator=gen)) > 0).long()
        xv, yv = x[1536:], y[1536:]
        x, y = x[:1536], y[:1536]
        width = (16, 32, 64)[seed % 3]
        model = torch.nn.Sequential(
            torch.nn.Linear(8, width),
            torch.nn.ReLU(),
            torch.nn.Linear(width, width),
            torch.nn.ReLU(),
            torch.nn.Linear(width, 2),
        )
        lr = (0.01, 0.003, 0.03, 0.001)[seed % 4]
        optimiser = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        name = f"mlp_seed{seed}_lr{lr}"
        writer = SummaryWriter(str(directory / name))
        for step in range(steps):
            batch = torch.randint(0, len(x), (64,), generator=gen)
            logits = model(x[batch])
            loss = torch.nn.functional.cross_entropy(logits, y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            writer.add_scalar("train/loss", loss.item(), step)
            writer.add_scalar("train/acc", (logits.argmax(1) == y[batch]).float().mean().item(), step)
            if step % 5 == 0:
                with torch.no_grad():
                    writer.add_scalar("val/loss", torch.nn.functional.cross_entropy(model(xv), yv).item(), step)
        writer.close()
        names.append(name)
    return names


__all__ = ["generated_curve", "generated_curves", "write_mlp_runs"]
