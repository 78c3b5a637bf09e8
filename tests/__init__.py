import os

# The suite runs as two xdist workers on two cores: each computes on one thread. torch's and the BLAS libraries'
# OpenMP pools default to a thread per core and spin-wait at every barrier; oversubscribed on a busy machine, a
# tiny torch training (tests/analysis/test_forecast.py's real runs) took 374 s instead of 28 s. Set here, before
# anything imports torch or numpy (this package is imported before its conftest); subprocesses inherit it.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
