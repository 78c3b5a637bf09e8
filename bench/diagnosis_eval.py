"""Diagnosis evaluation (issue 17): precision, recall, F1 and calibration per kind on labelled runs the rules were
not developed on, and the time it takes.

The cases (``bench/diagnosis_cases.py``) come in two halves that share no seed, no noise family and no naming
convention; the rules are developed on ``--split dev`` and the figures reported are those of ``--split heldout``
(the default). A finding counts as right when its kind is one of the case's labels (or a kind also allowed for
it); per kind: precision, recall, F1; overall: the F1 over all labels; healthy runs: the share with no finding;
calibration: how often findings are right per confidence band (findings at >= 0.8 must be right >= 80%).

``--event-files N`` also writes the first N cases of every generator through tensorboardX (an independent
writer, as a new user's runs would be), opens them with ``ridgeline.open`` and diagnoses the log directory
(Keras-style cases as ``<case>/train`` + ``<case>/validation`` runs): the same figures through the real path.
``--torch`` adds the real torch runs of ``bench/diagnosis_torch.py`` (sklearn's digits, a tiny CNN, broken on
purpose). Time: the diagnosis of every case, in-memory series in, findings out (the per-run figure x 1,000 is
the "1,000 runs" figure).

    python bench/diagnosis_eval.py [--split heldout|dev] [--seeds N] [--quick] [--event-files N] [--torch]
                                   [--json PATH] [--mistakes]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from diagnosis_cases import SPLITS, Case, cases  # bench/diagnosis_cases.py, beside this script

from ridgeline.analysis.diagnosis import KINDS, Finding, diagnose

BANDS = ((0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01))


def score(results: Iterable[tuple[Case, list[Finding]]]) -> dict[str, Any]:
    """Per kind tp/fp/fn, precision, recall, F1; overall F1; healthy share without findings; calibration."""
    counts = {kind: {"tp": 0, "fp": 0, "fn": 0} for kind in KINDS}
    findings_in = [0] * len(BANDS)
    right_in = [0] * len(BANDS)
    healthy = clean = 0
    mistakes: list[dict[str, Any]] = []
    for case, findings in results:
        found = {f.kind: f for f in findings}
        for kind in KINDS:
            if kind in case.labels and kind in found:
                counts[kind]["tp"] += 1
            elif kind in case.labels:
                counts[kind]["fn"] += 1
                mistakes.append({"case": case.name, "missed": kind, "found": sorted(found), **case.meta})
            elif kind in found and kind not in case.allowed:
                counts[kind]["fp"] += 1
                mistakes.append({"case": case.name, "false": kind, "message": found[kind].message, **case.meta})
        for f in findings:
            for b, (lo, hi) in enumerate(BANDS):
                if lo <= f.confidence < hi:
                    findings_in[b] += 1
                    right_in[b] += f.kind in case.labels or f.kind in case.allowed
        if not case.labels:
            healthy += 1
            clean += not findings
    table: dict[str, Any] = {}
    for kind, c in counts.items():
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        table[kind] = {**c, "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}
    tp, fp, fn = (sum(c[k] for c in counts.values()) for k in ("tp", "fp", "fn"))
    bands = [
        {
            "band": f"{lo:.1f}-{min(hi, 1.0):.1f}",
            "findings": findings_in[b],
            "right": right_in[b],
            "precision": round(right_in[b] / findings_in[b], 3) if findings_in[b] else None,
        }
        for b, (lo, hi) in enumerate(BANDS)
    ]
    high = [b for b, (lo, _) in enumerate(BANDS) if lo >= 0.8]
    high_right, high_all = sum(right_in[b] for b in high), sum(findings_in[b] for b in high)
    return {
        "kinds": table,
        "overall_f1": round(2 * tp / (2 * tp + fp + fn), 3) if tp + fp + fn else 1.0,
        "healthy_runs": healthy,
        "healthy_without_finding": round(clean / healthy, 3) if healthy else 1.0,
        "calibration": bands,
        "precision_at_0.8": round(high_right / high_all, 3) if high_all else None,
        "mistakes": mistakes,
    }


def evaluate(split: str, seeds: int, quick: bool) -> tuple[dict[str, Any], list[Case]]:
    chosen = list(cases(SPLITS[split], seeds, quick))
    started, cpu = time.perf_counter(), time.process_time()
    results = [(case, diagnose(case.name, case.scalars, case.histograms)) for case in chosen]
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    points = sum(len(s.step) for case in chosen for s in case.scalars.values())
    out = score(results)
    out.update(
        {
            "split": split,
            "cases": len(chosen),
            "scalar_points": points,
            "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu, 3),
            "cpu_seconds_per_1000_runs": round(cpu / len(chosen) * 1000, 2),
            "ms_per_run": round(seconds / len(chosen) * 1000, 3),
            "seconds_per_1000_runs": round(seconds / len(chosen) * 1000, 2),
        }
    )
    return out, chosen


def evaluate_event_files(chosen: list[Case], per_generator: int) -> dict[str, Any]:
    """The first ``per_generator`` cases of every generator written by tensorboardX, diagnosed from the files."""
    from tensorboardX import SummaryWriter

    import ridgeline
    from ridgeline.services.diagnosis import diagnose_logdir

    taken: dict[str, int] = defaultdict(int)
    subset = []
    for case in chosen:
        if taken[case.kind] < per_generator:
            taken[case.kind] += 1
            subset.append(case)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        quiet = logging.getLogger("tensorboardX.x2num")  # it warns once for every NaN it writes
        level, quiet.level = quiet.level, logging.ERROR
        try:
            for case in subset:
                write_case(root, case, SummaryWriter)
        finally:
            quiet.setLevel(level)
        started = time.perf_counter()
        findings = diagnose_logdir(ridgeline.open(root, cache=False))
        seconds = time.perf_counter() - started
    by_case: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_case[f.run.split("/")[0]].append(f)
    out = score((case, by_case[case.name]) for case in subset)
    out.update({"cases": len(subset), "seconds_with_reading": round(seconds, 3)})
    return out


def write_case(root: Path, case: Case, writer_class: Any) -> None:
    """One case as event files: run ``<case>``, or ``<case>/train`` and ``<case>/validation`` for names that
    start with those run parts (the Keras convention). Histograms are written from their summaries' mean and
    spread (around one fixed shape, so a histogram that does not change is written the same every step)."""
    import numpy as np

    writers: dict[str, Any] = {}

    def writer(name: str) -> tuple[Any, str]:
        run, tag = case.name, name
        for part in ("train", "validation"):
            if case.meta["naming"] == "keras" and name.startswith(part + "/"):
                run, tag = f"{case.name}/{part}", name[len(part) + 1 :]
        if run not in writers:
            writers[run] = writer_class(str(root / run), flush_secs=3600, max_queue=10_000)
        return writers[run], tag

    try:
        for name, series in case.scalars.items():
            w, tag = writer(name)
            for step, value in zip(series.step.tolist(), series.value.tolist(), strict=True):
                w.add_scalar(tag, value, step)
        for name, h in case.histograms.items():
            w, tag = writer(name)
            base = np.random.default_rng(0).standard_normal(256)  # the same shape every step: a frozen layer stays so
            for i, step in enumerate(h.step.tolist()):
                values = h.mean[i] + h.std[i] * base
                if np.isfinite(values).all():
                    w.add_histogram(tag, values, step)
    finally:
        for w in writers.values():
            w.close()


def print_table(results: dict[str, Any], title: str) -> None:
    print(f"{title}: {results['cases']} cases")
    print(f"  {'kind':22s} {'tp':>5s} {'fp':>4s} {'fn':>4s} {'precision':>10s} {'recall':>7s} {'F1':>6s}")
    for kind in KINDS:
        q = results["kinds"][kind]
        print(
            f"  {kind:22s} {q['tp']:5d} {q['fp']:4d} {q['fn']:4d} {q['precision']:10.3f} {q['recall']:7.3f} "
            f"{q['f1']:6.3f}"
        )
    print(
        f"  overall F1 {results['overall_f1']:.3f}; healthy runs without a finding "
        f"{results['healthy_without_finding']:.3f} of {results['healthy_runs']}"
    )
    bands = ", ".join(f"{b['band']}: {b['right']}/{b['findings']}" for b in results["calibration"] if b["findings"])
    print(f"  calibration (right/findings per confidence band): {bands}; at >= 0.8: {results['precision_at_0.8']}")
    if "ms_per_run" in results:
        print(
            f"  time: {results['seconds']:.2f} s for {results['cases']} runs ({results['ms_per_run']:.2f} ms/run, "
            f"{results['seconds_per_1000_runs']:.2f} s per 1,000 runs; CPU time "
            f"{results['cpu_seconds_per_1000_runs']:.2f} s per 1,000 runs)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--split", choices=sorted(SPLITS), default="heldout")
    parser.add_argument("--seeds", type=int, default=30, help="seeds (each: every generator and variant)")
    parser.add_argument("--quick", action="store_true", help="runs of at most 20,000 steps, 3 seeds")
    parser.add_argument("--event-files", type=int, default=0, metavar="N", help="also via tensorboardX files")
    parser.add_argument("--torch", action="store_true", help="also the real torch runs (sklearn's digits)")
    parser.add_argument("--mistakes", action="store_true", help="print every mistake")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    seeds = 3 if args.quick else args.seeds
    results, chosen = evaluate(args.split, seeds, args.quick)
    print_table(results, f"diagnosis, {args.split} half, {seeds} seeds")
    if args.mistakes:
        for m in results["mistakes"]:
            print("   ", m)
    out: dict[str, Any] = {"synthetic": results}
    if args.event_files:
        files = evaluate_event_files(chosen, args.event_files)
        print_table(files, "through tensorboardX event files")
        out["event_files"] = files
    if args.torch:
        from diagnosis_torch import print_torch, run_torch  # bench/diagnosis_torch.py

        out["torch"] = run_torch(quick=args.quick)
        print_torch(out["torch"])
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
