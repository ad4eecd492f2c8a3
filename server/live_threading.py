"""Imported first by the live pool's forkserver (``server.live``), before any kernel runs there: numba's
parallel kernels in live workers use the ``workqueue`` threading layer, which is fork-safe.  GNU OpenMP's is
not: a worker forked from a forkserver that ever launched OpenMP threads aborts at its first parallel kernel
("fork() called from a process already using GNU OpenMP").  A worker runs one computation at a time, so the
layer's limit (one parallel launch at a time per process) always holds.  The threads' split of the work is the
kernels' own, so the layer changes no answer."""
import numba

numba.config.THREADING_LAYER = "workqueue"
