"""Present stores whose recorded parameters are not the ones a profile would build with now.

``make serve`` builds only the stores that are missing, so after a checkout changes a profile the stores
already present keep being served as they were built; this names them and what differs: parameters, or
the ``word list`` (a Jotto or Hangman store built before the playable lists changed, e.g. before the unfit
words went out of them: games/data/README.md)."""
from __future__ import annotations

import json
from pathlib import Path

from builder.recorded import recorded_parameters
from games.storage import Store, StoreError


def stale_stores(plan: dict, present: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """[(variant, names of the parameters that differ)] for every variant of ``plan`` ({variant: params})
    with a store in ``present`` ({variant: version directory}) built with other parameters."""
    out = []
    for variant, params in plan.items():
        if variant not in present:
            continue
        try:
            store = Store(present[variant])
        except StoreError:
            continue            # an unreadable store is the server's to report
        try:
            got = store.manifest.get("parameters") or {}
            words_differ = word_list_differs(store, variant)
        finally:
            store.close()
        want = json.loads(json.dumps(recorded_parameters(params)))     # as the manifest reads back
        differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        differ += ["word list"] if words_differ else []
        if differ:
            out.append((variant, differ))
    return out


def word_list_differs(store: Store, variant: str) -> bool:
    """A Jotto or Hangman store whose words are not the list its variant has now."""
    m = store.manifest
    if m.get("game") == "jotto":
        from games.jotto.dictionary import load_dictionary
        return (m.get("dictionary") or {}).get("sha256") != load_dictionary(variant).sha256
    if m.get("game") == "hangman":
        import numpy as np

        from games.hangman.game import lexicon
        from games.hangman.store import CODES
        source = (m.get("parameters") or {}).get("source", "en_US50")
        return not np.array_equal(store.array(CODES), lexicon(source, int(m["length"])).codes)
    return False


def stale_notice(variant: str, differ: list[str], profile: str) -> str:
    """The one line ``--missing-only`` prints for a stale store."""
    return (f"gamestrategy-build: {variant}: the store present was built with other {', '.join(differ)} than the "
            f"{profile} profile now has; it is kept and served as it is (`python -m builder --profile {profile} "
            f"--variant {variant}` rebuilds it)")
