"""Benchmarks (`make bench`): printed tables of speed and memory, each beside a baseline run in the same
process. ``jotto``: Jotto solver and in-process serving; ``load``: the server process under load from a
separate load process; ``dudo``: the Dudo solvers. They may import every package."""
