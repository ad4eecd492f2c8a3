"""Building a Dudo store: the bottom-up solve of every round group (``solve_game``), the budget that
sizes it (``budget``), the responders that improve its strategies (``cfrbr``) and the numba warm-up of a
build's processes (``warmup``)."""
