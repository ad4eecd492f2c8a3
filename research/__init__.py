"""Studies and designs that are not served: the measurements behind the docs pages, run by hand
(``python -m research.<module>``), and the designs that lost or were never adopted. Nothing of the product
imports this package (an import-linter contract in pyproject.toml holds it); a study may import any package.

Dudo: ``dudo`` (Neller & Hnath's figures, memory tables, bounds: docs/dudo.md), ``dudo_cfrbr``, ``dudo_curve``,
``dudo_lbr``, ``dudo_memory`` (the memories and bounds of the profiles, docs/dudo.md), ``dudo_endgame`` (what
endgame re-solving buys), ``dudo_design`` (docs/dudo-design.md), ``dudo_walk`` (docs/dudo-walk.md),
``dudo_search5`` and ``dudo_responder`` (docs/dudo-search-serving.md), ``dudo_sparse``, ``dudo_sparse_prune``, ``dudo_sparse_reach`` with
the two designs they measure, ``dudo_pruning`` (regret-based pruning, the design that lost) and ``dudo_summary``
(coarse memories, never adopted) (docs/dudo-sparse.md).

Jotto: ``jotto_strength`` and ``jotto_jots`` (docs/jotto.md), ``jotto_exact``, ``jotto_exact_br``,
``jotto_bracket`` and ``jotto_cert3`` (docs/jotto-exact.md) with the 3-letter certification it runs:
``jotto_colgen`` (column generation with heuristic pricing), ``jotto_ratchet`` (a ratchet of cutoff searches) and
``jotto_subgame`` (the hider-restricted subgame).
"""
