"""The node values' precision: float64 up to 1 GB, float32 past it (half the memory and its traffic in the
largest groups; the sums over them stay float64, ``kernels.dot_fixed``). One rule for the solver, the bound,
the improvement and the cost model."""
from __future__ import annotations

import numpy as np

F64_MAX_BYTES = 1 << 30


def node_value_dtype(n_values: int):
    """The dtype of ``n_values`` node values."""
    return np.float64 if n_values * 8 <= F64_MAX_BYTES else np.float32


def node_value_bytes(n_values: int) -> int:
    """Their bytes in that dtype."""
    return int(n_values * np.dtype(node_value_dtype(n_values)).itemsize)
