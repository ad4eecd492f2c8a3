"""Present stores whose recorded parameters are not the ones a profile would build with now.

``make serve`` builds only the stores that are missing, so after a checkout changes a profile the stores
already present keep being served as they were built; this names them and what differs."""
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
        finally:
            store.close()
        want = json.loads(json.dumps(recorded_parameters(params)))     # as the manifest reads back
        differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        if differ:
            out.append((variant, differ))
    return out


def stale_notice(variant: str, differ: list[str], profile: str) -> str:
    """The one line ``--missing-only`` prints for a stale store."""
    return (f"gamestrategy-build: {variant}: the store present was built with other {', '.join(differ)} than the "
            f"{profile} profile now has; it is kept and served as it is (`python -m builder --profile {profile} "
            f"--variant {variant}` rebuilds it)")
