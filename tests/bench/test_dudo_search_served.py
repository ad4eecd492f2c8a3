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
    idle = re.search(r"idle: 2 whole games .*answers by source \{(.*)\}, failed calls \(each ended its game\) none",
                     out).group(1)
    assert "'LIVE'" in idle and "ERROR" not in out
    assert re.search(r"book hits beside 2 searched games: \d+ answers.*errors none", out)
    assert "2v2" in out


def test_a_store_without_search_tables_is_skipped(tmp_path, capsys):
    plain = DudoParams(max_dice=1, iterations=10)
    build_dudo_store(plain, tmp_path)
    assert dudo_search_served.main(["--root", str(tmp_path), "--variant", plain.variant]) == 0
    assert "no search tables" in capsys.readouterr().out


def test_a_failed_call_is_counted_and_ends_its_game():
    """A searched move the server does not answer in time (DEADLINE_EXCEEDED at the client) is a figure of the
    bench, not its end."""
    import grpc
    import numpy as np

    class Late(grpc.RpcError):
        def code(self):
            return grpc.StatusCode.DEADLINE_EXCEEDED

    class Stub:
        calls = 0

        def SampleMove(self, req, timeout):
            Stub.calls += 1
            raise Late()

    rec = dudo_search_served.Recorder()
    dudo_search_served.play_game(Stub(), PARAMS.variant, 2, np.random.default_rng(0), 1.0, rec)
    assert Stub.calls == 1 and rec.errors == {"2v2 DEADLINE_EXCEEDED": 1} and not rec.sources
