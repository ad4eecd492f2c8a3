"""Two-player Dudo (Neller & Hnath 2011), by role; docs/architecture.md draws the layers.

What is served: a store's rows (``store``: the on-disk format; ``abstraction``: the bounded-memory information
sets its keys come from), built by ``build`` (``solve_game`` trains every round group with ``solvers.abstract_cfr``,
the perfect-recall groups with ``solvers.tree_cfr``; ``measure`` states each round's exploitability). Round by
round ``policy`` says whether the server answers from the row, re-solves the endgame or searches (``search``);
the live tasks it runs for that are in ``serving``. ``reference`` holds the independent oracles the tests check
all of this against; they are never served."""
