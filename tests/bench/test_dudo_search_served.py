"""bench.dudo_search_served on a small searched store: whole games against a server process, every searched move
answered (LIVE once the workers are up), the book callers beside them answered without errors."""
import re

from bench import dudo_search_served
from builder.dudo import build_dudo_store
from games.dudo.build.params import DudoParams

PARAMS = DudoParams(max_dice=2, iterations=20, memory=1, perfect_recall_total=0, exact_br_total=0,
                    large_search=(3, 2, 10, 4), label="tiny")


def test_searched_games_and_book_callers(tmp_path, capsys):
    build_dudo_store(PARAMS, tmp_path)
    assert dudo_search_served.main(["--root", str(tmp_path), "--variant", PARAMS.variant, "--games", "2",
                                    "--seconds", "3", "--book-clients", "2"]) == 0
    out = capsys.readouterr().out
    idle = re.search(r"idle: 2 whole games .*answers by source \{(.*)\}", out).group(1)
    assert "'LIVE'" in idle and "ERROR" not in out
    assert re.search(r"book hits beside 2 searched games: \d+ answers.*errors none", out)
    assert "2v2" in out


def test_a_store_without_search_tables_is_skipped(tmp_path, capsys):
    plain = DudoParams(max_dice=1, iterations=10)
    build_dudo_store(plain, tmp_path)
    assert dudo_search_served.main(["--root", str(tmp_path), "--variant", plain.variant]) == 0
    assert "no search tables" in capsys.readouterr().out
