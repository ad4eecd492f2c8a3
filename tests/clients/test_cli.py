"""The `gamestrategy` CLI against in-process servers on small stores: sample and stats for every game, --json,
bad arguments (an exit code and one line, never a traceback) and a closed output pipe."""
import json
import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from builder.dudo import build_dudo_store
from builder.guesswho import GuessWhoParams, build_guesswho_store
from builder.hangman import HangmanParams, build_hangman_store
from clients.cli import main
from games.dudo.build.params import DudoParams
from games.hangman.game import lexicon
from games.jotto.dictionary import load_dictionary
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server.app import build_server
from server.registry import Registry
from tests.conftest import SMALL_VARIANT, servers_on

ROOT = Path(__file__).resolve().parents[2]
DUDO = DudoParams(max_dice=1, iterations=200)
GW, HM = "guesswho-12", "hangman-en_US50-4"


@pytest.fixture(scope="module")
def targets(tmp_path_factory, serve):
    """(Jotto target, Dudo / Hangman / Guess Who target)."""
    root = tmp_path_factory.mktemp("cli-stores")
    build_dudo_store(DUDO, root)
    build_guesswho_store(GuessWhoParams(12, budget=2000), root)
    build_hangman_store(HangmanParams(4, eval_games=2), root)
    registry = Registry(root)
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{serve()}", f"127.0.0.1:{port}"
    server.stop(0).wait()
    server.live_pool.close()
    registry.close()


@pytest.fixture(scope="module")
def serve(registry):
    """The conftest's `serve`, for the whole module."""
    with servers_on(registry) as start:
        yield start


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def stub_of(target):
    return pb_grpc.GameStrategyStub(grpc.insecure_channel(target))


def as_dict(message):
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


# (target index, CLI arguments, the request they stand for)
SAMPLES = {
    "jotto guesser": (0, ["sample", SMALL_VARIANT, "--role", "guesser", "--history", "up:1", "--seed", "7"],
                      pb.SampleMoveRequest(variant=SMALL_VARIANT, game_seed=7, jotto=pb.JottoState(
                          role=pb.JottoState.GUESSER, history=[pb.JottoTurn(guess="up", jots=1)]))),
    "jotto hider": (0, ["sample", SMALL_VARIANT, "--role", "hider", "--seed", "3", "--common-secret"],
                    pb.SampleMoveRequest(variant=SMALL_VARIANT, game_seed=3, jotto=pb.JottoState(
                        role=pb.JottoState.HIDER, common_secret=True))),
    "dudo opening": (1, ["sample", DUDO.variant, "--roll", "3", "--opponent-dice", "1", "--seed", "5"],
                     pb.SampleMoveRequest(variant=DUDO.variant, game_seed=5, dudo=pb.DudoState(
                         own_dice=1, opponent_dice=1, roll=[3], requester_opened=True))),
    "dudo answering": (1, ["sample", DUDO.variant, "--roll", "6", "--own-dice", "1", "--opponent-dice", "1",
                           "--claims", "1x4", "--opened", "opponent", "--seed", "9"],
                       pb.SampleMoveRequest(variant=DUDO.variant, game_seed=9, dudo=pb.DudoState(
                           own_dice=1, opponent_dice=1, roll=[6], history=[pb.DudoClaim(count=1, face=4)],
                           requester_opened=False))),
    "hangman word": (1, ["sample", HM, "--action", "word", "--seed", "4"],
                     pb.SampleMoveRequest(variant=HM, game_seed=4, hangman=pb.HangmanState(
                         action=pb.HangmanState.CHOOSE_WORD))),
    "hangman letter": (1, ["sample", HM, "--opponent-word", "lamp", "--asked", "ae", "--pattern", "_a__"],
                       pb.SampleMoveRequest(variant=HM, hangman=pb.HangmanState(
                           action=pb.HangmanState.CHOOSE_LETTER, opponent_word="lamp", asked="ae",
                           own_pattern="_a__"))),
    "guesswho": (1, ["sample", GW, "--own-count", "7", "--opponent-count", "12"],
                 pb.SampleMoveRequest(variant=GW, guesswho=pb.GuessWhoState(own_count=7, opponent_count=12))),
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_every_game_is_the_services_move(targets, capsys, name):
    i, argv, request = SAMPLES[name]
    want = stub_of(targets[i]).SampleMove(request, timeout=30)
    code, out, err = run(capsys, "--target", targets[i], "--timeout", "30", *argv)
    assert code == 0 and not err
    move, p = out.split()[:2]
    assert move == want.move and p == f"p={want.probability:.4f}" and f"strategy={want.strategy}" in out
    assert f"  seed={request.game_seed}  " in out    # the seed that drew the move, default 0 included
    if name.startswith("dudo"):
        assert re.fullmatch(r"\d+x[1-6]|dudo", move) and (name == "dudo answering" or move != "dudo")
    elif name.startswith("jotto"):
        assert move in load_dictionary(SMALL_VARIANT).words
    elif name == "hangman word":
        assert move in lexicon("en_US50", 4).words
    elif name == "hangman letter":
        assert re.fullmatch(r"[b-df-z]", move)  # a letter not asked yet
    else:
        assert 1 <= int(move) <= 6
    code, out, _ = run(capsys, "--target", targets[i], "--timeout", "30", *argv, "--json")
    assert code == 0 and json.loads(out) == as_dict(want)


def test_sample_distribution_lists_the_moves(targets, capsys):
    code, out, _ = run(capsys, "--target", targets[1], "sample", DUDO.variant, "--roll", "2", "--opponent-dice", "1",
                       "--distribution")
    rows = [line.split() for line in out.splitlines()[1:]]
    assert code == 0 and rows and all(re.fullmatch(r"\d+x[1-6]", m) for m, _ in rows)
    assert sum(float(p) for _, p in rows) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("variant,i,columns", [
    (DUDO.variant, 1, ["served", "memory", "iterations", "value", "exploitability", "br_kind"]),
    (HM, 1, ["mean_solo_asks", "ours_vs_seed"]),
    (GW, 1, ["vs_optimal", "vs_bisection", "optimal_first_mover"]),
    (SMALL_VARIANT, 0, ["guarantee", "epsilon", "gap", "mixture_size"]),
])
def test_stats_prints_each_games_own_figures(targets, capsys, variant, i, columns):
    reply = stub_of(targets[i]).GetStats(pb.GetStatsRequest(variant=variant), timeout=30)
    v = reply.variants[0]
    code, out, err = run(capsys, "--target", targets[i], "stats", variant)
    assert code == 0 and not err and "nan" not in out
    lines = out.splitlines()
    assert lines[0].startswith(f"{variant}  store {v.store_version}  served: {v.served_strategy}")
    header = lines[1].split()
    assert header[:2] == ["strategy", "headline"] and set(columns) <= set(header)
    for s in v.strategies:
        row = next(line for line in lines[2:] if line.startswith(f"  {s.strategy}  "))
        cells = row[len(f"  {s.strategy}"):].split()
        assert len(cells) == len(header) - 1
        for key, cell in zip(header[1:], cells):
            if key == "headline":   # the strategy's (round's) figure, its kind's tag in the legend under the table
                value, tag = cell[:-3], cell[-3:]
                assert (value == "-") if not s.headline else (float(value) == pytest.approx(
                    s.figures[s.headline], rel=1e-3, abs=1e-12)), cell
                assert f"    {tag} {s.headline_kind}" in lines, (tag, lines)
            elif key == "served":
                assert cell in ("book", "re-solved", "searched") and f"{cell} = {s.labels['served']}" in out
            elif key in s.labels:
                assert cell == s.labels[key]
            elif key in s.figures:
                assert float(cell) == pytest.approx(s.figures[key], rel=1e-3, abs=1e-12)
            else:
                assert cell == "-"
    # every other key is named, and --all shows each with its kind and value
    keys = {k for s in v.strategies for k in (*s.figures, *s.labels)}
    rest = keys - set(header)
    assert not rest or lines[-1] == f"  also: {', '.join(sorted(rest))} (stats --all)"
    code, out, _ = run(capsys, "--target", targets[i], "stats", variant, "--all")
    assert code == 0
    for s in v.strategies:
        for k, x in s.figures.items():
            unit = f"  \\({re.escape(s.units[k])}\\)" if k in s.units else ""
            assert re.search(rf"^    figure {k} = \S+{unit}$", out, re.M), k
        for k, x in s.labels.items():
            assert f"    label  {k} = {x}\n" in out
    code, out, _ = run(capsys, "--target", targets[i], "stats", variant, "--json")
    assert code == 0 and json.loads(out) == as_dict(reply)


def test_dudo_stats_rows_are_the_rounds(targets, capsys):
    code, out, _ = run(capsys, "--target", targets[1], "stats", DUDO.variant)
    assert code == 0 and [line.split()[:2] for line in out.splitlines()[2:3]] == [["round", "1v1"]]
    assert " perfect " in out and "exact-perfect-recall" in out


def test_variants_and_json(targets, capsys):
    code, out, _ = run(capsys, "--target", targets[1], "variants")
    assert code == 0 and {line.split()[0] for line in out.splitlines()} == {DUDO.variant, GW, HM}
    code, out, _ = run(capsys, "--target", targets[1], "variants", "--json")
    assert code == 0 and {v["game"] for v in json.loads(out)["variants"]} == {"dudo", "guesswho", "hangman"}


BAD = [  # (target index or None: no server needed, arguments, exit code, a fragment of the one line)
    (None, ["sample", SMALL_VARIANT, "--seed", "-1"], 2, "argument --seed: '-1' is not a seed"),
    (None, ["sample", SMALL_VARIANT, "--seed", str(2 ** 64)], 2, "is not a seed"),
    (None, ["sample", SMALL_VARIANT, "--history", "up"], 2, "history item 'up' must be WORD:JOTS"),
    (None, ["sample", SMALL_VARIANT, "--role", "judge"], 2, "argument --role: invalid choice"),
    (None, ["sample", DUDO.variant, "--roll", "3,x", "--opponent-dice", "1"], 2, "roll '3,x' must be"),
    (None, ["sample", DUDO.variant, "--roll", "3", "--opponent-dice", "1", "--claims", "1y4"], 2,
     "claim '1y4' must be COUNTxFACE"),
    (None, ["sample", DUDO.variant, "--roll", "3"], 2, "a Dudo state needs --opponent-dice"),
    (None, ["sample", DUDO.variant, "--opponent-dice", "1"], 2, "a Dudo state needs --roll"),
    (None, ["sample", DUDO.variant, "--roll", "3", "--opponent-dice", "-1"], 2, "'-1' is not a count"),
    (None, ["sample", SMALL_VARIANT, "--roll", "3"], 2, "--roll is a Dudo option; jotto-en_US80-2-ganzfried is a "
                                                        "Jotto variant"),
    (None, ["sample", GW, "--own-count", "3"], 2, "a Guess Who state needs --opponent-count"),
    (None, ["sample", GW, "--own-count", "3", "--opponent-count", "4", "--asked", "e"], 2,
     "--asked is a Hangman option"),
    (None, ["sample", "chess-1"], 2, "'chess-1' names no game"),
    (None, ["--timeout", "0", "variants"], 2, "'0' is not a timeout"),
    (None, ["--token-file", "/nonexistent/token", "variants"], 2, "cannot read /nonexistent/token"),
    (None, ["--tls-ca", "/nonexistent/ca.pem", "variants"], 2, "cannot read /nonexistent/ca.pem"),
    (None, ["frobnicate"], 2, "invalid choice: 'frobnicate'"),
    (None, [], 2, "the following arguments are required: cmd"),
    (1, ["sample", DUDO.variant, "--roll", "3,4", "--own-dice", "1", "--opponent-dice", "1"], 2,
     "INVALID_ARGUMENT: dudo.roll has 2 dice; the player has 1"),
    (1, ["sample", DUDO.variant, "--roll", "7", "--opponent-dice", "1"], 2, "INVALID_ARGUMENT: dudo.roll[0] is 7"),
    (1, ["sample", DUDO.variant, "--roll", "3", "--opponent-dice", "1", "--claims", "1x5,1x4"], 2,
     "dudo.history[1] (1x4): not stronger than 1x5"),
    (1, ["sample", DUDO.variant, "--roll", "3", "--opponent-dice", "1", "--opened", "opponent"], 2,
     "requester_opened is false"),
    (1, ["sample", HM, "--opponent-word", "zzzz", "--pattern", "____"], 2, "INVALID_ARGUMENT: hangman.opponent_word"),
    (1, ["sample", GW, "--own-count", "1", "--opponent-count", "5"], 2, "own_count is 1"),
    (1, ["stats", "jotto-nope"], 2, "NOT_FOUND: unknown variant"),
]


@pytest.mark.parametrize("i,argv,code,fragment", BAD, ids=[" ".join(b[1])[:60] for b in BAD])
def test_a_bad_argument_is_one_line_and_an_exit_code(targets, capsys, i, argv, code, fragment):
    target = "127.0.0.1:1" if i is None else targets[i]  # nothing listens on port 1: bad arguments never connect
    got, out, err = run(capsys, "--target", target, "--timeout", "30", *argv)
    assert got == code and not out
    assert len(err.splitlines()) == 1 and fragment in err and err.startswith("gamestrategy")


def test_the_process_prints_no_traceback(targets):
    for argv in (["sample", SMALL_VARIANT, "--seed", "-1"], ["sample", DUDO.variant, "--roll", "1,2,x"]):
        r = subprocess.run([sys.executable, "-m", "clients.cli", "--target", targets[0], *argv], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr


def test_unreachable_service_is_one_line(capsys):
    code, out, err = run(capsys, "--target", "127.0.0.1:1", "--timeout", "2", "variants")
    assert code == 1 and len(err.splitlines()) == 1 and "nothing answers there" in err, err


@pytest.mark.parametrize("argv", [["variants"], ["stats", "--all"]])
def test_a_closed_pipe_ends_quietly(targets, argv):
    """The reader closes its end before the CLI writes: every write meets a closed pipe."""
    p = subprocess.Popen([sys.executable, "-m", "clients.cli", "--target", targets[1], *argv], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=60) == 141 and err == b""


def test_stats_states_the_certified_bracket_under_the_table():
    """A Jotto store's certified bracket is printed on a line of its own (the served strategy's), not only in --all."""
    from clients.cli import stats_lines
    lab = "[5.999128, 7.036324] bounded: bounded search: 3 probes of at most 5000 states"
    v = pb.VariantStats(variant="jotto-en_US80-4-ganzfried", store_version="s", served_strategy="double_oracle",
                        strategies=[pb.StrategyStats(strategy="fp", figures={"guarantee": 7.98},
                                                     labels={"value_bracket": "other"}),
                                    pb.StrategyStats(strategy="double_oracle", figures={"guarantee": 7.036},
                                                     labels={"value_bracket": lab})])
    lines = stats_lines(v)
    assert f"  game value bracket (certified): {lab}" in lines
    assert lines[-1] == "  also: value_bracket (stats --all)"
    v2 = pb.VariantStats(variant="jotto-en_US80-4-ganzfried", store_version="s", served_strategy="fp",
                         strategies=[pb.StrategyStats(strategy="fp", figures={"guarantee": 7.98})])
    assert not any("bracket" in line for line in stats_lines(v2))


def test_variants_and_stats_report_the_stores_still_being_built(capsys):
    """The README says `variants` and `stats` report what the build beside the server is still making."""
    from types import SimpleNamespace

    from clients.cli import parser, run
    from protos import gamestrategy_pb2 as pb

    building = [pb.BuildingVariant(game="dudo", variant="dudo-5dice-default", state="building", fraction=0.4,
                                   eta_seconds=190),
                pb.BuildingVariant(game="jotto", variant="jotto-en_US80-5-ganzfried", state="planned", fraction=0,
                                   eta_seconds=-1)]
    fake = SimpleNamespace(list_variants=lambda: pb.ListVariantsReply(building=building),
                           stats=lambda variant: pb.GetStatsReply(building=building))
    for cmd in (["variants"], ["stats"]):
        run(fake, parser().parse_args(cmd))
        out = capsys.readouterr().out.splitlines()
        assert out[-2].split() == ["dudo-5dice-default", "being", "built:", "about", "40%,", "about", "3", "min",
                                   "10", "s", "left;", "served", "when", "published"], out
        assert out[-1].split()[:4] == ["jotto-en_US80-5-ganzfried", "waiting", "to", "be"], out


def test_a_review_says_what_its_labels_judge_and_marks_a_labelled_winning_word():
    from clients.tables import review_lines

    r = pb.AnalyzeGameReply(variant="jotto-en_US80-3-ganzfried", store_version="s", strategy="beeler",
                            unit="guesses", accuracy=80.0, thresholds={"inaccuracy": 0.1})
    r.moves.add(move="ace", best_move="ire", value=3.2, best_value=3.0, loss=0.2, label="inaccuracy", before=40,
                after=3, continuation="greedy")
    r.moves.add(move="elm", best_move="ern", value=1.4, best_value=1.3, loss=0.1, label="inaccuracy", before=3,
                after=0, continuation="exact")
    lines = review_lines(r)
    text = " ".join(" ".join(lines).split())
    assert "judged before its answer, by the expected guesses" in text and "not by whether it hit" in text
    assert "uniform, best uniform: the same against a uniform secret" in text and "continuation:" in text
    assert "docs/glossary.md" in text
    rows = [line.split() for line in lines if line.split()[:1] in (["1"], ["2"])]
    assert rows[0][-1] == "inaccuracy" and rows[1][-4:] == ["inaccuracy", "(it", "named", "the", "secret)"][-4:]


def test_a_dudo_review_says_whose_probabilities_each_move_shows_and_why_not_the_searched():
    from clients.tables import review_lines

    r = pb.AnalyzeGameReply(variant="dudo-5dice-default", store_version="s", strategy="search",
                            unit="win probability", accuracy=90.0, thresholds={"inaccuracy": 0.03})
    r.moves.add(move="2x3", best_move="2x3", probability=0.4, before=0.5, after=0.5, best_value=0.5, policy="search")
    r.moves.add(move="4x6", best_move="dudo", probability=0.1, before=0.45, after=0.4, best_value=0.45, loss=0.05,
                label="inaccuracy", policy="fsicfr: not searched, the review's time ran out (its re-solves need "
                                           "about 1.2 s, 0.3 s left)")
    r.moves.add(move="dudo", best_move="dudo", probability=0.9, before=0.2, after=0.2, best_value=0.2, policy="fsicfr")
    lines = review_lines(r)
    assert "p of: whose probabilities p and before are" in " ".join(" ".join(lines).split())
    rows = [line.split() for line in lines if line.split()[:1] in (["1"], ["2"], ["3"])]
    assert [row[-1] for row in rows] == ["search", "fsicfr*", "fsicfr"]
    assert "  * #2: not searched, the review's time ran out (its re-solves need about 1.2 s, 0.3 s left)" in lines


def test_every_option_says_what_it_does_and_the_seed_its_default(capsys):
    """--target and --timeout have help; sample's --seed says its default and that the move is drawn, --strategy and
    the variant what they take."""
    from clients.cli import parser

    for argv in (["--help"], ["sample", "--help"]):
        with pytest.raises(SystemExit):
            parser().parse_args(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert "--target HOST:PORT the server's gRPC address (default: 127.0.0.1:50051" in out
    assert "--timeout SECONDS each call's deadline in seconds (default: 10.0" in out
    assert "game seed, 0..2**64-1 (default 0): the same seed and state give the same move, drawn from" in out
    assert "--strategy STRATEGY one of the variant's strategies (`gamestrategy variants` lists them; default: the one " \
           "it serves)" in out
    assert "variant a served variant (`gamestrategy variants` lists them)" in out


def test_dudo_stats_shortens_each_served_label_and_names_the_columns_that_are_the_rows():
    """A searched round's `served` cell is short ("searched"), the legend gives the long label once, and the rounds
    whose columns are the stored rows' figures (their `rows_figures` label) are listed under the table."""
    from clients.cli import stats_lines
    from games.dudo.policy.served import SERVED_BOOK, SERVED_SEARCH_LARGE
    rows = "exploitability, br_opener: of the stored rows (strategy fsicfr)"
    v = pb.VariantStats(variant=DUDO.variant, store_version="s", served_strategy="search", strategies=[
        pb.StrategyStats(strategy="round 1v1", figures={"exploitability": 0.001}, labels={"served": SERVED_BOOK}),
        pb.StrategyStats(strategy="round 4v4", figures={"exploitability": 0.2},
                         labels={"served": SERVED_SEARCH_LARGE, "rows_figures": rows}),
        pb.StrategyStats(strategy="round 5v5", figures={"exploitability": 0.2},
                         labels={"served": SERVED_SEARCH_LARGE, "rows_figures": rows})])
    lines = stats_lines(v)
    table = {line.split()[1]: line.split() for line in lines[2:5]}
    assert table["1v1"][3] == "book" and table["4v4"][3] == table["5v5"][3] == "searched"
    assert f"  served: book = {SERVED_BOOK}; searched = {SERVED_SEARCH_LARGE}" in lines
    assert f"  rows' figures: {rows} in 4v4, 5v5" in lines
