"""Solvers of one Dudo round group: the numba kernels (``kernels``), CFR+ on the abstract DAG
(``abstract_cfr``: full-width FSICFR, the builder's solver), vector CFR+ on the perfect-recall tree
(``tree_cfr``) and the training loop both share (``training``)."""
