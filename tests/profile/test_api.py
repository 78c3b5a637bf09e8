"""GET /api/profile/... on real torch.profiler traces of a 2-rank gloo job (CPU) and on hand-written Kineto GPU
traces, in process."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.profile import frame_bytes
from ridgeline.server.app import create_app
from tests.plugins.conftest import Api, in_process
from tests.profile import handmade
from tests.profile.traces import key_averages, trace_files


def ok(api: Api, path: str, **params: object) -> dict:
    response = api.get(f"/api/profile/{path}", **params)
    assert response.status_code == 200, response.text
    body: dict = response.json()
    return body


def names(logs: Path) -> list[str]:
    return [path.name for path in trace_files(logs)]


def test_traces_are_found_in_the_run_that_holds_them(gloo_api: Api, gloo_logs: Path) -> None:
    listing = ok(gloo_api, "runs")["runs"]
    assert [entry["run"] for entry in listing] == ["rank0"]
    traces = listing[0]["traces"]
    assert [t["name"] for t in traces] == names(gloo_logs)
    assert [t["worker"] for t in traces] == ["rank0", "rank1"]
    assert ok(gloo_api, "traces", run="rank0")["traces"] == traces


def test_the_run_listing_names_each_runs_traces(gloo_api: Api, gloo_logs: Path, tmp_path: Path) -> None:
    """/api/runs lists a run's trace files under the kind "profile" (what the page's Profile tab shows for), and
    no such kind for a run without traces."""
    (listed,) = gloo_api.get("/api/runs").json()["runs"]
    assert listed["run"] == "rank0" and listed["tags"]["profile"] == names(gloo_logs)
    with ridgeline.SummaryWriter(tmp_path / "plain" / "run") as writer:
        writer.add_scalar("loss", 1.0, 0)
    with in_process(tmp_path / "plain") as api:
        (plain,) = api.get("/api/runs").json()["runs"]
    assert "profile" not in plain["tags"] and plain["tags"]["scalars"] == ["loss"]


@pytest.mark.parametrize("rank", [0, 1])
def test_the_operator_table_agrees_with_key_averages(gloo_api: Api, gloo_logs: Path, rank: int) -> None:
    table = ok(gloo_api, "operators", run="rank0", trace=names(gloo_logs)[rank])["operators"]
    expected = sorted(
        (e for e in key_averages(gloo_logs, rank) if e["name"].startswith("aten::")), key=lambda e: -e["self_cpu"]
    )
    ours = [row for row in table if row["name"].startswith("aten::")]
    assert ours[0]["name"] == expected[0]["name"]
    assert ours[0]["self_cpu"] == pytest.approx(expected[0]["self_cpu"], rel=1e-3, abs=0.01)
    assert ours[0]["calls"] == expected[0]["calls"]
    by_name = {e["name"]: e for e in expected}
    for row in ours[:10]:
        oracle = by_name[row["name"]]
        assert row["calls"] == oracle["calls"], row
        assert row["self_cpu"] == pytest.approx(oracle["self_cpu"], rel=1e-3, abs=0.01), row
        assert row["total_cpu"] == pytest.approx(oracle["total_cpu"], rel=1e-3, abs=0.01), row
    assert [row["self_cpu"] for row in table] == sorted((row["self_cpu"] for row in table), reverse=True)


def test_operators_filter_by_regex_and_group_by_input_shapes(gloo_api: Api, gloo_logs: Path) -> None:
    trace = names(gloo_logs)[0]
    only = ok(gloo_api, "operators", run="rank0", trace=trace, name_regex="^aten::(addmm|mm)$")["operators"]
    assert {row["name"] for row in only} == {"aten::addmm", "aten::mm"}
    shaped = ok(gloo_api, "operators", run="rank0", trace=trace, by_shapes=True, name_regex="^aten::addmm$")
    rows = shaped["operators"]
    assert len(rows) >= 2  # two Linear layers: two shapes
    assert all(
        json.loads(row["input_shapes"])[1] == [16, 32] or json.loads(row["input_shapes"])[1] == [16, 64] for row in rows
    )
    assert sum(row["calls"] for row in rows) == only[[r["name"] for r in only].index("aten::addmm")]["calls"]
    bad = gloo_api.get("/api/profile/operators", run="rank0", trace=trace, name_regex="(")
    assert bad.status_code == 400 and "name_regex" in bad.json()["error"]


def test_call_stacks_name_the_python_frames(gloo_api: Api, gloo_logs: Path) -> None:
    stacks = ok(gloo_api, "stacks", run="rank0", trace=names(gloo_logs)[0], name="aten::addmm")["stacks"]
    assert stacks and all(any("linear.py" in frame for frame in s["frames"]) for s in stacks)
    assert any(any("job.py" in frame for frame in s["frames"]) for s in stacks)


def test_the_overview_of_a_cpu_only_trace(gloo_api: Api, gloo_logs: Path) -> None:
    body = ok(gloo_api, "overview", run="rank0", trace=names(gloo_logs)[0])
    assert [step["step"] for step in body["steps"]] == [2, 3, 4]  # schedule(wait=1, warmup=1, active=3)
    assert body["device"] is False and body["gpu_utilisation"] is None and body["rank"] == 0
    assert body["world_size"] == 2
    for step in body["steps"]:
        assert sum(step[c] for c in body["categories"]) == pytest.approx(step["duration"], rel=1e-6)
        assert step["kernel"] == 0 and step["communication"] > 0
    assert any("CPU-only" in note for note in body["notes"])
    assert sum(body["shares"].values()) == pytest.approx(1)


def test_the_memory_curve_peaks_where_the_allocator_did(gloo_api: Api, gloo_logs: Path) -> None:
    path = trace_files(gloo_logs)[0]
    events = json.loads(path.read_text())["traceEvents"]
    allocations = [e for e in events if e.get("name") == "[memory]"]
    peak = max(allocations, key=lambda e: e["args"]["Total Allocated"])
    devices = ok(gloo_api, "memory", run="rank0", trace=path.name)["devices"]
    assert [d["device"] for d in devices] == ["CPU"]
    assert devices[0]["peak"] == {"ts": pytest.approx(peak["ts"]), "allocated": peak["args"]["Total Allocated"]}
    assert len(devices[0]["ts"]) == len(allocations)


def test_the_timeline_zooms_and_an_event_has_its_args(gloo_api: Api, gloo_logs: Path) -> None:
    trace = names(gloo_logs)[0]
    whole = ok(gloo_api, "timeline", run="rank0", trace=trace, width=800)
    labels = [lane["label"] for lane in whole["lanes"]]
    assert any("pt_gloo_runloop" in label for label in labels) and any("(python)" in label for label in labels)
    first, last = whole["extent"]
    middle = (first + last) / 2
    zoomed = ok(gloo_api, "timeline", run="rank0", trace=trace, start=middle, end=middle + 500, width=800)
    count = sum(len(row["ids"]) for row in zoomed["rows"])
    assert 0 < count < sum(len(row["ids"]) for row in whole["rows"])
    for row in zoomed["rows"]:
        for ts, dur in zip(row["ts"], row["dur"], strict=True):
            assert ts < middle + 500 and ts + dur > middle
    addmm = (
        next(int(code) for code, name in zoomed["names"].items() if name == "aten::addmm")
        if any(name == "aten::addmm" for name in zoomed["names"].values())
        else None
    )
    row = next(r for r in whole["rows"] if addmm is None or addmm in r["name"])
    span = row["ids"][row["name"].index(addmm)] if addmm is not None else row["ids"][0]
    event = ok(gloo_api, "event", run="rank0", trace=trace, id=span)
    assert event["name"] == whole["names"][str(row["name"][row["ids"].index(span)])]
    raw = next(
        e
        for e in json.loads(trace_files(gloo_logs)[0].read_text())["traceEvents"]
        if e.get("ph") == "X" and e["name"] == event["name"] and e["ts"] == pytest.approx(event["ts"])
    )
    assert event["args"] == raw.get("args", {})
    bad = gloo_api.get("/api/profile/timeline", run="rank0", trace=trace, start=10, end=5)
    assert bad.status_code == 400 and "start" in bad.json()["error"]


def test_the_binary_frame_is_the_json_one(gloo_api: Api, gloo_logs: Path) -> None:
    """`?format=binary` (and `Accept: application/octet-stream`): the same frame as JSON, once decoded, with no
    row at all too (a window past the trace's end); tests/profile/test_timeline.py has frames with blocks."""
    trace = names(gloo_logs)[0]
    first, last = ok(gloo_api, "timeline", run="rank0", trace=trace)["extent"]
    windows = [{"width": 40}, {"start": (first + last) / 2, "end": (first + last) / 2 + 500, "width": 800}]
    windows.append({"start": last + 10, "end": last + 20})
    for window in windows:
        expected = ok(gloo_api, "timeline", run="rank0", trace=trace, **window)
        answer = gloo_api.get("/api/profile/timeline", run="rank0", trace=trace, format="binary", **window)
        assert answer.status_code == 200 and answer.headers["content-type"] == frame_bytes.MEDIA_TYPE
        assert frame_bytes.decode(answer.content) == expected
        assert answer.content[:4] == b"RLTF" and (8 + int.from_bytes(answer.content[4:8], "little")) % 8 == 0
    assert not ok(gloo_api, "timeline", run="rank0", trace=trace, **windows[-1])["rows"]
    accepted = gloo_api.client.get(
        "/api/profile/timeline",
        params={"run": "rank0", "trace": trace, "width": 40},
        headers={"Accept": frame_bytes.MEDIA_TYPE},
    )
    assert frame_bytes.decode(accepted.content) == ok(gloo_api, "timeline", run="rank0", trace=trace, width=40)
    bad = gloo_api.get("/api/profile/timeline", run="rank0", trace=trace, start=10, end=5, format="binary")
    assert bad.status_code == 400 and "start" in bad.json()["error"]


def test_download_answers_the_file_as_written(gloo_api: Api, gloo_logs: Path) -> None:
    path = trace_files(gloo_logs)[1]
    response = gloo_api.get("/api/profile/download", run="rank0", trace=path.name)
    assert response.status_code == 200 and response.content == path.read_bytes()


def test_across_ranks(gloo_api: Api, gloo_logs: Path) -> None:
    body = ok(gloo_api, "ranks", run="rank0")
    assert [r["rank"] for r in body["ranks"]] == [0, 1]
    assert all(r["breakdown"]["communication"] > 0 and r["idle"] is None for r in body["ranks"])
    assert [late["step"] for late in body["late_collectives"]] == [2, 3, 4]
    for late in body["late_collectives"]:
        delays = {int(r): d for r, d in late["delay"].items()}
        assert min(delays.values()) == 0 and delays[late["straggler"]] == max(delays.values())


def test_a_link_out_of_the_log_directory_is_not_a_trace(tmp_path: Path, cache_dir: Path) -> None:
    outside = handmade.write(tmp_path / "elsewhere" / "secret.pt.trace.json", handmade.gpu_trace(0))
    logs = tmp_path / "logs"
    directory = run_with(logs, "run", {})
    (directory / "linked.pt.trace.json").symlink_to(outside)
    with in_process(logs) as api:
        assert ok(api, "traces", run="run")["traces"] == []
        response = api.get("/api/profile/download", run="run", trace="linked.pt.trace.json")
        assert response.status_code == 404


def test_unknown_runs_and_traces_are_404(gloo_api: Api) -> None:
    for path, params in [
        ("traces", {"run": "nope"}),
        ("overview", {"run": "nope", "trace": "x.pt.trace.json"}),
        ("overview", {"run": "rank0", "trace": "../rank0/x.pt.trace.json"}),
        ("download", {"run": "rank0", "trace": "/etc/passwd"}),
        ("ranks", {"run": "nope"}),
    ]:
        response = gloo_api.get(f"/api/profile/{path}", **params)
        assert response.status_code == 404 and response.json()["error"], (path, params)


def run_with(logs: Path, run: str, files: dict[str, bytes]) -> Path:
    directory = logs / run
    with ridgeline.SummaryWriter(str(directory)) as writer:
        writer.add_scalar("loss", 1.0, 0)
    for name, data in files.items():
        (directory / name).write_bytes(data)
    return directory


def test_gpu_views_on_a_handmade_kineto_trace(tmp_path: Path, cache_dir: Path) -> None:
    logs = tmp_path / "logs"
    run_with(
        logs,
        "gpu",
        {
            "w0.1.pt.trace.json": json.dumps(handmade.gpu_trace(0)).encode(),
            "w1.2.pt.trace.json.gz": gzip.compress(json.dumps(handmade.gpu_trace(1, shift=150)).encode()),
        },
    )
    with in_process(logs) as api:
        body = ok(api, "overview", run="gpu", trace="w0.1.pt.trace.json")
        step = body["steps"][0]
        assert step["step"] == 5 and step["duration"] == 1000
        assert {c: step[c] for c in body["categories"]} == {
            "communication": 300,
            "kernel": 200,
            "memcpy": 50,
            "memset": 0,
            "dataloader": 0,
            "cpu": 190,
            "idle": 260,
        }
        assert body["gpu_utilisation"] == pytest.approx(0.55)
        assert body["sm_efficiency"] == pytest.approx(0.15) and body["achieved_occupancy"] == pytest.approx(50)
        kernels = {k["name"]: k for k in ok(api, "kernels", run="gpu", trace="w0.1.pt.trace.json")["kernels"]}
        sgemm = kernels["ampere_sgemm_128x64_nn"]
        assert (sgemm["calls"], sgemm["total"], sgemm["grid"], sgemm["block"]) == (2, 300, "[128, 1, 1]", "[256, 1, 1]")
        assert sgemm["occupancy"] == 50 and sgemm["registers"] == 32 and sgemm["tensor_cores"] is False
        assert kernels["ncclDevKernel_AllReduce_Sum_f32_RING_LL"]["occupancy"] is None
        ops = {o["name"]: o for o in ok(api, "operators", run="gpu", trace="w0.1.pt.trace.json")["operators"]}
        assert (ops["aten::mm"]["self_cpu"], ops["aten::mm"]["self_device"]) == (90, 300)
        assert ops["aten::copy_"]["self_device"] == 50
        assert (ops["ProfilerStep#5"]["self_device"], ops["ProfilerStep#5"]["total_device"]) == (0, 650)
        memory = ok(api, "memory", run="gpu", trace="w0.1.pt.trace.json")["devices"]
        assert [d["device"] for d in memory] == ["CUDA:0"] and memory[0]["peak"] == {"ts": 155, "allocated": 5120}
        lanes = ok(api, "timeline", run="gpu", trace="w0.1.pt.trace.json")["lanes"]
        assert [lane["device"] for lane in lanes] == [False, True]
        ranks = ok(api, "ranks", run="gpu")
        assert [r["rank"] for r in ranks["ranks"]] == [0, 1]
        assert ranks["ranks"][0]["overlap"] == pytest.approx(100 / 300)
        assert ranks["ranks"][0]["idle"] == {"host_wait": 0, "kernel_wait": 0, "other": 150}
        assert ranks["late_collectives"] == [{"step": 5, "straggler": 1, "delay": {"0": 0, "1": 150}}]


def test_broken_traces_answer_a_note_or_a_clear_error(tmp_path: Path, cache_dir: Path) -> None:
    whole = json.dumps(handmade.gpu_trace(0), indent=2).encode()
    odd = handmade.gpu_trace(0)
    odd["traceEvents"] += [
        {"ph": "X", "cat": "cpu_op", "name": "backwards", "pid": 1, "tid": 1, "ts": 5, "dur": -3},
        {"ph": "Q", "name": "strange"},
    ]
    logs = tmp_path / "logs"
    run_with(
        logs,
        "bad",
        {
            "cut.pt.trace.json": whole[: len(whole) * 2 // 3],
            "cutgz.pt.trace.json.gz": gzip.compress(whole)[: len(gzip.compress(whole)) // 2],
            "odd.pt.trace.json": json.dumps(odd).encode(),
            "text.pt.trace.json": b"this is not json at all",
            "empty.pt.trace.json": b"",
        },
    )
    with open(logs / "bad" / "huge.pt.trace.json", "wb") as huge:
        huge.truncate(9 << 30)  # sparse: 9 GiB that take no disk
    with in_process(logs) as api:
        response = api.get("/api/profile/overview", run="bad", trace="huge.pt.trace.json")
        assert response.status_code == 422 and "over the 8 GiB" in response.json()["error"]
        cut = ok(api, "overview", run="bad", trace="cut.pt.trace.json")
        assert any("cut short" in note for note in cut["notes"]) and cut["events"] > 0
        cutgz = ok(api, "overview", run="bad", trace="cutgz.pt.trace.json.gz")
        assert any("could not be read to its end" in note for note in cutgz["notes"])
        notes = ok(api, "overview", run="bad", trace="odd.pt.trace.json")["notes"]
        assert any("negative duration" in note for note in notes) and any("'Q': 1" in note for note in notes)
        for name in ("text.pt.trace.json", "empty.pt.trace.json"):
            response = api.get("/api/profile/overview", run="bad", trace=name)
            assert response.status_code == 422 and "not a Chrome trace" in response.json()["error"], name


def test_parsed_traces_are_cached_privately_and_read_back_the_same(gloo_logs: Path, cache_dir: Path) -> None:
    trace = names(gloo_logs)[0]
    with in_process(gloo_logs, cache=True) as api:
        first = ok(api, "operators", run="rank0", trace=trace)
    files = [path for path in cache_dir.rglob("*") if path.is_file()]
    assert files and all(path.suffix in (".npy", ".json") for path in files)
    assert all(stat.S_IMODE(os.stat(path).st_mode) == 0o600 for path in files)
    assert all(stat.S_IMODE(os.stat(path).st_mode) == 0o700 for path in cache_dir.iterdir() if path.is_dir())
    with in_process(gloo_logs, cache=True) as api:  # a new server: read from the cache directory
        assert ok(api, "operators", run="rank0", trace=trace) == first


def test_no_cache_reaches_the_trace_cache(gloo_logs: Path, cache_dir: Path) -> None:
    """``--no-cache`` (a log directory opened with cache=False): traces are parsed, answered, and never written to
    or read from the cache directory."""
    trace = names(gloo_logs)[0]
    with in_process(gloo_logs, cache=True) as api:
        cached = ok(api, "operators", run="rank0", trace=trace)
    assert cache_dir.is_dir()
    shutil.rmtree(cache_dir)
    with in_process(gloo_logs, cache=False) as api:
        assert ok(api, "operators", run="rank0", trace=trace) == cached
        assert ok(api, "overview", run="rank0", trace=trace)["steps"]
    assert not cache_dir.exists()


def test_the_trace_cache_follows_the_log_directory_cache_dir(gloo_logs: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    logdir = ridgeline.open(str(gloo_logs), cache_dir=elsewhere)
    try:
        with TestClient(create_app(logdir)) as client:
            trace = names(gloo_logs)[0]
            response = client.get("/api/profile/overview", params={"run": "rank0", "trace": trace})
            assert response.status_code == 200, response.text
    finally:
        logdir.provider.close()
    assert [path.name for path in (elsewhere / "profile").iterdir()]


def test_a_rewritten_trace_is_read_again_and_its_old_columns_dropped(tmp_path: Path, cache_dir: Path) -> None:
    logs = tmp_path / "logs"
    directory = run_with(logs, "gpu", {"w.1.pt.trace.json": json.dumps(handmade.gpu_trace(0)).encode()})
    with in_process(logs, cache=True) as api:
        assert ok(api, "overview", run="gpu", trace="w.1.pt.trace.json")["steps"][0]["step"] == 5
        first = sorted(path.name for path in cache_dir.iterdir())
        rewritten = handmade.gpu_trace(0)
        for event in rewritten["traceEvents"]:
            if event.get("name") == "ProfilerStep#5":
                event["name"] = "ProfilerStep#6"
        (directory / "w.1.pt.trace.json").write_text(json.dumps(rewritten, indent=1))
        assert ok(api, "overview", run="gpu", trace="w.1.pt.trace.json")["steps"][0]["step"] == 6
    second = sorted(path.name for path in cache_dir.iterdir())
    assert len(first) == len(second) == 1 and first != second


def test_profiled_steps_are_the_training_steps_of_the_schedule(gloo_api: Api, gloo_logs: Path) -> None:
    """tests/profile/job.py calls prof.step() once per training step from step 0 under schedule(wait=1, warmup=1,
    active=3): its traces cover training steps 2, 3 and 4, each rank's step time that of its ProfilerStep#N span."""
    answer = ok(gloo_api, "steps", run="rank0")
    assert answer["problems"] == []
    assert sorted({row["step"] for row in answer["steps"]}) == [2, 3, 4]
    logged = ridgeline.open(str(gloo_logs), cache=False).scalars("rank0", "loss").step.tolist()
    assert {row["step"] for row in answer["steps"]} <= set(logged)
    for path in trace_files(gloo_logs):
        spans = {
            int(event["name"].split("#")[1]): event["dur"]
            for event in json.loads(path.read_text())["traceEvents"]
            if event.get("ph") == "X" and str(event.get("name", "")).startswith("ProfilerStep#")
        }
        rows = {row["step"]: row["time"] for row in answer["steps"] if row["trace"] == path.name}
        assert rows.keys() == spans.keys()
        assert all(rows[step] == pytest.approx(spans[step], rel=1e-6) for step in spans)


def test_profiled_steps_name_a_trace_that_cannot_be_read(tmp_path: Path, cache_dir: Path) -> None:
    logs = tmp_path / "logs"
    run_with(
        logs,
        "gpu",
        {"w.1.pt.trace.json": json.dumps(handmade.gpu_trace(0)).encode(), "bad.pt.trace.json": b"not a trace"},
    )
    with in_process(logs) as api:
        answer = ok(api, "steps", run="gpu")
    assert [row["step"] for row in answer["steps"]] == [5]
    assert [p["trace"] for p in answer["problems"]] == ["bad.pt.trace.json"]
