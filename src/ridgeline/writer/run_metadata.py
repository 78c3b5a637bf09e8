"""What a run records about itself once, at creation: where, when, how it was started, and from which code.

Stored as a text summary under ``RUN_METADATA_TAG`` (:mod:`ridgeline.format.tags`) holding a fenced JSON block
(:mod:`ridgeline.format.run_metadata`), under the plugin name ``RUN_METADATA_PLUGIN``: TensorBoard's text
dashboard does not claim it (it showed the record as the first text section of every run), ridgeline reads it as
text, and the files written before, which name the text plugin, the same way.
Annotations use ``ANNOTATION_TAG`` the same way (plain text).

How the writer ended is recorded the same way, under ``RUN_END_TAG``, when it is closed and at interpreter exit
(:func:`run_end_summary`): ``{"status": "finished" | "failed", "end_time", "error"?, "traceback"?}``. A run whose
process was killed has none; ``ridgeline.store.status`` tells it crashed from its files' age.

Under a distributed launcher the record also says which rank wrote it (``distributed``): torchrun's run id and
restart count, the rank, local rank, world size and group (node) rank, as the launcher's environment gives them.
``RANK`` alone does not identify a process across restarts (an elastic restart may renumber the ranks), so the
reader keys a rank by (run id, restart count, rank, host) — host and pid are recorded for every run.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ridgeline.format.proto import plugins_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from ridgeline.format.run_metadata import render
from ridgeline.format.tags import RUN_END_TAG, RUN_METADATA_PLUGIN, RUN_METADATA_TAG, TEXT_PLUGIN

_GIT_TIMEOUT_S = 2.0
MAX_TRACEBACK = 16 << 10  # characters of a failure's traceback kept in the end record (its last ones)

# The launcher's variables recorded per rank: (key in the record, environment variable, integer?).
_DISTRIBUTED_VARIABLES = (
    ("run_id", "TORCHELASTIC_RUN_ID", False),
    ("restart_count", "TORCHELASTIC_RESTART_COUNT", True),
    ("rank", "RANK", True),
    ("local_rank", "LOCAL_RANK", True),
    ("world_size", "WORLD_SIZE", True),
    ("group_rank", "GROUP_RANK", True),
)


def text_summary(tag: str, text: str, plugin_name: str = TEXT_PLUGIN) -> summary_pb2.Summary:
    """A text-plugin summary under exactly ``tag`` (add_text appends '/text_summary'; reserved tags do not), under
    ``plugin_name`` (a string tensor with the text plugin's content, whatever the name)."""
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name=plugin_name, content=plugins_pb2.TextPluginData(version=0).SerializeToString()
        )
    )
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        string_val=[text.encode("utf-8")],
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=1)]),
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)])


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            # --no-optional-locks: `git status` would otherwise refresh the index under .git/index.lock, so a
            # training run could make the user's own git command fail (and leave the lock behind if killed).
            ["git", "--no-optional-locks", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _git_info(start: Path) -> dict[str, Any] | None:
    """The commit and dirty flag of the repository holding ``start``, or None outside one."""
    if not any((folder / ".git").exists() for folder in (start, *start.parents)):
        return None  # not a repository: no subprocess at all
    commit = _git(["rev-parse", "HEAD"], start)
    if commit is None:
        return None
    status = _git(["status", "--porcelain", "--untracked-files=no"], start)
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def _as_int(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text  # kept as written: the record never drops what the launcher said


def distributed_identity(rank: int | None = None) -> dict[str, Any] | None:
    """Which rank of which job this process is, from the launcher's environment (torchrun, torch.distributed.launch,
    or any launcher that sets ``RANK``); ``rank`` given to the writer wins over ``RANK``. None outside a job."""
    identity: dict[str, Any] = {}
    for key, variable, integer in _DISTRIBUTED_VARIABLES:
        value = os.environ.get(variable)
        if value is not None:
            identity[key] = _as_int(value) if integer else value
    if rank is not None:
        identity["rank"] = rank
    return identity or None


def metadata_step() -> int | None:
    """The step the run metadata record is written at: the job's restart count under torchelastic, so that each
    restart's record stays visible beside the earlier ones (a record at the same step would supersede them), else
    None (step 0)."""
    try:
        count = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    except (KeyError, ValueError):
        return None
    return count if count >= 0 else None


def collect(start_time: float, rank: int | None = None) -> dict[str, Any]:
    """The environment of this process, as plain JSON-able values (``rank``: the writer's, when it was given one)."""
    script = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else Path.cwd()
    info: dict[str, Any] = {
        "start_time": start_time,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "command": sys.argv,
        "cwd": os.getcwd(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git": _git_info(script if script.is_dir() else Path.cwd()),
    }
    versions = {}
    for module in ("torch", "numpy", "tensorflow", "jax", "lightning", "transformers"):
        loaded = sys.modules.get(module)
        version = getattr(loaded, "__version__", None)
        if version is not None:
            versions[module] = str(version)
    info["versions"] = versions
    identity = distributed_identity(rank)
    if identity is not None:
        info["distributed"] = identity
    return info


def run_metadata_summary(start_time: float | None = None, rank: int | None = None) -> summary_pb2.Summary:
    text = render(collect(time.time() if start_time is None else start_time, rank))
    return text_summary(RUN_METADATA_TAG, text, RUN_METADATA_PLUGIN)


def run_end_summary(failed: bool, error: BaseException | str | None = None) -> summary_pb2.Summary:
    """The end record: ``finished``, or ``failed`` with what failed (an exception: its message and traceback)."""
    info: dict[str, Any] = {"status": "failed" if failed else "finished", "end_time": time.time()}
    if isinstance(error, BaseException):
        import traceback

        info["error"] = f"{type(error).__name__}: {error}".strip().removesuffix(":")
        text = "".join(traceback.format_exception(error)).rstrip("\n")
        info["traceback"] = text[-MAX_TRACEBACK:]
    elif error:
        info["error"] = error
    return text_summary(RUN_END_TAG, render(info), RUN_METADATA_PLUGIN)  # not in TensorBoard's text tab either
