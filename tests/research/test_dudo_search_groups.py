"""research.dudo_search_groups: a copy of a store with more groups searched, which the served policy then
searches (measured by builder.measure_search like the profile's searched rounds)."""
from builder.dudo import build_dudo_store
from builder.measure_search import main as measure_main
from builder.measure_search import searched_rounds
from games.dudo.build.params import DudoParams
from games.storage import Store, current_stores
from research.dudo_search_groups import main

PARAMS = DudoParams(max_dice=2, iterations=40, memory=1, perfect_recall_total=0, exact_br_total=2,
                    large_search=(4, 2, 20, 4))


def test_the_copy_searches_the_added_groups_and_is_measured(tmp_path, capsys):
    build_dudo_store(PARAMS, tmp_path / "a")
    before = Store(current_stores(tmp_path / "a", "dudo")[PARAMS.variant])
    assert searched_rounds(before) == [(2, 2)]
    assert main(["--root", str(tmp_path / "a"), "--out", str(tmp_path / "b"), "--variant", PARAMS.variant,
                 "--groups", "1v2"]) == 0
    after = Store(current_stores(tmp_path / "b", "dudo")[PARAMS.variant])
    assert searched_rounds(after) == [(2, 1), (2, 2)]
    assert list(after.items("windows")) == list(before.items("windows"))
    assert any(k.startswith(b"search/1v2/") for k, _ in after.items("arrays"))
    assert measure_main(["--root", str(tmp_path / "b"), "--variant", PARAMS.variant, "--rounds", "2v1",
                         "--whole-game", "--games", "4", "--processes", "1"]) == 0
    assert "2v1 whole game (search)" in capsys.readouterr().out
