"""Benchmarks: printed tables of speed and memory, each beside a baseline run in the same process. They may
import every package but research.

Run by ``make bench``: ``jotto`` (the Jotto solver and in-process serving), ``dudo_kernel`` (the Dudo kernel's
reference order against the vectorised one), ``load`` (the server process under load from a separate load
process, gRPC and HTTP), ``liveload`` (book hits while live requests run), ``abuse`` (normal calls beside each
abuse of the network surface) and ``dudo_served`` (the served Dudo under load; it plays its games with
``review_latency.dudo_game``).

Operational benchmarks, run by hand before a change to building or serving: ``load refresh-run`` (``make
bench-refresh``: a store swapped in under load), ``review_latency`` (the time to review a game), ``dudo_search_served``
(searched Dudo moves as served), ``storecheck`` (the cost of verifying a store before it is served),
``multihost`` (three hosts behind HAProxy through kills, cut links and a rolled store), ``cold_build`` (a fresh
clone's numba compile), ``fresh_serve`` (a fresh clone's first ``make serve``), ``serve_while_building``,
``dudo_build_phases`` and ``dudo_pipelined`` (the default Dudo store's build time), ``dudo_cost`` (the
calibration of the cost model of training a group, games.dudo.cost), ``build_progress`` (the build progress
``/readyz`` says against the build's real progress).

Studies behind the docs pages are in research/."""
