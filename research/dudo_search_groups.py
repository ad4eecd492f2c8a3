"""Search on the rounds of 5 dice in play (1v4, 2v3 and their mirrors), which the profiles serve from the stored
rows: the default store's search tables computed for those groups too and published as a copy of the store, whose
rounds a server and ``builder.measure_search`` then serve by search, so the searched policy and the rows can be
measured by the same responder (``--rows``).

  python -m research.dudo_search_five_dice --root R --out OUT [--groups 1v4,2v3]    # OUT gets the copy
  python -m builder.measure_search --root OUT --rounds 2v3,3v2,1v4,4v1 --whole-game [--rows]
"""
from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path
from types import SimpleNamespace

from games.dudo.policy.served import SERVED_SEARCH_LARGE
from games.dudo.search.tables import LargeSearchSpec, group_tables
from games.dudo.serving.endgame_store import store_W, stored_group
from games.storage import Store, StoreWriter, current_stores



def _of_groups(key: bytes, groups) -> bool:
    """Whether an ``arrays`` key is a table of one of ``groups`` (its leaves or a seat's round-start re-solve)."""
    from games.dudo.search.tables import group_key, seat_key, seats
    names = {group_key(*g) + "/" for g in groups}
    names |= {seat_key(*s) + "/" for g in groups for s in seats(*g)}
    return key.decode().startswith(tuple(names))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--groups", default="1v4,2v3", help="the groups a <= b to search (again)")
    ap.add_argument("--A", type=int, default=None, help="own claims in the lookahead (default: the store's)")
    ap.add_argument("--iterations", type=int, default=None, help="CFR+ iterations a re-solve (default: the store's)")
    ap.add_argument("--depth", type=int, default=None, help="the re-solve's depth (default: the store's)")
    a = ap.parse_args(argv)
    groups = [tuple(int(x) for x in g.split("v")) for g in a.groups.split(",")]
    store = Store(current_stores(a.root, "dudo")[a.variant])
    man = json.loads(json.dumps(store.manifest))
    spec = LargeSearchSpec(**man["large_search"])
    spec5 = replace(spec, min_total=min(spec.min_total, *(sum(g) for g in groups)), A=a.A or spec.A,
                    iterations=a.iterations or spec.iterations, depth=a.depth or spec.depth)
    W = store_W(man)
    with StoreWriter(a.out, "dudo", man["variant"]) as writer:
        with store.env.begin() as txn:
            names = sorted(k.decode() for k, _ in txn.cursor() if k != b"meta")
        for name in names:
            if name != "arrays":
                writer.put_many(name, store.items(name))
        writer.put_many("arrays", ((k, v) for k, v in store.items("arrays") if not _of_groups(k, groups)))
        for key in groups:
            g, strat, _ = stored_group(store, key)
            sol = SimpleNamespace(groups={key: g}, W=W, strategies={key: strat})
            for name, arr in group_tables(sol, spec5, key, log=print):
                writer.put_array(name, arr)
            for op, oth in {key, key[::-1]}:
                if f"{op}v{oth}" in man["rounds"]:      # a round a game reaches
                    man["rounds"][f"{op}v{oth}"].update(served=SERVED_SEARCH_LARGE, search=spec5.label())
        man["large_search"] = asdict(spec5)
        for k in ("content_hash", "store_version", "build_time", "format_version"):
            man.pop(k, None)
        print(f"published {writer.publish(man)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
