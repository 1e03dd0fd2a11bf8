"""Test-wide settings: hypothesis without its per-example deadline, and one BLAS thread
per pytest-xdist worker.

Speed is measured in ``benchmarks/``, never in tests; hypothesis's default 200 ms
deadline turned a loaded CI machine into failures of correct code. The workers already
take every core (``-n auto``): a BLAS pool of one thread per core in each of them
oversubscribed the machine (the full suite took about 10% longer). Set here, before any
test module imports NumPy, and only in a worker: ``-n0`` runs keep the default.
"""

import os

if "PYTEST_XDIST_WORKER" in os.environ:
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")

from hypothesis import settings

settings.register_profile("privcut", deadline=None)
settings.load_profile("privcut")
