"""System metrics sampled in the training process: CPU, memory, disk and network I/O, NVIDIA GPUs, into ``sys/…``.

``SummaryWriter(..., system_metrics=True)`` or ``ridgeline.log_system_metrics(writer, interval=10)`` starts a
daemon thread that every ``interval`` seconds reads

- the host through ``psutil``: ``sys/cpu/process_percent`` (this process, % of one core), ``sys/cpu/system_percent``
  (all cores, 0–100), ``sys/memory/process_rss_mib``, ``sys/memory/system_used_mib``, ``sys/memory/system_percent``,
  ``sys/disk/read_mib_per_s``, ``sys/disk/write_mib_per_s``, ``sys/network/sent_mib_per_s``,
  ``sys/network/recv_mib_per_s`` (rates over the last interval, so they start at the second sample);
- each NVIDIA GPU through NVML (``nvidia-ml-py``, imported lazily): ``sys/gpu{i}/utilization_percent`` (the
  share of time a kernel ran: a busy flag, not saturation), ``memory_used_mib``, ``memory_total_mib``,
  ``temperature_c``, ``power_w``, ``sm_clock_mhz`` and, where NVML's GPM metrics exist (Hopper and newer),
  ``sm_active_percent`` (the share of SMs busy: the saturation signal). Under a launcher that sets
  ``LOCAL_RANK``, a rank samples only its own GPU (index ``LOCAL_RANK``), so ranks on one node do not log each
  other's.

Without the package, without the driver or without GPUs the GPU tags are absent and nothing is raised; a reading a
device does not support (power on some boards) is left out of that device's tags. Each sample is logged at step =
the sample's number (0, 1, 2, ...) with its wall time.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

DEFAULT_INTERVAL_S = 10.0
_MIB = float(1 << 20)


class _Writer(Protocol):
    def add_scalar(self, tag: str, scalar_value: Any, global_step: Any = None, walltime: float | None = None) -> None:
        pass


Readings = dict[str, float]


class HostSampler:
    """CPU, memory, disk and network of this process and host, through psutil."""

    def __init__(self, psutil: ModuleType) -> None:
        self._psutil = psutil
        self._process = psutil.Process()
        self._process.cpu_percent(None)  # the first call only starts the measurement
        psutil.cpu_percent(None)
        self._last_time = time.monotonic()
        self._last_disk = _counters(psutil.disk_io_counters, "read_bytes", "write_bytes")
        self._last_net = _counters(psutil.net_io_counters, "bytes_sent", "bytes_recv")

    def sample(self) -> Readings:
        psutil = self._psutil
        readings: Readings = {
            "sys/cpu/process_percent": float(self._process.cpu_percent(None)),
            "sys/cpu/system_percent": float(psutil.cpu_percent(None)),
            "sys/memory/process_rss_mib": self._process.memory_info().rss / _MIB,
        }
        memory = psutil.virtual_memory()
        readings["sys/memory/system_used_mib"] = (memory.total - memory.available) / _MIB
        readings["sys/memory/system_percent"] = float(memory.percent)
        now = time.monotonic()
        elapsed = now - self._last_time
        disk = _counters(psutil.disk_io_counters, "read_bytes", "write_bytes")
        net = _counters(psutil.net_io_counters, "bytes_sent", "bytes_recv")
        if elapsed > 0:
            names = ("sys/disk/read_mib_per_s", "sys/disk/write_mib_per_s")
            readings.update(_rates(names, self._last_disk, disk, elapsed))
            names = ("sys/network/sent_mib_per_s", "sys/network/recv_mib_per_s")
            readings.update(_rates(names, self._last_net, net, elapsed))
        self._last_time, self._last_disk, self._last_net = now, disk, net
        return readings


def _counters(read: Callable[[], Any], *fields: str) -> tuple[int, ...] | None:
    """The named I/O counters, or None where the platform has none (a container without /proc/diskstats)."""
    try:
        counters = read()
    except (OSError, RuntimeError):
        return None
    if counters is None:
        return None
    return tuple(int(getattr(counters, field)) for field in fields)


def _rates(
    names: tuple[str, ...], before: tuple[int, ...] | None, after: tuple[int, ...] | None, elapsed: float
) -> Readings:
    if before is None or after is None:
        return {}
    # A counter that went back (wrapped, or a device removed) gives no rate for this interval rather than a negative.
    return {
        name: (new - old) / _MIB / elapsed for name, old, new in zip(names, before, after, strict=True) if new >= old
    }


class GpuSampler:
    """The NVIDIA GPUs through NVML: ``nvml`` is the ``pynvml`` module of nvidia-ml-py (or anything with its
    functions, constants and exception class ``NVMLError``)."""

    def __init__(self, nvml: Any, indices: list[int]) -> None:
        self._nvml = nvml
        self._devices = [(index, nvml.nvmlDeviceGetHandleByIndex(index)) for index in indices]
        self._gpm_previous: dict[int, Any] = {}
        for index, handle in self._devices:
            if self._gpm_supported(handle):
                self._gpm_previous[index] = self._gpm_sample(handle)

    @classmethod
    def open(cls, local_rank: int | None) -> GpuSampler | None:
        """A sampler over this rank's GPU (``local_rank``) or every GPU; None without nvidia-ml-py, driver or GPU."""
        try:
            import pynvml
        except ImportError:
            return None
        return cls.from_module(pynvml, local_rank)

    @classmethod
    def from_module(cls, nvml: Any, local_rank: int | None) -> GpuSampler | None:
        try:
            nvml.nvmlInit()
            count = int(nvml.nvmlDeviceGetCount())
        except nvml.NVMLError:
            return None  # no driver, no library, or no permission: the GPU tags are absent
        if count == 0:
            return None
        indices = [local_rank] if local_rank is not None and 0 <= local_rank < count else list(range(count))
        try:
            return cls(nvml, indices)
        except nvml.NVMLError:
            return None

    def sample(self) -> Readings:
        readings: Readings = {}
        for index, handle in self._devices:
            prefix = f"sys/gpu{index}/"
            for name, read in self._readers():
                try:
                    readings[prefix + name] = float(read(handle))
                except self._nvml.NVMLError:
                    continue  # not supported on this device, or a transient failure: absent this time
            if index in self._gpm_previous:
                with contextlib.suppress(self._nvml.NVMLError):
                    readings[prefix + "sm_active_percent"] = self._sm_active(index, handle)
        return readings

    def _readers(self) -> list[tuple[str, Callable[[Any], float]]]:
        nvml = self._nvml
        return [
            ("utilization_percent", lambda h: nvml.nvmlDeviceGetUtilizationRates(h).gpu),
            ("memory_used_mib", lambda h: nvml.nvmlDeviceGetMemoryInfo(h).used / _MIB),
            ("memory_total_mib", lambda h: nvml.nvmlDeviceGetMemoryInfo(h).total / _MIB),
            ("temperature_c", lambda h: nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU)),
            ("power_w", lambda h: nvml.nvmlDeviceGetPowerUsage(h) / 1000.0),  # NVML answers milliwatts
            ("sm_clock_mhz", lambda h: nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM)),
        ]

    def _gpm_supported(self, handle: Any) -> bool:
        query = getattr(self._nvml, "nvmlGpmQueryDeviceSupport", None)
        if query is None:
            return False  # an nvidia-ml-py older than GPM
        try:
            return bool(query(handle).isSupportedDevice)
        except self._nvml.NVMLError:
            return False

    def _gpm_sample(self, handle: Any) -> Any:
        sample = self._nvml.nvmlGpmSampleAlloc()
        return self._nvml.nvmlGpmSampleGet(handle, sample)

    def _sm_active(self, index: int, handle: Any) -> float:
        """SM activity between the previous GPM sample and now (NVML_GPM_METRIC_SM_UTIL, 0–100)."""
        nvml = self._nvml
        current = self._gpm_sample(handle)
        previous, self._gpm_previous[index] = self._gpm_previous[index], current
        request = nvml.c_nvmlGpmMetricsGet_t()
        request.version = nvml.NVML_GPM_METRICS_GET_VERSION
        request.numMetrics = 1
        request.sample1 = previous
        request.sample2 = current
        request.metrics[0].metricId = nvml.NVML_GPM_METRIC_SM_UTIL
        answer = nvml.nvmlGpmMetricsGet(request)
        nvml.nvmlGpmSampleFree(previous)
        metric = answer.metrics[0]
        if metric.nvmlReturn != nvml.NVML_SUCCESS:
            raise nvml.NVMLError(metric.nvmlReturn)
        return float(metric.value)


def _local_rank() -> int | None:
    try:
        return int(os.environ["LOCAL_RANK"])
    except (KeyError, ValueError):
        return None


class SystemMetrics:
    """The background sampler: started at construction, ended by :meth:`stop` (the writer's ``close``)."""

    def __init__(
        self,
        writer: _Writer,
        interval: float = DEFAULT_INTERVAL_S,
        *,
        method: str = "log_system_metrics",
        argument: str = "interval",
        gpu: GpuSampler | bool | None = True,
    ) -> None:
        if isinstance(interval, bool) or not isinstance(interval, int | float) or not interval > 0:
            raise ValueError(f"{method}: {argument} must be a positive number of seconds, got {interval!r}")
        try:
            import psutil
        except ImportError:
            raise ImportError(
                f"{method}: system metrics need psutil (pip install 'ridgeline[system]', which adds nvidia-ml-py "
                "for GPUs)"
            ) from None
        self.interval = float(interval)
        self._writer = writer
        self._host = HostSampler(psutil)
        self._gpu = GpuSampler.open(_local_rank()) if gpu is True else (gpu or None)
        self._stop = threading.Event()
        self._count = 0
        self._thread = threading.Thread(target=self._run, name="ridgeline-system-metrics", daemon=True)
        self._thread.start()

    @property
    def samples(self) -> int:
        """How many samples were logged so far."""
        return self._count

    @property
    def gpus(self) -> bool:
        """Whether GPU figures are being sampled."""
        return self._gpu is not None

    def sample_once(self) -> Readings:
        """Read everything now and log it (the thread calls this every interval)."""
        readings = self._host.sample()
        if self._gpu is not None:
            readings.update(self._gpu.sample())
        wall_time = time.time()
        for tag, value in readings.items():
            self._writer.add_scalar(tag, value, self._count, wall_time)
        self._count += 1
        return readings

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sample_once()
            except Exception:  # a sampler must never take the training process down; the writer raises its own
                if self._stop.is_set():
                    return
                continue

    def stop(self) -> None:
        """End the thread (returns once it has ended)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()


def log_system_metrics(writer: _Writer, interval: float = DEFAULT_INTERVAL_S) -> SystemMetrics:
    """Sample system metrics into ``writer`` every ``interval`` seconds until ``.stop()`` (module docstring)."""
    return SystemMetrics(writer, interval)
