"""GET /api/distributed/runs and /api/distributed/series, in process, over a simulated 3-rank job written with
ridgeline's writer: sync records with rank 2 late at every step, rank 1's clock 2 s ahead."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline import SummaryWriter
from tests.conftest import wait_until
from tests.plugins.conftest import Api, in_process
from tests.plugins.distributed.job_logs import STEPS, write_job


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Api:
    root = tmp_path_factory.mktemp("distributed")
    write_job(root)
    with in_process(root) as served:
        yield served  # type: ignore[misc]


def test_runs_lists_the_distributed_run_with_offsets_and_the_straggler(api: Api) -> None:
    body = api.get("/api/distributed/runs").json()
    assert [run["run"] for run in body["runs"]] == ["job"]
    job = body["runs"][0]
    assert job["world_size"] == 3 and job["clock_source"] == "sync"
    assert job["tags"] == ["loss", "sys/cpu/system_percent"]
    by_rank = {rank["rank"]: rank for rank in job["ranks"]}
    assert by_rank[1]["offset_ms"] == pytest.approx(2000, abs=1e-3)
    assert by_rank[2]["straggler"] and not by_rank[0]["straggler"]
    assert by_rank[2]["score"] == pytest.approx(0.10 / 0.14, abs=1e-4) and by_rank[2]["flagged"]
    assert job["straggler"]["rank"] == 2
    assert job["straggler"]["cost_s"] == pytest.approx(STEPS * 0.08, abs=1e-4)  # float32 waits, float64 times
    assert job["sync_delay_ms"]["median"] == pytest.approx(40, abs=1e-3)


def test_series_aggregates_by_step_and_aligns_each_ranks_line(api: Api) -> None:
    body = api.get("/api/distributed/series", run="job", tag="loss").json()
    assert body["step"] == list(range(STEPS))
    assert body["mean"][0] == pytest.approx(11.0) and body["min"][0] == pytest.approx(10.0)
    assert body["min_rank"][0] == 0 and body["max_rank"][0] == 2 and body["count"][0] == 3
    lines = {line["rank"]: line for line in body["ranks"]}
    # Aligned: rank 1's clock is 2 s ahead, yet all ranks start at (relative) time 0 and keep step.
    assert [line["time"][0] for line in lines.values()] == pytest.approx([0, 0, 0], abs=1e-6)
    assert lines[1]["time"] == pytest.approx(lines[0]["time"], abs=1e-6)


def test_series_without_lines_is_the_aggregate_alone(api: Api) -> None:
    full = api.get("/api/distributed/series", run="job", tag="loss").json()
    bare = api.get("/api/distributed/series", run="job", tag="loss", lines="false").json()
    assert bare["ranks"] == [] and len(full["ranks"]) == 3
    assert bare == {**full, "ranks": []}


def test_runs_with_first_chart_inline_the_series_of_the_first_tag(api: Api) -> None:
    """What the page draws first comes with the run list: the same answer as the separate series request."""
    series = api.get("/api/distributed/series", run="job", tag="loss", lines="false").json()
    for asked in ("job", "", "not-a-run"):  # a name the page has no run for: the first run, as the page shows
        body = api.get("/api/distributed/runs", first_chart=asked).json()
        assert body["first_chart"] == series, asked
        assert body["runs"] == api.get("/api/distributed/runs").json()["runs"]
    assert "first_chart" not in api.get("/api/distributed/runs").json()


def test_points_reduce_the_aggregate_for_a_chart_and_first_chart_the_same(tmp_path: Path) -> None:
    for rank in range(4):
        with SummaryWriter(tmp_path / "job", rank=rank) as writer:
            for step in range(3000):
                writer.add_scalar("loss", 1.0 / (step + 1) + rank + (50.0 if (rank, step) == (2, 1234) else 0.0), step)
    with in_process(tmp_path) as served:
        full = served.get("/api/distributed/series", run="job", tag="loss", lines="false").json()
        small = served.get("/api/distributed/series", run="job", tag="loss", lines="false", points=500).json()
        first = served.get("/api/distributed/runs", first_chart="job", first_chart_points=500).json()["first_chart"]
        whole = served.get("/api/distributed/series", run="job", tag="loss", lines="false", points=5000).json()
        too_few = served.get("/api/distributed/series", run="job", tag="loss", lines="false", points=2)
    assert (full["reduced"], full["total_points"], len(full["step"])) == (False, 3000, 3000)
    assert small["reduced"] and small["total_points"] == 3000 and 2 < len(small["step"]) <= 500
    assert small["step"][0] == 0 and small["step"][-1] == 2999
    assert max(small["max"]) == max(full["max"]) and min(small["min"]) == min(full["min"])  # the spike stays
    assert first == small
    assert whole == full  # a budget the series fits in changes nothing
    assert too_few.status_code in (400, 422)


def test_first_chart_is_null_when_the_run_logs_only_system_metrics(tmp_path: Path) -> None:
    for rank in (0, 1):
        with SummaryWriter(tmp_path / "job", rank=rank) as writer:
            writer.add_scalar("sys/cpu/system_percent", 50.0, 0)
    with in_process(tmp_path) as served:
        body = served.get("/api/distributed/runs", first_chart="job").json()
    assert [run["tags"] for run in body["runs"]] == [["sys/cpu/system_percent"]]
    assert body["first_chart"] is None


def test_unknown_runs_and_tags_are_404_naming_them(api: Api) -> None:
    missing = api.get("/api/distributed/series", run="nope", tag="loss")
    assert missing.status_code == 404 and "no distributed run 'nope'" in missing.json()["error"]
    untagged = api.get("/api/distributed/series", run="job", tag="acc")
    assert untagged.status_code == 404 and "'acc'" in untagged.json()["error"]
    assert api.get("/api/distributed/series", run="job").status_code in (400, 422)


def test_a_restarted_job_stays_one_run_with_a_restart_marker_per_rank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "elastic-7")
    monkeypatch.setenv("WORLD_SIZE", "2")
    for restart in ("0", "1"):  # the job ran, died, and torchrun restarted it into the same directories
        monkeypatch.setenv("TORCHELASTIC_RESTART_COUNT", restart)
        for rank in (0, 1):
            monkeypatch.setenv("RANK", str(rank))
            with SummaryWriter(tmp_path / "job") as writer:
                writer.add_scalar("loss", 1.0, int(restart) * 10)
    with in_process(tmp_path) as served:
        (job,) = served.get("/api/distributed/runs").json()["runs"]
    assert job["run"] == "job" and job["world_size"] == 2
    assert [(r["rank"], r["restart_count"]) for r in job["restarts"]] == [(0, 1), (1, 1)]
    assert {r["run_id"] for r in job["ranks"]} == {"elastic-7"}
    assert [r["restart_count"] for r in job["ranks"]] == [0, 0]  # each rank's first record: the job's first start


def test_load_balance_from_gpu_utilisation_and_queue_depth(tmp_path: Path) -> None:
    """Rank 1's GPU idles at 40 % while rank 0's runs at 95 %, and its data-loader queue is empty every other step."""
    for rank, utilisation in ((0, 95.0), (1, 40.0)):
        with SummaryWriter(tmp_path / "job", rank=rank) as writer:
            for sample in range(20):
                wall = 1_700_000_000.0 + sample * 10
                writer.add_scalar("sys/gpu0/utilization_percent", utilisation, sample, walltime=wall)
                depth = 0.0 if rank == 1 and sample % 2 else 4.0
                writer.add_scalar("data/queue_depth", depth, sample, walltime=wall + 0.5)
    with in_process(tmp_path) as served:
        (job,) = served.get("/api/distributed/runs").json()["runs"]
    balance = job["load_balance"]
    assert balance["gpu_utilisation_std_pp"] == pytest.approx(27.5)
    assert balance["gpu_utilisation_flagged"] is True
    assert balance["input_bound_ranks"] == [1]


def test_the_aggregate_follows_a_growing_job(tmp_path: Path) -> None:
    """The aggregates kept between requests are those of the log directory as it is: new steps show."""
    writers = [SummaryWriter(tmp_path / "job", rank=rank) for rank in (0, 1)]
    try:
        for rank, writer in enumerate(writers):
            writer.add_scalar("loss", 1.0 + rank, 0)
            writer.flush()
        with in_process(tmp_path, reload_interval=0.1) as served:

            def steps() -> list[int]:
                body = served.get("/api/distributed/runs", first_chart="job").json()
                return list(body["first_chart"]["step"]) if body["runs"] else []

            wait_until(lambda: steps() == [0], "the job's first step")
            for rank, writer in enumerate(writers):
                writer.add_scalar("loss", 3.0 + rank, 1)
                writer.flush()
            wait_until(lambda: steps() == [0, 1], "the step logged since, in first_chart")
            bare = served.get("/api/distributed/series", run="job", tag="loss", lines="false").json()
            assert bare["mean"] == [1.5, 3.5]
    finally:
        for writer in writers:
            writer.close()
