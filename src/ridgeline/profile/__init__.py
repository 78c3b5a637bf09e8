"""Reading PyTorch profiler traces (Kineto's Chrome-trace JSON): a streaming parser into columns
(:mod:`~ridgeline.profile.split`, :mod:`~ridgeline.profile.parse`), their cache (:mod:`~ridgeline.profile.cache`)
and the views computed from them (overview, operators and kernels, memory, timeline windows, comparisons across
ranks). It reads files it is given and imports nothing of ridgeline outside itself; the service
(:mod:`ridgeline.services.profile`) finds the traces of a run."""
