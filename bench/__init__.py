"""Benchmarks (`make bench`): printed tables of speed and memory, each beside a baseline run in the same
process. ``jotto``: Jotto solver and in-process serving; ``load``: the server process under load from a
separate load process; ``dudo``: the Dudo solvers. ``storecheck`` (operational, not in `make bench`): the cost of
verifying a store before it is served. They may import every package."""
