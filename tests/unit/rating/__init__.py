"""Tests of ``arena_rating``.

OpenBLAS is limited to one thread before anything imports NumPy, as ``arena_rating`` does for
its own process: the fits work on small matrices, and spinning BLAS threads on a busy test
machine make them many times slower.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
