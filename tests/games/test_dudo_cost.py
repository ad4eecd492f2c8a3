"""The one Dudo cost model (games/dudo/cost.py): every price of Dudo work lives there, and the sizes it prices
are the sizes the kernels walk."""
import ast
from pathlib import Path

import pytest

from games.dudo.cost import exact_search_seconds, subgame_nodes, SECONDS_PER_NODE_ITERATION
from games.dudo.measure.search_walk import _subgame_nodes

ROOT = Path(__file__).resolve().parents[2]


def _price_constants(path: Path) -> list[str]:
    """Module-level names of ``path`` that are a price: seconds per unit of work."""
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        names += [t.id for t in targets if isinstance(t, ast.Name) and t.id.startswith("SECONDS_PER")]
    return names


def test_every_price_of_dudo_work_is_in_the_cost_module():
    files = sorted((ROOT / "games" / "dudo").rglob("*.py")) + [ROOT / "server" / "backends" / "dudo.py",
                                                               *sorted((ROOT / "builder").glob("dudo*.py"))]
    elsewhere = {str(f.relative_to(ROOT)): _price_constants(f) for f in files if f.name != "cost.py"}
    assert {f: n for f, n in elsewhere.items() if n} == {}
    assert _price_constants(ROOT / "games" / "dudo" / "cost.py")


@pytest.mark.parametrize("R", range(0, 31))
@pytest.mark.parametrize("d", [0, 1, 2, 4, 6, 40])
def test_subgame_nodes_are_the_walks_count(R, d):
    assert subgame_nodes(R, d) == _subgame_nodes(R, d)


def test_an_exact_search_prices_the_chain_of_the_requesters_decisions():
    """The round's root, then one re-solve per decision of the requester (every other claim, from its first)."""
    K = 12
    root = subgame_nodes(K, 2)
    assert exact_search_seconds(1, 1, (), True, 2, 10) == pytest.approx(2 * root * 10 * SECONDS_PER_NODE_ITERATION)
    assert exact_search_seconds(1, 1, (3,), False, 2, 10) == pytest.approx(
        (root + subgame_nodes(K - 1 - 3, 2)) * 10 * SECONDS_PER_NODE_ITERATION)
    assert exact_search_seconds(1, 1, (3, 5), True, 2, 10) == pytest.approx(
        (2 * root + subgame_nodes(K - 1 - 5, 2)) * 10 * SECONDS_PER_NODE_ITERATION)
