"""Projector benchmark: ridgeline's projector against TensorBoard's, on the same log directories, in one run.

Log directories are written once with ridgeline's ``add_embedding`` (what torch's writes: projector_config.pbtxt,
tensors.tsv, metadata.tsv with a label column) and kept under ``--data-dir`` (default ``.bench/projector``).
Vectors are Gaussian blobs (one per label), so PCA, UMAP and t-SNE have structure to find.

Scenarios (``--only``):

- (p) parse: tensors.tsv of POINTS x 128 read into a float32 matrix by ridgeline's reader (``EmbeddingRef.tensors``,
  numpy/pyarrow in bulk) and by TensorBoard's projector plugin (``_read_tensor_tsv_file``, what its ``tensor``
  route calls: a Python ``float()`` per value). Same file, same process, median of ``--repeats``.
- (o) open: from ``page.goto`` of the projector tab (a fresh browser context) until an interactive PCA scatter is
  on screen, for 10,000 x 128 and 100,000 x 128. ridgeline: the view's ``data-ready`` and the page's
  ``chartsReady`` (set once the WebGL scatter has drawn every point), then drawn pixels on its canvas.
  TensorBoard: its ``vz-projector`` element (in the plugin's iframe) has a data set whose ``pca-0`` projection is
  computed (TensorBoard computes PCA in the browser, on a 50,000-point sample, and loads at most the first
  100,000 rows), then drawn pixels on its canvas. Both servers are started and have listed the embedding first.
- (f) pan frames: once open, the pointer drags across the plot (Playwright's real mouse: press, 120 moves, release)
  while every animation frame's interval is recorded in the plot's page (chromium runs with
  ``--disable-frame-rate-limit --disable-gpu-vsync``: a frame's interval is its cost); median and 95th percentile
  over the drag. At 100,000 points for both, and at 1,000,000 (x 8 dimensions) for ridgeline alone (TensorBoard
  reads only the first 100,000 rows, so it has no such figure).
- (n) neighbours: ``GET /api/projector/neighbours`` (k=100, cosine, exact, on the raw vectors) for 20 points of
  100,000 x 768 once the embedding is loaded; median. TensorBoard computes neighbours in the browser, on its
  spherized copy of the data, with no route to time.
- (g) graphs: a ResNet-50 (bottleneck blocks 3-4-6-3, as torchvision's) traced by torch's ``add_graph``: from
  ``page.goto`` of the graphs tab until the first view is laid out and fitted (the graph view's ``data-ready``),
  then from a click on **Expand all** (``--graph-settle S`` seconds later: a user reading the first view, while
  ELK warms up in its workers) until every scope is open and laid out. ridgeline alone: TensorBoard's
  graph dashboard has no "expand all".
- (j) jobs: UMAP of 50,000 x 128 and t-SNE of 10,000 x 128 as ridgeline's background jobs, from the POST until
  the job is done (the worker's first UMAP includes numba's compilation: the figure says which). TensorBoard runs
  both in the browser on at most 5,000 (UMAP) or 10,000 (t-SNE) sampled points, animated, with no end signal.

Every figure prints the ratio (TensorBoard / ridgeline) where both have one. ``--quick`` shrinks every size (for a
check that the benchmark runs, not for figures).

    python bench/projector.py [--only p,o,f,n,g,j] [--repeats R] [--quick] [--no-tensorboard] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from playwright.sync_api import Browser, Frame, Page, sync_playwright
from ui import (  # bench/ui.py, beside this file
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    VIEWPORT,
    Server,
    coloured_pixels,
    machine,
    start_plugin_servers,
)

DATA_VERSION = 1
RUN = "run"
TAG = "features"
LABELS = 10
MOVES = 120
NEIGHBOUR_QUERIES = 20
OPEN_TIMEOUT_S = 600.0  # one page load (TensorBoard's PCA of 100,000 points in the browser takes minutes)

# ridgeline's plot and TensorBoard's (inside the projector plugin's iframe).
RIDGELINE_READY = (
    "() => document.body?.dataset.chartsReady === 'true' && "
    "document.querySelector('[data-testid=projector-view]')?.dataset.ready === 'true'"
)
TENSORBOARD_READY = "p => { const d = p.dataSet; return !!(d && d.projections && d.projections['pca-0']); }"
CANVAS = {"ridgeline": "[data-testid=projector-canvas]", "TensorBoard": "vz-projector #scatter"}

RECORD_FRAMES = """
() => { window.__frames = []; let last = null; window.__recording = true;
  const frame = () => { const now = performance.now(); if (last !== null) window.__frames.push(now - last);
    last = now; if (window.__recording) requestAnimationFrame(frame); };
  requestAnimationFrame(frame); }
"""


def vectors(points: int, dims: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    """Gaussian blobs, one per label, and each point's label."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, LABELS, points)
    centres = rng.standard_normal((LABELS, dims)).astype(np.float32) * 4
    matrix = centres[labels] + rng.standard_normal((points, dims), dtype=np.float32)
    return matrix, [f"class {label}" for label in labels]


def ensure_logdir(root: Path, points: int, dims: int) -> Path:
    """A log directory of one run with one embedding of ``points x dims``, written unless already complete."""
    from ridgeline import SummaryWriter

    path = root / f"projector-{points}x{dims}-v{DATA_VERSION}"
    marker = path / ".complete"
    if marker.exists():
        return path
    start = time.perf_counter()
    matrix, labels = vectors(points, dims)
    with SummaryWriter(path / RUN) as writer:
        writer.add_scalar("loss", 1.0, 0)  # a run with a step: what both servers wait for
        writer.add_embedding(matrix, metadata=labels, tag=TAG, global_step=0)
    print(f"wrote {points:,} x {dims} to {path} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    marker.write_text("ok\n")
    return path


def tensor_file(path: Path) -> Path:
    return next((path / RUN).rglob("tensors.tsv"))


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ratio(theirs: float | None, ours: float | None) -> str:
    if not theirs or not ours or theirs != theirs or ours != ours:
        return ""
    return f"  TensorBoard / ridgeline = {theirs / ours:.1f}x"


# --- (p) parse ----------------------------------------------------------------------------------------------------
def bench_parse(root: Path, points: int, repeats: int, tensorboard: bool) -> dict[str, Any]:
    from ridgeline.ingest.projector import read_projector

    path = ensure_logdir(root, points, 128)
    (ref,) = read_projector(path / RUN)
    times: dict[str, list[float]] = {"ridgeline": [], "TensorBoard": []}
    for _ in range(repeats):
        start = time.perf_counter()
        ours = ref.tensors()
        times["ridgeline"].append(time.perf_counter() - start)
        if tensorboard:
            from tensorboard.plugins.projector.projector_plugin import _read_tensor_tsv_file

            start = time.perf_counter()
            theirs = _read_tensor_tsv_file(str(tensor_file(path)))
            times["TensorBoard"].append(time.perf_counter() - start)
            assert np.array_equal(ours, theirs), "the two readers disagree"
    result = {"label": f"(p) parse tensors.tsv, {points:,} x 128", **{k: median(v) for k, v in times.items()}}
    print(f"{result['label']}: ridgeline {result['ridgeline']:.2f} s", end="")
    if tensorboard:
        print(f", TensorBoard {result['TensorBoard']:.2f} s" + ratio(result["TensorBoard"], result["ridgeline"]))
    else:
        print()
    return result


# --- (o, f) open and pan ------------------------------------------------------------------------------------------
def start_servers(path: Path, tensorboard: bool) -> dict[str, Server]:
    def tensorboard_lists(base: str) -> bool:
        with urllib.request.urlopen(f"{base}/data/plugin/projector/runs", timeout=60) as answer:
            return RUN in json.loads(answer.read())

    query = "?" + urllib.parse.urlencode({"tab": "projector", "p.run": RUN, "p.tag": TAG})
    return start_plugin_servers(path, RUN, "projector", [TAG], 1, tensorboard, tensorboard_lists, query)


def plot_frame(page: Page, name: str) -> Frame:
    """The frame holding the plot: the page itself for ridgeline, the projector plugin's iframe for TensorBoard."""
    if name == "ridgeline":
        return page.main_frame
    for frame in page.frames:
        if "projector_binary" in frame.url:
            return frame
    raise LookupError("no projector frame yet")


def open_once(browser: Browser, server: Server, pan: bool, shot: Path | None) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    ready = RIDGELINE_READY if server.name == "ridgeline" else TENSORBOARD_READY
    try:
        start = time.perf_counter()
        page.goto(server.url, wait_until="commit")
        deadline = start + OPEN_TIMEOUT_S
        while True:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{server.name}: no PCA scatter within {OPEN_TIMEOUT_S:.0f} s")
            try:
                frame = plot_frame(page, server.name)
                if server.name == "ridgeline":
                    if frame.evaluate(ready):
                        break
                else:  # vz-projector is in a shadow root: a locator finds it, querySelector does not
                    element = frame.locator("vz-projector")
                    if element.count() and element.first.evaluate(ready):
                        break
            except LookupError:
                pass
            except Exception as error:  # a frame navigating while asked
                if "context" not in str(error).lower() and "navigat" not in str(error).lower():
                    raise
            page.wait_for_timeout(5)
        signalled = time.perf_counter()
        canvas = frame.locator(CANVAS[server.name]).first
        drawn_at = signalled
        while coloured_or_dark(canvas.screenshot(animations="disabled")) < 100:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{server.name}: the scatter drew nothing")
            drawn_at = time.perf_counter()
        result: dict[str, Any] = {"load_s": drawn_at - start, "page_errors": errors}
        if shot is not None:
            page.screenshot(path=shot)
        if pan:
            result.update(pan_frames(page, frame, canvas))
    finally:
        context.close()
    return result


def coloured_or_dark(png: bytes) -> int:
    """Drawn pixels: coloured ones (a categorical palette, TensorBoard's blue) or dark ones."""
    import io

    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    return max(coloured_pixels(png), int((pixels.max(axis=2) < 160).sum()))


def pan_frames(page: Page, frame: Frame, canvas: Any) -> dict[str, Any]:
    box = canvas.bounding_box()
    assert box is not None, "the plot is not on screen"
    x0, y0 = box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.5
    page.mouse.move(x0, y0)
    frame.evaluate(RECORD_FRAMES)
    page.mouse.down()
    for i in range(MOVES):
        phase = (i % 60) / 30
        dx = box["width"] * 0.4 * (phase if phase <= 1 else 2 - phase)
        page.mouse.move(x0 + dx, y0 + dx * 0.2)
    page.mouse.up()
    intervals = frame.evaluate("() => { window.__recording = false; return window.__frames; }")[3:]
    return {
        "frame_ms_median": median(intervals),
        "frame_ms_p95": float(np.percentile(intervals, 95)) if intervals else float("nan"),
        "frames": len(intervals),
    }


def bench_open(
    browser: Browser, root: Path, points: int, dims: int, repeats: int, pan: bool, tensorboard: bool, shots: Path
) -> dict[str, Any]:
    """``repeats`` loads of each projector, taking turns. ridgeline's cache directory starts empty: its first load
    is cold (the file parsed, PCA computed), the others find the parsed matrix and the PCA in the cache, as any
    later opening of the same embedding does. TensorBoard parses the file and computes PCA at every load."""
    path = ensure_logdir(root, points, dims)
    label = f"(o{'/f' if pan else ''}) open the projector, PCA scatter of {points:,} x {dims}"
    with tempfile.TemporaryDirectory(prefix="ridgeline-projector-cache-") as cache:
        os.environ["RIDGELINE_CACHE_DIR"] = cache
        servers = start_servers(path, tensorboard)
        samples: dict[str, list[dict[str, Any]]] = {name: [] for name in servers}
        try:
            for repeat in range(repeats):
                for name in list(servers) if repeat % 2 == 0 else list(servers)[::-1]:
                    shot = shots / f"projector-{points}x{dims}-{name}.png" if repeat == 0 else None
                    samples[name].append(open_once(browser, servers[name], pan, shot))
        finally:
            for server in servers.values():
                server.stop()
    result: dict[str, Any] = {"label": label, "samples": samples}
    for name, runs in samples.items():
        later = runs[1:] if name == "ridgeline" and len(runs) > 1 else runs
        result[name] = {key: median([r[key] for r in later]) for key in runs[0] if key != "page_errors"}
        result[name]["page_errors"] = sorted({e for r in runs for e in r["page_errors"]})
    result["ridgeline"]["cold_load_s"] = samples["ridgeline"][0]["load_s"]
    print(label)
    for name in servers:
        figures = result[name]
        line = f"  {name:12s} first interactive scatter {figures['load_s']:.2f} s"
        if name == "ridgeline":
            line += f" (cold, the first load with an empty cache: {figures['cold_load_s']:.2f} s)"
        if pan:
            line += f"; pan frames median {figures['frame_ms_median']:.1f} ms, p95 {figures['frame_ms_p95']:.1f} ms"
        print(line)
        if figures["page_errors"]:
            print(f"  {name:12s} page errors: {figures['page_errors']}")
    if "TensorBoard" in servers:
        theirs = result["TensorBoard"]["load_s"]
        print(
            "  open:"
            + ratio(theirs, result["ridgeline"]["load_s"])
            + "; cold:"
            + ratio(theirs, result["ridgeline"]["cold_load_s"])
        )
        if pan:
            theirs, ours = result["TensorBoard"]["frame_ms_median"], result["ridgeline"]["frame_ms_median"]
            print("  pan frame:" + ratio(theirs, ours))
    return result


# --- (n, j) the API -----------------------------------------------------------------------------------------------
def api(server: Server, path: str, body: dict[str, Any] | None = None, **params: Any) -> Any:
    base = server.url.split("?")[0]
    url = base + path.lstrip("/") + ("?" + urllib.parse.urlencode(params) if params else "")
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(request, timeout=OPEN_TIMEOUT_S) as answer:
        return json.loads(answer.read())


def bench_neighbours(root: Path, points: int, dims: int) -> dict[str, Any]:
    path = ensure_logdir(root, points, dims)
    os.environ["RIDGELINE_CACHE_DIR"] = tempfile.mkdtemp(prefix="ridgeline-projector-cache-")
    server = start_servers(path, False)["ridgeline"]
    try:
        start = time.perf_counter()
        api(server, "api/projector/embedding", run=RUN, tag=TAG, step=0)
        load_s = time.perf_counter() - start
        times = []
        for index in np.linspace(0, points - 1, NEIGHBOUR_QUERIES).astype(int).tolist():
            start = time.perf_counter()
            found = api(server, "api/projector/neighbours", run=RUN, tag=TAG, step=0, index=index, k=100)
            times.append(time.perf_counter() - start)
            assert found["exact"] and len(found["neighbours"]) == 100
    finally:
        server.stop()
    result = {"label": f"(n) neighbours, k=100 cosine exact, {points:,} x {dims}", "ms": median(times) * 1000}
    result["first_ms"], result["load_s"] = times[0] * 1000, load_s
    print(
        f"{result['label']}: {result['ms']:.0f} ms per click (median of {NEIGHBOUR_QUERIES}; the first "
        f"{result['first_ms']:.0f} ms; loading the embedding {load_s:.1f} s)"
    )
    return result


def run_job(server: Server, method: str, **params: Any) -> float:
    body = {"run": RUN, "tag": TAG, "step": 0, "method": method, "dims": 2, **params}
    start = time.perf_counter()
    state = api(server, "api/projector/projection", body)
    while state["state"] in ("queued", "running"):
        if time.perf_counter() > start + 3600:
            raise TimeoutError(f"{method} still running after an hour")
        time.sleep(0.2)
        state = api(server, "api/projector/job", key=state["key"])
    if state["state"] != "done":
        raise RuntimeError(f"{method}: {state['state']}: {state.get('error')}")
    return time.perf_counter() - start


def bench_jobs(root: Path, umap_points: int, tsne_points: int) -> dict[str, Any]:
    result: dict[str, Any] = {"label": "(j) background jobs, POST to done"}
    for method, points, params in (
        ("umap", umap_points, {"n_neighbors": 15, "min_dist": 0.1, "seed": 0}),
        ("tsne", tsne_points, {"perplexity": 30, "iterations": 500, "seed": 0}),
    ):
        os.environ["RIDGELINE_CACHE_DIR"] = tempfile.mkdtemp(prefix="ridgeline-projector-cache-")
        server = start_servers(ensure_logdir(root, points, 128), False)["ridgeline"]
        try:
            seconds = run_job(server, method, **params)
        finally:
            server.stop()
        result[method] = {"points": points, "s": seconds}
        print(f"(j) {method} of {points:,} x 128: {seconds:.1f} s (a fresh server and worker: includes warm-up)")
    return result


# --- (g) graphs ---------------------------------------------------------------------------------------------------
def resnet50() -> Any:
    """torchvision's ResNet-50 (bottleneck blocks 3, 4, 6, 3), written out: torchvision is not a dependency."""
    import torch
    from torch import nn

    class Bottleneck(nn.Module):
        def __init__(self, inputs: int, width: int, stride: int) -> None:
            super().__init__()
            out = width * 4
            self.conv1, self.bn1 = nn.Conv2d(inputs, width, 1, bias=False), nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3, self.bn3 = nn.Conv2d(width, out, 1, bias=False), nn.BatchNorm2d(out)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = (
                nn.Sequential(nn.Conv2d(inputs, out, 1, stride, bias=False), nn.BatchNorm2d(out))
                if stride != 1 or inputs != out
                else None
            )

        def forward(self, x: Any) -> Any:
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)))
            y = self.bn3(self.conv3(y))
            return self.relu(y + (x if self.downsample is None else self.downsample(x)))

    class ResNet50(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64)
            self.relu, self.maxpool = nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)
            inputs, layers = 64, []
            for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                stage = []
                for block in range(blocks):
                    stage.append(Bottleneck(inputs, width, stride if block == 0 else 1))
                    inputs = width * 4
                layers.append(nn.Sequential(*stage))
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.avgpool, self.fc = nn.AdaptiveAvgPool2d(1), nn.Linear(2048, 1000)

        def forward(self, x: Any) -> Any:
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return ResNet50().eval()


def ensure_graph_logdir(root: Path) -> Path:
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    path = root / f"graph-resnet50-v{DATA_VERSION}"
    marker = path / ".complete"
    if not marker.exists():
        writer = TorchWriter(str(path / "resnet50"))
        writer.add_scalar("loss", 1.0, 0)
        writer.add_graph(resnet50(), torch.zeros(1, 3, 64, 64))
        writer.close()
        marker.write_text("ok\n")
    return path


GRAPH_READY = "() => document.querySelector('[data-testid=graph-view]')?.dataset.ready === 'true'"
GRAPH_EXPANDED = (
    "(before) => { const v = document.querySelector('[data-testid=graph-view]');"
    " return v.dataset.ready === 'true' && Number(v.dataset.boxes) > before; }"
)


def graph_once(browser: Browser, url: str, shot: Path | None, settle_s: float) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    try:
        start = time.perf_counter()
        page.goto(url, wait_until="commit")
        page.wait_for_function(GRAPH_READY, timeout=OPEN_TIMEOUT_S * 1000, polling=5)
        first_s = time.perf_counter() - start
        view = page.locator("[data-testid=graph-view]")
        before = int(view.get_attribute("data-boxes") or 0)
        page.wait_for_timeout(settle_s * 1000)  # a user reading the first view: ELK warms up in its workers
        start = time.perf_counter()
        page.locator("[data-testid=graph-expand-all]").click()
        page.wait_for_function(GRAPH_EXPANDED, arg=before, timeout=OPEN_TIMEOUT_S * 1000, polling=5)
        expand_s = time.perf_counter() - start
        boxes = int(view.get_attribute("data-boxes") or 0)
        if shot is not None:
            page.screenshot(path=shot)
    finally:
        context.close()
    return {"first_view_s": first_s, "expand_all_s": expand_s, "boxes_first": before, "boxes_expanded": boxes}


def bench_graph(browser: Browser, root: Path, repeats: int, shots: Path, settle_s: float) -> dict[str, Any]:
    path = ensure_graph_logdir(root)
    server = start_plugin_servers(path, "resnet50", "graphs", ["__graph__"], 1, False, lambda base: True)["ridgeline"]
    url = server.url.split("?")[0] + "?tab=graphs&g.run=resnet50"
    try:
        shot = shots / "graph-resnet50.png"
        runs = [graph_once(browser, url, shot if i == 0 else None, settle_s) for i in range(repeats)]
        nodes = len(json.loads(urllib.request.urlopen(url.split("?")[0] + "api/graphs?run=resnet50").read())["nodes"])
    finally:
        server.stop()
    result = {key: median([r[key] for r in runs]) for key in runs[0]}
    result.update(label="(g) graphs: ResNet-50 traced by torch's add_graph", nodes=nodes, settle_s=settle_s)
    print(
        f"{result['label']} ({nodes:,} nodes, {result['boxes_expanded']:.0f} boxes expanded): first fitted view "
        f"{result['first_view_s']:.2f} s, expand all {result['expand_all_s']:.2f} s (clicked {settle_s:.0f} s "
        "after the first view)"
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="p,o,f,n,g,j")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that it runs, not for figures")
    parser.add_argument("--no-tensorboard", action="store_true")
    parser.add_argument("--parse-points", type=int, default=1_000_000, help="rows of the parse scenario (x 128)")
    parser.add_argument("--graph-settle", type=float, default=0.0, help="(g): seconds before clicking Expand all")
    parser.add_argument("--data-dir", type=Path, default=REPO / ".bench" / "projector")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = set(args.only.split(","))
    tensorboard = not args.no_tensorboard
    root: Path = args.data_dir
    root.mkdir(parents=True, exist_ok=True)
    shots = root / "screenshots"
    shots.mkdir(exist_ok=True)
    q = args.quick
    results: list[dict[str, Any]] = []
    if "p" in only:
        results.append(bench_parse(root, 20_000 if q else args.parse_points, args.repeats, tensorboard))
    if only & {"o", "f", "g"}:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                if "g" in only:
                    results.append(bench_graph(browser, root, args.repeats, shots, args.graph_settle))
                pan = "f" in only
                sizes = [2_000, 10_000] if q else [10_000, 100_000]
                for points in sizes if only & {"o", "f"} else []:
                    pan_here = pan and points == sizes[-1]
                    results.append(bench_open(browser, root, points, 128, args.repeats, pan_here, tensorboard, shots))
                if pan:
                    big = 50_000 if q else 1_000_000
                    results.append(bench_open(browser, root, big, 8, args.repeats, True, False, shots))
            finally:
                browser.close()
    if "n" in only:
        results.append(bench_neighbours(root, 10_000 if q else 100_000, 768))
    if "j" in only:
        results.append(bench_jobs(root, 2_000 if q else 50_000, 2_000 if q else 10_000))
    info = machine()
    print(f"\n{info['cpu']}, {info['cores']} cores; {info['chromium']}; TensorBoard {info['tensorboard']}")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "results": results}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
