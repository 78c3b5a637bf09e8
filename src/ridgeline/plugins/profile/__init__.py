"""The profile dashboard: PyTorch profiler traces of a run (what ``torch.profiler.tensorboard_trace_handler``
writes beside the event files), with the views the TensorBoard profiler plugin had (overview, operators, kernels,
memory, a timeline) and comparisons across ranks. Its routes are ``/api/profile/...``."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.profile.routes import router

plugin = BuiltinPlugin(name="profile", router=router, order=115)

__all__ = ["plugin"]
