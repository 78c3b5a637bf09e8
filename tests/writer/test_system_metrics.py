"""System metrics: sampled into sys/ tags by a background thread, on this machine (GPU tags exactly when NVML finds
a GPU: absent without one, and no error); the NVML readings' conversion checked through a stand-in for the pynvml
module (the NVIDIA library cannot be loaded without a driver) answering values typical of an H100 80GB, written by
hand in NVML's units."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.writer.system_metrics import GpuSampler, SystemMetrics
from tests.conftest import wait_until

HOST_TAGS = {
    "sys/cpu/process_percent",
    "sys/cpu/system_percent",
    "sys/memory/process_rss_mib",
    "sys/memory/system_used_mib",
    "sys/memory/system_percent",
}


def test_system_metrics_land_in_sys_tags_and_gpu_tags_only_where_there_is_a_gpu(tmp_path: Path) -> None:
    writer = SummaryWriter(tmp_path, per_rank=False, system_metrics=0.05)
    sampler = writer._system_metrics
    wait_until(lambda: sampler.samples >= 3, "three system metric samples")
    gpus = sampler.gpus
    writer.close()
    logdir = ridgeline.open(tmp_path)
    tags = set(logdir.tags(".")["scalars"])
    assert tags >= HOST_TAGS
    assert "sys/network/sent_mib_per_s" in tags  # a rate: from the second sample on
    assert any(tag.startswith("sys/gpu") for tag in tags) == gpus
    rss = logdir.scalars(".", "sys/memory/process_rss_mib")
    assert len(rss) >= 3 and rss.step.tolist()[:3] == [0, 1, 2] and (rss.value > 1).all()


def test_log_system_metrics_samples_into_any_writer_until_stopped(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, per_rank=False) as writer:
        sampler = ridgeline.log_system_metrics(writer, interval=0.05)
        wait_until(lambda: sampler.samples >= 1, "a system metric sample")
        sampler.stop()
        count = sampler.samples
    assert len(ridgeline.open(tmp_path).scalars(".", "sys/cpu/system_percent")) == count


@pytest.mark.parametrize("interval", [0, -1, True, "10"])
def test_a_bad_interval_is_refused_naming_the_argument(tmp_path: Path, interval: Any) -> None:
    with pytest.raises(ValueError, match="SummaryWriter: system_metrics must be a positive number of seconds"):
        SummaryWriter(tmp_path, system_metrics=interval if interval is not True else 0.0)
    with SummaryWriter(tmp_path / "w", per_rank=False) as writer, pytest.raises(ValueError, match="interval"):
        ridgeline.log_system_metrics(writer, interval=interval)


class NVMLError(Exception):
    pass


def handwritten_nvml(*, power: bool = True, gpm: bool = True, init_fails: bool = False) -> SimpleNamespace:
    """The pynvml calls the sampler makes, answering values typical of an H100 80GB in NVML's units (bytes,
    milliwatts, MHz; written by hand, not recorded); device 1 optionally without a power reading, as some boards."""
    gib = 1 << 30

    def init() -> None:
        if init_fails:
            raise NVMLError("NVML Shared Library Not Found")

    def power_usage(handle: int) -> int:
        if not power and handle == 1:
            raise NVMLError("Not Supported")
        return 312_456 if handle == 0 else 98_000

    class MetricsGet:
        def __init__(self) -> None:
            self.metrics = [SimpleNamespace(metricId=0, nvmlReturn=0, value=0.0)]

    def metrics_get(request: MetricsGet) -> MetricsGet:
        # Only the pair (previous sample, this one) in that order gives the reading.
        paired = (request.sample1, request.sample2) == ("sample-0", "sample-1")
        request.metrics[0].value = 87.25 if paired and request.metrics[0].metricId == 2 else 0.0
        return request

    samples = iter(f"sample-{i}" for i in range(100))
    return SimpleNamespace(
        NVMLError=NVMLError,
        NVML_TEMPERATURE_GPU=0,
        NVML_CLOCK_SM=1,
        NVML_SUCCESS=0,
        NVML_GPM_METRICS_GET_VERSION=1,
        NVML_GPM_METRIC_SM_UTIL=2,
        nvmlInit=init,
        nvmlDeviceGetCount=lambda: 2,
        nvmlDeviceGetHandleByIndex=lambda index: index,
        nvmlDeviceGetUtilizationRates=lambda h: SimpleNamespace(gpu=[97, 12][h], memory=40),
        nvmlDeviceGetMemoryInfo=lambda h: SimpleNamespace(used=[61 * gib, 2 * gib][h], total=80 * gib, free=0),
        nvmlDeviceGetTemperature=lambda h, sensor: [71, 38][h],
        nvmlDeviceGetPowerUsage=power_usage,
        nvmlDeviceGetClockInfo=lambda h, clock: [1980, 345][h],
        nvmlGpmQueryDeviceSupport=lambda h: SimpleNamespace(isSupportedDevice=int(gpm and h == 0)),
        nvmlGpmSampleAlloc=lambda: next(samples),
        nvmlGpmSampleGet=lambda h, sample: sample,
        nvmlGpmSampleFree=lambda sample: None,
        c_nvmlGpmMetricsGet_t=MetricsGet,
        nvmlGpmMetricsGet=metrics_get,
    )


def test_nvml_readings_become_gpu_tags_in_their_units() -> None:
    sampler = GpuSampler.from_module(handwritten_nvml(power=False), local_rank=None)
    assert sampler is not None
    readings = sampler.sample()
    assert readings["sys/gpu0/utilization_percent"] == 97
    assert readings["sys/gpu0/memory_used_mib"] == 61 * 1024 and readings["sys/gpu0/memory_total_mib"] == 80 * 1024
    assert readings["sys/gpu0/temperature_c"] == 71 and readings["sys/gpu0/sm_clock_mhz"] == 1980
    assert readings["sys/gpu0/power_w"] == pytest.approx(312.456)
    assert readings["sys/gpu0/sm_active_percent"] == 87.25  # GPM: between the first and the second sample
    assert "sys/gpu1/power_w" not in readings and "sys/gpu1/sm_active_percent" not in readings
    assert readings["sys/gpu1/utilization_percent"] == 12


def test_a_rank_samples_only_its_own_gpu_and_no_driver_means_no_gpu_tags() -> None:
    sampler = GpuSampler.from_module(handwritten_nvml(), local_rank=1)
    assert sampler is not None and {tag.split("/")[1] for tag in sampler.sample()} == {"gpu1"}
    assert GpuSampler.from_module(handwritten_nvml(init_fails=True), local_rank=None) is None


def test_a_writer_with_stand_in_gpus_logs_their_tags(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, per_rank=False) as writer:
        sampler = SystemMetrics(writer, 60, gpu=GpuSampler.from_module(handwritten_nvml(), local_rank=None))
        sampler.sample_once()
        sampler.stop()
    tags = ridgeline.open(tmp_path).tags(".")["scalars"]
    assert "sys/gpu0/power_w" in tags and "sys/gpu1/temperature_c" in tags
