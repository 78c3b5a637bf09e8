"""Search benchmark: the documented patterns over an index of a million entries.

The index is built in memory, synthetically, through the same ``Index.add_run``/``Index.add`` calls ingest uses
(writing 10,000 runs of event files would time the writer, not search): RUNS runs (default 10,000), each with a
run name, TAGS tags drawn from a vocabulary of 400 names, one hyperparameter line (lr, batch_size, dropout,
optimizer, seed), start and end dates (2024-2025), three metadata lines (host, command, git commit), TEXT lines of
logged text (1% of runs log "nan detected at step N") and one annotation: about 100 entries per run.

Figures per pattern (medians and 99th percentiles over --repeats searches, limit=200):

- ridgeline, Python API: ``Searcher.search(pattern)`` (parse, RE2 over each field's joined buffer of distinct
  texts, map to entries, order and cut the hits);
- ridgeline, HTTP: ``GET /api/search?q=`` on a real uvicorn server on 127.0.0.1 serving that index;
- Python ``re`` over the same entries, one ``re.search`` per entry of the fields in scope (what a plain loop
  does; the adversarial pattern is left out: it backtracks exponentially);
- TensorBoard's run filter approach: ``re.search`` per run name, or per tag of every run (its run selector and
  tag filter), for the ``run:`` and ``tag:`` patterns.

For the trigram comparison (Russ Cox's Code Search), the time to find the matching distinct texts alone: the
index's scan (one joined buffer per field, RE2 jumping to a required literal when the pattern has one) against a
trigram index over the same texts (candidates from the literal's trigrams' posting lists, then RE2 per
candidate).

Refresh: a real log directory of --refresh-runs small runs (ridgeline's writer) is indexed, one run gains a point
and a text line, and the refresh that follows is timed (what a live server does after an ingest pass).

Also: index build time, entries, memory (tracemalloc while building, the index's own arrays and buffers, and the
process's RSS growth). The timings run with the baselines' entry list frozen out of the garbage collector.

    python bench/search.py [--runs 10000] [--tags 80] [--text 10] [--repeats 50] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import resource
import socket
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import re2
import uvicorn

import ridgeline
from ridgeline.search import Searcher
from ridgeline.search.entries import date_texts, hparams_line
from ridgeline.search.fields import FieldIndex
from ridgeline.search.index import Index
from ridgeline.search.patterns import (
    FIELDS,
    compile_literal,
    compile_pattern,
    exact_literal,
    parse,
    required_literal,
    terms,
)
from ridgeline.server.app import create_app

PATTERNS = [
    "hparam:(lr=0.001|batch_size=64).*(dropout=0.2)",
    "(lr=0.001|batch_size=64).*(dropout=0.2)",
    "date:202411[0-9]{2}[0-9]{4}",
    "tag:^train_",
    r"hparam:lr=0\.00[1-5]",
    "text:nan detected",
    "run:resnet",
    "date:202411",
    r"run:resnet AND hparam:lr=0\.001 AND NOT text:nan",
    "(?i)VAL/ACC",
    "(a+)+$",
]
ADVERSARIAL = {"(a+)+$"}
ARCHS = ["resnet18", "resnet50", "vgg16", "vit-b16", "mlp", "lstm", "efficientnet-b0", "convnext-t"]
DATASETS = ["cifar10", "cifar100", "imagenet", "mnist", "wikitext"]
LRS = [0.1, 0.03, 0.01, 0.003, 0.001, 0.0003, 0.0001]
START = 1_704_067_200.0  # 2024-01-01
SPAN = 2 * 365 * 86_400.0


def vocabulary() -> list[str]:
    names = ["train_loss", "train_acc", "val/loss", "val/acc", "lr", "epoch", "throughput", "gpu/memory"]
    for layer in range(98):
        names += [f"grad_norm/layer{layer}", f"weights/layer{layer}", f"train_act/layer{layer}", f"val/layer{layer}"]
    return names[:400]


def build(
    runs: int, tags: int, text: int, *, record: bool = True, seed: int = 0
) -> tuple[Index, list[tuple[str, str, str]]]:
    """The synthetic index, and (with ``record``) every entry as (field, run, text) for the plain-``re`` baselines."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary()
    index = Index()
    entries: list[tuple[str, str, str]] = []

    def add(run: int, name: str, field: str, line: str, tag: str | None = None, step: int | None = None) -> None:
        index.add(run, field, line, tag, step)
        if record:
            entries.append((field, name, line))

    for number in range(runs):
        name = f"{ARCHS[number % len(ARCHS)]}-{DATASETS[number % len(DATASETS)]}-{number:05d}"
        run = index.add_run(name)
        if record:
            entries.append(("run", name, name))
        for tag in rng.choice(len(vocab), size=tags, replace=False).tolist():
            add(run, name, "tag", vocab[tag], vocab[tag])
        hparams = {
            "lr": LRS[int(rng.integers(len(LRS)))],
            "batch_size": float(2 ** int(rng.integers(5, 9))),
            "dropout": [0.0, 0.1, 0.2, 0.3, 0.5][int(rng.integers(5))],
            "optimizer": ["adam", "sgd", "adamw"][int(rng.integers(3))],
            "seed": float(number),
        }
        add(run, name, "hparam", hparams_line(hparams))
        started = START + float(rng.random()) * SPAN
        for label, when in (("start", started), ("end", started + float(rng.random()) * 86_400 * 2)):
            for line in date_texts(when):
                add(run, name, "date", line, label)
        add(run, name, "metadata", f"host=gpu-node-{number % 64:02d}")
        add(run, name, "metadata", f"command=python train.py --lr {hparams['lr']} --seed {number}")
        add(run, name, "metadata", f"git={number * 2654435761 % (1 << 64):016x}{number:024x}")
        for epoch in range(text):
            loss, acc = float(rng.random() * 2), float(rng.random())
            add(run, name, "text", f"epoch {epoch}: train loss {loss:.4f} val acc {acc:.4f}", "log", epoch * 100)
        if number % 100 == 7:
            add(run, name, "text", f"nan detected at step {number * 13 % 5000}", "log", 5000)
        add(run, name, "annotation", f"lr decayed to {hparams['lr'] / 10:g}", None, 2500)
    return index, entries


class Trigrams:
    """Russ Cox's Code Search approach, for comparison: a trigram index over one field's distinct texts.

    A pattern's required literal gives trigrams; their posting lists intersect to candidate texts, which RE2 then
    checks one by one. A pattern without a literal of three bytes or more has no trigrams to use: full scan."""

    def __init__(self, field: FieldIndex) -> None:
        buffer, starts = field.buffer()
        data = np.frombuffer(buffer, dtype=np.uint8).astype(np.int64)
        codes = (data[:-2] << 16) | (data[1:-1] << 8) | data[2:]
        newline = (data[:-2] == 10) | (data[1:-1] == 10) | (data[2:] == 10)
        at = np.flatnonzero(~newline)
        texts = np.searchsorted(starts, at, side="right") - 1
        pairs = np.unique((codes[at] << 32) | texts)
        self.codes = pairs >> 32
        self.texts = pairs & 0xFFFFFFFF
        self.field = field
        self.bytes = self.codes.nbytes + self.texts.nbytes

    def candidates(self, literal: bytes) -> np.ndarray:
        found: np.ndarray | None = None
        for start in range(len(literal) - 2):
            code = (literal[start] << 16) | (literal[start + 1] << 8) | literal[start + 2]
            low, high = np.searchsorted(self.codes, [code, code + 1])
            posting = self.texts[low:high]
            found = posting if found is None else np.intersect1d(found, posting, assume_unique=True)
            if not len(found):
                break
        assert found is not None
        return found

    def matching(self, program: Any, literal: bytes | None) -> int:
        """How many texts match: candidates checked one by one, or (no literal) the field's own scan."""
        if literal is None:
            return len(self.field.scan(program))
        buffer, starts = self.field.buffer()
        match = program._regexp.Match
        ends = np.append(starts[1:], len(buffer))
        count = 0
        for text in self.candidates(literal).tolist():
            if match(re2._Anchor.UNANCHORED, buffer, int(starts[text]), int(ends[text]))[0][0] >= 0:
                count += 1
        return count


def text_finding(pattern: str, index: Index, trigrams: dict[str, Trigrams] | None) -> Callable[[], int]:
    """Finding the matching texts alone (no entries, no hits): the index's scan, or trigram candidates."""
    work = []
    for term in terms(parse(pattern)):
        program = compile_pattern(term, ignore_case=False)
        literal = required_literal(term.pattern)
        finder = compile_literal(literal) if literal is not None else None
        exact = exact_literal(term.pattern)
        for name in FIELDS if term.field is None else (term.field,):
            work.append((name, program, literal, finder, exact))

    def run() -> int:
        if trigrams is None:
            return sum(len(index.fields[name].scan(program, finder, exact)) for name, program, _, finder, exact in work)
        return sum(trigrams[name].matching(program, literal) for name, program, literal, _, _ in work)

    return run


def refresh_costs(runs: int) -> dict[str, float]:
    """Index a real log directory of ``runs`` small runs (ridgeline's writer: 5 scalar tags, hparams, 2 text
    lines, run metadata), then time a refresh after one run gained a point and a text line (the incremental
    case a live server meets at every ingest pass)."""
    with tempfile.TemporaryDirectory() as root:
        for number in range(runs):
            name = f"{ARCHS[number % len(ARCHS)]}-{number:04d}"
            with ridgeline.SummaryWriter(
                str(Path(root) / name), hparams={"lr": LRS[number % len(LRS)], "seed": number}
            ) as writer:
                for step in range(10):
                    for tag in ("train_loss", "train_acc", "val/loss", "val/acc", "lr"):
                        writer.add_scalar(tag, 1.0 / (step + 1), step)
                writer.add_text("log", f"epoch 0 done\nrun {number} ok", 0)
        logdir = ridgeline.open(root, cache=False)
        started = time.perf_counter()
        searcher = Searcher(logdir)
        first = time.perf_counter() - started
        live = ridgeline.SummaryWriter(str(Path(root) / f"{ARCHS[0]}-0000"), record_run_metadata=False)
        live.add_scalar("train_loss", 0.01, 10)
        live.add_text("log", "epoch 1 done", 10)
        live.close()
        logdir.reload()
        started = time.perf_counter()
        searcher.refresh()
        again = time.perf_counter() - started
        assert searcher.search("text:epoch 1 done").total == 1
        return {
            "runs": runs,
            "entries": len(searcher.index),
            "first_index_s": first,
            "refresh_one_run_ms": again * 1000,
        }


def hyperscan_finding(pattern: str, index: Index) -> Callable[[], int] | None:
    """Finding the matching texts with Hyperscan (Intel's multi-pattern engine) over the same joined buffers, for
    comparison where the ``hyperscan`` package installs (it is not a dependency); None where it does not."""
    try:
        import hyperscan
    except ImportError:
        return None
    work = []
    for term in terms(parse(pattern)):
        expression, flags = term.pattern, hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_SOM_LEFTMOST
        if expression.startswith("(?i)"):
            expression, flags = expression[4:], flags | hyperscan.HS_FLAG_CASELESS
        database = hyperscan.Database()
        database.compile(expressions=[expression.encode()], flags=[flags])
        for name in FIELDS if term.field is None else (term.field,):
            work.append((database, *index.fields[name].buffer()))

    def run() -> int:
        found = 0
        for database, buffer, starts in work:
            at: list[int] = []
            database.scan(buffer, match_event_handler=_collect_start, context=at)
            if at:
                found += len(np.unique(np.searchsorted(starts, np.array(at), side="right") - 1))
        return found

    return run


def _collect_start(_id: int, start: int, _end: int, _flags: int, found: list[int]) -> None:
    found.append(start)


def latency(call: Callable[[], object], repeats: int) -> dict[str, float]:
    call()  # warm: compiled pattern, numpy arrays
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return {"median_ms": statistics.median(times), "p99_ms": float(np.percentile(times, 99)), "min_ms": min(times)}


def plain_re(pattern: str, entries: list[tuple[str, str, str]]) -> Callable[[], int]:
    """One ``re.search`` per entry of the fields the pattern's terms scope (booleans: each term's scan)."""
    node = parse(pattern)
    scans = []
    for term in terms(node):
        fields = set(FIELDS) if term.field is None else {term.field}
        compiled = re.compile(term.pattern, re.MULTILINE)
        scans.append((compiled, fields))

    def run() -> int:
        found = 0
        for compiled, fields in scans:
            search = compiled.search
            found += sum(1 for field, _, text in entries if field in fields and search(text))
        return found

    return run


def tensorboard_filter(pattern: str, by_run: dict[str, list[str]]) -> Callable[[], int] | None:
    """TensorBoard's run selector / tag filter: ``re.search`` per run name, or per tag of every run."""
    node = parse(pattern)
    found_terms = terms(node)
    if len(found_terms) != 1 or found_terms[0].field not in ("run", "tag"):
        return None
    compiled = re.compile(found_terms[0].pattern)
    if found_terms[0].field == "run":
        return lambda: sum(1 for name in by_run if compiled.search(name))
    return lambda: sum(1 for tags in by_run.values() for tag in tags if compiled.search(tag))


@contextmanager
def serving(searcher: Searcher) -> Iterator[httpx.Client]:
    """The real app (``create_app``) on 127.0.0.1, its search route answering from ``searcher``."""
    with tempfile.TemporaryDirectory() as empty:
        app = create_app(ridgeline.open(empty, cache=False))
        app.state.searcher = searcher
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.01)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                yield client
        finally:
            server.should_exit = True
            thread.join()


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--tags", type=int, default=80, help="tags per run")
    parser.add_argument("--text", type=int, default=10, help="text lines per run")
    parser.add_argument("--repeats", type=int, default=50, help="searches timed per pattern")
    parser.add_argument("--re-repeats", type=int, default=3, help="timed passes of the plain-re baselines")
    parser.add_argument("--refresh-runs", type=int, default=1000, help="runs written for the refresh timing")
    parser.add_argument("--quick", action="store_true", help="200 runs, few repeats (smoke test)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.repeats, args.re_repeats, args.refresh_runs = 200, 5, 1, 20

    rss_before = rss_mb()
    gc.collect()
    tracemalloc.start()
    index, _ = build(args.runs, args.tags, args.text, record=False)
    for name in FIELDS:  # what the first search adds: joined buffers, numpy arrays
        index.fields[name].buffer()
        index.fields[name].arrays()
    index_only = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = rss_mb()
    # Build again untraced for the build time (tracemalloc slows allocation), with the baselines' entry list.
    del index
    gc.collect()
    started = time.perf_counter()
    index, entries = build(args.runs, args.tags, args.text)
    build_s = time.perf_counter() - started
    searcher = Searcher(None, index=index)
    # The baselines' list of a million (field, run, text) tuples would make every full garbage collection walk
    # it during the timings: a cost of the benchmark's bookkeeping, not of search. Set it aside from the GC.
    gc.collect()
    gc.freeze()
    started = time.perf_counter()
    trigrams = {name: Trigrams(index.fields[name]) for name in FIELDS}
    results_trigrams = {
        "build_s": time.perf_counter() - started,
        "mb": sum(t.bytes for t in trigrams.values()) / 1e6,
    }
    results: dict[str, Any] = {
        "runs": args.runs,
        "entries": len(index),
        "build_s": build_s,
        "memory": {
            "traced_index_mb": index_only[0] / 1e6,
            "traced_peak_mb": index_only[1] / 1e6,
            "index_arrays_and_buffers_mb": index.memory() / 1e6,
            "rss_growth_mb": rss_after - rss_before,
        },
        "distinct_texts": {name: len(index.fields[name].values) for name in FIELDS},
        "trigram_index": results_trigrams,
        "patterns": {},
    }
    print(
        f"trigram index (comparison only): {results_trigrams['mb']:.0f} MB, "
        f"built in {results_trigrams['build_s']:.1f} s",
        flush=True,
    )
    print(
        f"index: {len(index):,} entries, {args.runs:,} runs, built in {build_s:.1f} s; memory (tracemalloc) "
        f"{results['memory']['traced_index_mb']:.0f} MB (peak {results['memory']['traced_peak_mb']:.0f} MB), "
        f"RSS growth {results['memory']['rss_growth_mb']:.0f} MB",
        flush=True,
    )
    by_run: dict[str, list[str]] = {}
    for field, run, text in entries:
        if field == "tag":
            by_run.setdefault(run, []).append(text)
        elif field == "run":
            by_run.setdefault(run, [])

    with serving(searcher) as client:
        for pattern in PATTERNS:
            result = searcher.search(pattern)
            figures: dict[str, Any] = {"total": result.total, "runs": len(result.runs)}
            figures["api"] = latency(lambda p=pattern: searcher.search(p), args.repeats)
            figures["http"] = latency(
                lambda p=pattern: client.get("/api/search", params={"q": p}).raise_for_status(), args.repeats
            )
            scan = text_finding(pattern, index, None)
            trigram = text_finding(pattern, index, trigrams)
            assert scan() == trigram(), pattern  # the same texts either way
            figures["find_texts_scan"] = latency(scan, args.repeats)
            figures["find_texts_trigram"] = latency(trigram, args.repeats)
            hyperscan = hyperscan_finding(pattern, index)
            if hyperscan is not None:
                assert scan() == hyperscan(), pattern
                figures["find_texts_hyperscan"] = latency(hyperscan, args.repeats)
            if pattern not in ADVERSARIAL:
                figures["python_re"] = latency(plain_re(pattern, entries), args.re_repeats)
            tensorboard = tensorboard_filter(pattern, by_run)
            if tensorboard is not None:
                figures["tensorboard_filter"] = latency(tensorboard, args.re_repeats)
            results["patterns"][pattern] = figures
            line = (
                f"{pattern:50s} hits {result.total:>7,}  api {figures['api']['median_ms']:7.2f} ms "
                f"(p99 {figures['api']['p99_ms']:6.2f}, min {figures['api']['min_ms']:5.2f})  "
                f"http {figures['http']['median_ms']:7.2f} ms"
                f"  [texts: scan {figures['find_texts_scan']['median_ms']:6.2f} ms, "
                f"trigrams {figures['find_texts_trigram']['median_ms']:6.2f} ms"
                + (
                    f", hyperscan {figures['find_texts_hyperscan']['median_ms']:6.2f} ms]"
                    if "find_texts_hyperscan" in figures
                    else "]"
                )
            )
            if "python_re" in figures:
                line += f"  re {figures['python_re']['median_ms']:8.1f} ms"
            if "tensorboard_filter" in figures:
                line += f"  TB filter {figures['tensorboard_filter']['median_ms']:7.1f} ms"
            print(line, flush=True)
    results["refresh"] = refresh_costs(args.refresh_runs)
    print(
        f"refresh: {results['refresh']['runs']:,} runs written by ridgeline's writer "
        f"({results['refresh']['entries']:,} entries) indexed in {results['refresh']['first_index_s']:.2f} s; "
        f"after one run gained a point and a text line, refresh {results['refresh']['refresh_one_run_ms']:.1f} ms",
        flush=True,
    )
    api = [figures["api"] for figures in results["patterns"].values()]
    results["worst_median_ms"] = max(figure["median_ms"] for figure in api)
    results["worst_p99_ms"] = max(figure["p99_ms"] for figure in api)
    print(f"worst median {results['worst_median_ms']:.2f} ms, worst p99 {results['worst_p99_ms']:.2f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
