"""AnalyzeGame (docs/review.md) against independent computations on the smallest games.

Dudo 1 v 1 (a store of 200 CFR+ iterations, perfect recall): every reported value is compared with an
exhaustive expectation written here (the opponent's range by Bayes over its 6 rolls from the stored rows, the
rest of the round by walking every claim history with the stored probabilities; a challenge ends the game);
a challenge of a claim the player's own dice make true is a blunder; every move the strategy plays has a loss
that, weighted by how often the strategy reaches and plays it, is within the round's exact exploitability.
Jotto on 2 letters: values of exact continuation checked by enumerating every decision tree's cost (the
optimal value by exhaustive search over all test words), the greedy continuation by replaying the literal GBR
guesser of tests/games/jotto_reference.py. And the transcript faults, over gRPC and HTTP.
"""
from __future__ import annotations

import functools
import http.client
import json
from fractions import Fraction

import grpc
import numpy as np
import pytest

from builder.dudo import build_dudo_store
from games.dudo.serving.endgame_store import store_W
from games.dudo.serving.move_scoring import RoundValues, StoreTables, decision, parse_rounds, review_from_store
from games.dudo.rules import claim_table, roll_arrays, rolls, strength
from games.dudo.build.params import DudoParams
from games.dudo.store import lookup_row, store_memories
from games.storage import Store
from protos import gamestrategy_pb2 as pb
from tests.conftest import SMALL_VARIANT, stub_on
from tests.games import jotto_reference as ref

PARAMS = DudoParams(max_dice=1, iterations=200)
VARIANT = PARAMS.variant


@pytest.fixture(scope="module")
def dudo_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("dudo-review")
    path = build_dudo_store(PARAMS, root)
    return root, path


@pytest.fixture(scope="module")
def dudo_stub(dudo_root):
    with stub_on(dudo_root[0]) as stub:
        yield stub


@pytest.fixture(scope="module")
def review_tables(dudo_root):
    """(the store's tables, its round values W) as the review reads them."""
    store = Store(dudo_root[1])
    yield StoreTables.of_store(store), store_W(store.manifest)
    store.close()


@pytest.fixture(scope="module")
def rows(dudo_root):
    """(strategy lookup by full history, the 1v1 round's manifest figures)."""
    store = Store(dudo_root[1])
    mem = store_memories(store.manifest)

    @functools.lru_cache(maxsize=None)
    def row(own_face: int, hist: tuple):
        actions, probs = lookup_row(lambda k: store.get("windows", k), mem, 1, 1, (own_face,), list(hist))
        return dict(zip((int(a) for a in actions), (float(p) for p in probs)))

    yield row, dict(store.manifest["rounds"]["1v1"])
    store.close()


# ------------------------------------------------------------------ the brute force, written independently

def _true(claim: int, x: int, y: int) -> bool:
    """Whether claim (strength, 2 dice in play) holds with faces x and y (ones wild)."""
    n, r = claim_table(2)[claim]
    return sum(1 for f in (x, y) if f == r or (f == 1 and r != 1)) >= n


def _play(row, hist: tuple, me: bool, x: int, y: int) -> float:
    """My win probability, both following the stored rows with full history, me to move if ``me``."""
    v = 0.0
    for a, p in row(x if me else y, hist).items():
        if a < 0:  # the mover challenges hist[-1]: it wins iff the claim is false
            v += p * (float(not _true(hist[-1], x, y)) if me else float(_true(hist[-1], x, y)))
        else:
            v += p * _play(row, hist + (a,), not me, x, y)
    return v


def brute_force(row, x: int, hist: tuple, opened: bool) -> tuple[dict, list]:
    """({action: my win probability}, posterior over y) at my decision (roll x, claims hist)."""
    post = []
    for y in range(1, 7):
        w = Fraction(1, 6)
        for k, c in enumerate(hist):
            if (k % 2 == 0) != opened:  # the opponent's claim
                w *= Fraction(row(y, hist[:k]).get(c, 0.0))
        post.append(w)
    tot = sum(post)
    post = [float(p / tot) for p in post] if tot else [1 / 6] * 6
    last = hist[-1] if hist else -1
    vals = {}
    for a in ([-1] if hist else []) + list(range(last + 1, 12)):
        vals[a] = sum(post[y - 1] * (float(not _true(last, x, y)) if a < 0 else _play(row, hist + (a,), False, x, y))
                      for y in range(1, 7))
    return vals, post


def _name(a: int) -> str:
    if a < 0:
        return "dudo"
    n, r = claim_table(2)[a]
    return f"{n}x{r}"


def _round(x: int, claims, opened: bool, challenged: bool):
    return [dict(own=1, opp=1, roll=[x], opp_roll=[], opened=opened, claims=list(claims), challenged=challenged)]


HISTORIES = [(), ((1, 3),), ((1, 2), (1, 5)), ((1, 4), (1, 1), (2, 3))]


@pytest.mark.parametrize("x", range(1, 7))
def test_dudo_values_equal_the_exhaustive_expectation(dudo_root, rows, x):
    row, _ = rows
    for claims in HISTORIES:
        opened = len(claims) % 2 == 0
        hist = tuple(strength(n, r, 2) for n, r in claims)
        want, _ = brute_force(row, x, hist, opened)
        # the reviewed move: the strategy's most likely action at this point, appended to the transcript
        mine = row(x, hist)
        a = max(mine, key=mine.get)
        moves = list(claims) + ([] if a < 0 else [claim_table(2)[a]])
        out = review_from_store(str(dudo_root[1]), _round(x, moves, opened, a < 0))
        m = out["moves"][-1]
        assert m["move"] == _name(a)
        got = {mv: v for mv, v, _ in m["alternatives"]}
        assert set(got) == {_name(b) for b in want}
        for b, v in want.items():
            assert got[_name(b)] == pytest.approx(v, abs=1e-9)
        best = max(want.values())
        assert m["best_value"] == pytest.approx(best, abs=1e-9) and m["value"] == pytest.approx(want[a], abs=1e-9)
        assert m["loss"] == pytest.approx(best - want[a], abs=1e-9)
        assert m["before"] == pytest.approx(sum(p * want[b] for b, p in mine.items()), abs=1e-9)
        assert m["probability"] == pytest.approx(mine[a], abs=1e-12)


def test_dudo_loss_of_the_strategys_own_moves_is_within_its_exploitability(review_tables, rows):
    """Deviating to the best action at one information set gains reach x (best - before) <= the seat's
    best-response gain; since best - before >= sigma(a) (best - v(a)), every move the strategy plays has
    reach x sigma(a) x loss(a) <= the round's exact exploitability (manifest ``exploitability``, +-1/65536
    quantisation slack). Checked at every information set of the first three claims whose reach weight
    exceeds the exploitability (below it the bound holds for any move: probability x loss <= 1). Each move's
    loss is the review's ``decision``, with one round's values a roll shared by every decision reviewed, as
    ``review_rounds`` shares them within a round."""
    row, st = rows
    eps = st["exploitability"]
    assert st["br_kind"] == "exact-perfect-recall" and 0 < eps < 0.01  # the stated figure: 0.0015 at 200 iterations
    tables, W = review_tables
    worst = 0.0
    for x in range(1, 7):
        rv = RoundValues(tables, W, 1, 1, (x,))
        stack = [((), True), ((), False)]
        while stack:
            hist, opened = stack.pop()
            me_next = (len(hist) % 2 == 0) == opened
            if not me_next or len(hist) > 3:
                continue
            # reach: chance (x) x my claims x sum_y chance(y) x the opponent's claims
            r = Fraction(1, 6)
            for k, c in enumerate(hist):
                if (k % 2 == 0) == opened:
                    r *= Fraction(row(x, hist[:k])[c])
            opp = sum(Fraction(1, 6) * functools.reduce(lambda u, v: u * v, [
                Fraction(row(y, hist[:k]).get(c, 0.0)) for k, c in enumerate(hist) if (k % 2 == 0) != opened],
                Fraction(1)) for y in range(1, 7))
            if float(r * opp) <= eps:
                continue  # p x loss <= 1 here and below (reach only shrinks): the bound holds without reviewing
            mine = row(x, hist)
            for a, p in mine.items():
                moves = [claim_table(2)[c] for c in hist] + ([] if a < 0 else [claim_table(2)[a]])
                rnd = parse_rounds(_round(x, moves, opened, a < 0), 1)[0]
                weighted = float(r * opp) * p * decision(tables, W, rnd, hist, a, rv=rv).loss
                worst = max(worst, weighted)
                assert weighted <= eps + 1e-4
                if a >= 0:
                    replies = {b for y in range(1, 7) for b in row(y, hist + (a,)) if b >= 0}
                    stack.extend((hist + (a, b), opened) for b in replies)  # every opponent reply explored
    assert worst <= eps + 1e-4


def test_challenging_a_claim_your_own_dice_make_true_is_a_blunder(dudo_stub, rows):
    """1 v 1: the opponent claims 1 x 3 and you hold a 3; Dudo loses the game for certain."""
    row, _ = rows
    r = dudo_stub.AnalyzeGame(pb.AnalyzeGameRequest(variant=VARIANT, dudo=[pb.DudoRound(
        own_dice=1, opponent_dice=1, roll=[3], reviewed_opened=False, claims=[pb.DudoClaim(count=1, face=3)])]),
        timeout=120)
    m = r.moves[0]
    want, _ = brute_force(row, 3, (strength(1, 3, 2),), False)
    assert m.move == "dudo" and m.value == 0.0 and m.label == "blunder"
    assert m.best_value == pytest.approx(max(want.values()), abs=1e-9) and m.loss >= r.thresholds["blunder"]
    assert r.accuracy == 0.0 and list(r.costliest) == [0] and r.unit == "win probability"


@pytest.mark.parametrize("rounds, fault", [
    ([dict(own_dice=1, opponent_dice=1, roll=[3], reviewed_opened=True, claims=[(1, 3), (1, 2)])],
     "round 1, move 2 (the opponent's claim 1x2): not stronger than 1x3"),
    ([dict(own_dice=2, opponent_dice=1, roll=[3, 3], reviewed_opened=True, claims=[(1, 3)])],
     "round 1: own_dice is 2; the variant's store holds rounds of at most 1 dice a player"),
    ([dict(own_dice=1, opponent_dice=1, roll=[3, 4], reviewed_opened=True, claims=[(1, 3)])],
     "round 1: roll has 2 dice; the player has 1"),
    ([dict(own_dice=1, opponent_dice=1, roll=[7], reviewed_opened=True, claims=[(1, 3)])],
     "round 1: roll[0] is 7; faces are 1..6"),
    ([dict(own_dice=1, opponent_dice=1, roll=[2], reviewed_opened=True, claims=[(3, 3)])],
     "round 1, move 1 (your claim 3x3): a claim counts 1..2 dice"),
    ([dict(own_dice=1, opponent_dice=1, roll=[2], reviewed_opened=True, claims=[])],
     "round 1, move 1: Dudo before any claim"),
    ([], "is a Dudo variant: give the game's rounds in `dudo`"),
])
def test_bad_dudo_transcripts_are_invalid_argument_naming_the_first_bad_move(dudo_stub, rounds, fault):
    req = pb.AnalyzeGameRequest(variant=VARIANT)
    for r in rounds:
        req.dudo.add(own_dice=r["own_dice"], opponent_dice=r["opponent_dice"], roll=r["roll"],
                     reviewed_opened=r["reviewed_opened"], claims=[pb.DudoClaim(count=n, face=f) for n, f in r["claims"]])
    with pytest.raises(grpc.RpcError) as e:
        dudo_stub.AnalyzeGame(req, timeout=60)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and fault in e.value.details()


def test_a_round_whose_dice_the_challenge_does_not_leave_is_named():
    from games.dudo.serving.move_scoring import TranscriptError, parse_rounds
    r1 = dict(own=3, opp=3, roll=[2, 2, 5], opp_roll=[2, 6, 6], opened=True, claims=[(3, 2)], challenged=True)
    # 3 twos counted (2, 2, 2): exact, so the challenger (the opponent) loses one die and you open round 2
    ok = dict(own=3, opp=2, roll=[1, 1, 1], opp_roll=[], opened=True, claims=[(1, 2)], challenged=False)
    parse_rounds([r1, ok], 5)
    with pytest.raises(TranscriptError, match="round 2: its dice \\(2 v 3\\) are not what round 1's challenge leaves"):
        parse_rounds([r1, dict(ok, own=2, opp=3, roll=[1, 1], opened=False)], 5)
    with pytest.raises(TranscriptError, match="round 2: the winner of round 1's challenge opens it"):
        parse_rounds([r1, dict(ok, opened=False)], 5)


# ------------------------------------------------------------------ Jotto on 2 letters

@pytest.fixture(scope="module")
def jotto2():
    from games.jotto.dictionary import load_dictionary
    from games.jotto.oracle import JottoOracle
    return JottoOracle(load_dictionary(SMALL_VARIANT))


def _optimal(words, w, S: frozenset, memo) -> Fraction:
    """Fewest expected guesses (unnormalised, weights w) of any tree on S: every test word tried."""
    S = frozenset(s for s in S if w[s] > 0)
    if not S:
        return Fraction(0)
    if S in memo:
        return memo[S]
    best = None
    W = sum(w[s] for s in S)
    for g in range(len(words)):
        parts = {}
        for s in S:
            if s != g:
                parts.setdefault(ref.num_comm_letts(words[g], words[s]), set()).add(s)
        if g not in S and len(parts) == 1:
            continue
        cost = W + sum(_optimal(words, w, frozenset(p), memo) for p in parts.values())
        if best is None or cost < best:
            best = cost
    memo[S] = best
    return best


def _after(words, w, S, g, cont) -> Fraction:
    parts = {}
    for s in S:
        if s != g:
            parts.setdefault(ref.num_comm_letts(words[g], words[s]), set()).add(s)
    W = sum(w[s] for s in S)
    return (W + sum(cont(frozenset(p)) for p in parts.values())) / W


@pytest.mark.parametrize("seed", [1, 2])
def test_jotto_values_equal_every_tree_walked(jotto2, seed):
    """A game against a random secret: at each test word the reported values (served hider = a random
    weight vector here, and uniform) equal the optimal tree's by exhaustive search (exact continuation) or
    the literal GBR guesser's replayed cost (greedy continuation)."""
    from games.jotto.guess_scoring import EXACT_WORDS, parse_turns, review_turns
    o = jotto2
    words = list(o.dictionary.words)
    rng = np.random.default_rng(seed)
    hider = rng.random(o.D) * (rng.random(o.D) < 0.8)
    secret = int(rng.choice(np.flatnonzero(hider > 0)))
    # two random test words, then the greedy oracle's (uniform) test words until the secret is found
    turns, S = [], set(range(o.D))
    picks = iter(int(x) for x in rng.permutation(o.D) if int(x) != secret)
    while True:
        g = next(picks) if len(turns) < 2 else o.move(np.array(sorted(S), dtype=np.int32), o.uniform)
        turns.append((words[g], int(o.C[g, secret])))
        if g == secret:
            break
        S = ref.update_state(words, S, g, int(o.C[g, secret]))
    parsed = parse_turns(o, turns, words[secret])
    moves = review_turns(o, hider, parsed)
    checked = {"exact": 0, "greedy": 0}
    S = set(range(o.D))
    for t, m in zip(parsed, moves):
        assert m.words_before == len(S)
        for weights, value, best in ((hider, m.value, m.best_value), (np.ones(o.D), m.value_uniform,
                                                                       m.best_value_uniform)):
            w = [Fraction(float(x)) for x in weights]
            if sum(w[s] for s in S) == 0:
                w = [Fraction(1) if s in S else Fraction(0) for s in range(o.D)]
            if len(S) <= min(EXACT_WORDS, 12) and m.continuation == "exact":
                memo = {}
                cont = functools.partial(_optimal, words, w, memo=memo)
                assert value == pytest.approx(float(_after(words, w, S, t.word, cont)), rel=1e-9)
                assert best == pytest.approx(float(_optimal(words, w, frozenset(S), memo) / sum(w[s] for s in S)),
                                             rel=1e-9)
                checked["exact"] += 1
            elif m.continuation == "greedy" and len(S) <= 40 and weights is hider:
                def cont(T):
                    return ref.replay_cost(words, w, w, T) if T else Fraction(0)
                assert value == pytest.approx(float(_after(words, w, S, t.word, cont)), rel=1e-9)
                checked["greedy"] += 1
        if not t.wins:
            S = ref.update_state(words, S, t.word, t.jots)
        assert m.words_after == (0 if t.wins else len(S))
        assert m.loss == pytest.approx(max(0.0, m.value - m.best_value), abs=1e-12)
    assert checked["exact"] >= 2 and checked["greedy"] >= 1


def test_bad_jotto_transcripts_name_the_first_bad_test_word(jotto2):
    from games.jotto.guess_scoring import TranscriptError, parse_turns
    o = jotto2
    with pytest.raises(TranscriptError, match="test word 2 \\('zz', 0 jots\\): not a word of"):
        parse_turns(o, [("ad", 1), ("zz", 0)])
    with pytest.raises(TranscriptError, match="test word 2 \\('ad', 1 jots\\): already guessed"):
        parse_turns(o, [("ad", 1), ("ad", 1)])
    with pytest.raises(TranscriptError, match="test word 1 \\('ad', 2 jots\\): the secret 'be' gives it 0 jots"):
        parse_turns(o, [("ad", 2)], "be")
    with pytest.raises(TranscriptError, match="test word 1 \\('ad', 3 jots\\): jots are 0..2"):
        parse_turns(o, [("ad", 3)])


def test_analyze_game_over_http_and_grpc(registry, serve):
    """The small Jotto store: a review over gRPC, the same request over HTTP, and a bad one as HTTP 400."""
    from server.http_api import HttpApi
    from server.listener import HttpServer
    from server.app import build_server
    from server.settings import ServerSettings
    grpc_server, port = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=2))
    grpc_server.start()
    api = HttpApi(grpc_server.servicer, threads=2)
    http_server = HttpServer(api.app, "127.0.0.1", 0).start()
    try:
        body = {"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER", "turns": [{"guess": "ad", "jots": 1},
                                                                                 {"guess": "be", "jots": 0}]}}
        conn = http.client.HTTPConnection("127.0.0.1", http_server.port, timeout=120)
        conn.request("POST", "/v1/AnalyzeGame", body=json.dumps(body).encode())
        r = conn.getresponse()
        data = json.loads(r.read())
        assert r.status == 200 and data["unit"] == "guesses" and len(data["moves"]) == 2
        assert data["moves"][0]["before"] == o_size(registry) and data["moves"][1]["move"] == "be"
        body["jotto"]["turns"][1]["guess"] = "zz"
        conn.request("POST", "/v1/AnalyzeGame", body=json.dumps(body).encode())
        r = conn.getresponse()
        err = json.loads(r.read())
        assert r.status == 400 and err["status"] == "INVALID_ARGUMENT" and "test word 2 ('zz', 0 jots)" in err["message"]
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            from protos import gamestrategy_pb2_grpc as pb_grpc
            stub = pb_grpc.GameStrategyStub(ch)
            with pytest.raises(grpc.RpcError) as e:
                stub.AnalyzeGame(pb.AnalyzeGameRequest(variant=SMALL_VARIANT, jotto=pb.JottoGame(
                    role=pb.JottoState.HIDER)), timeout=30)
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "only the guesser" in e.value.details()
    finally:
        http_server.stop(0)
        api.close()
        grpc_server.stop(0).wait()
        grpc_server.live_pool.close()


def o_size(registry) -> int:
    with registry.acquire(SMALL_VARIANT) as b:
        return b.oracle.D


def test_cli_review_prints_the_reply_as_a_table_and_json(dudo_root, dudo_stub, tmp_path, capsys):
    from google.protobuf import json_format

    from clients.cli import main
    from server.app import build_server
    from server.registry import Registry
    req = pb.AnalyzeGameRequest(variant=VARIANT, dudo=[pb.DudoRound(
        own_dice=1, opponent_dice=1, roll=[5], opponent_roll=[2], reviewed_opened=True,
        claims=[pb.DudoClaim(count=1, face=5), pb.DudoClaim(count=1, face=1)])])
    path = tmp_path / "game.json"
    path.write_text(json_format.MessageToJson(req))
    want = dudo_stub.AnalyzeGame(req, timeout=120)
    registry = Registry(dudo_root[0])
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    try:
        assert main(["--target", f"127.0.0.1:{port}", "review", str(path)]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith(f"{VARIANT}  store {want.store_version}  strategy fsicfr  accuracy {want.accuracy:.1f}")
        head = next(i for i, line in enumerate(out) if line.split()[:2] == ["#", "round"])
        assert any("judged by your win probability after it" in line for line in out[:head])   # the legend
        rows = [line.split() for line in out[head + 1:head + 1 + len(want.moves)]]
        assert len(want.moves) == 2  # the opening claim and the Dudo on 1x1
        for row, m in zip(rows, want.moves):
            assert row[2] == m.move and row[7] == f"{m.best_value:.3f}" and row[8] == f"{m.loss:.3f}"
        assert main(["--target", f"127.0.0.1:{port}", "review", str(path), "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["moves"][0]["move"] == want.moves[0].move and got["accuracy"] == pytest.approx(want.accuracy)
        path.write_text("{\"variant\": 3")
        assert main(["--target", f"127.0.0.1:{port}", "review", str(path)]) == 2
        assert "is not an AnalyzeGameRequest in JSON" in capsys.readouterr().err
    finally:
        server.stop(0).wait()
        server.live_pool.close()
        registry.close()


def test_the_terminal_game_saves_a_transcript_analyze_game_accepts(dudo_root, dudo_stub, tmp_path):
    """gamestrategy-play dudo --save-dir: a 1-die game (you open 1x2, the service calls Dudo) saved as JSON,
    read back as an AnalyzeGameRequest and reviewed."""
    from google.protobuf import json_format

    from clients.play.dudo import Dudo

    class ScriptUI:
        def __init__(self):
            self.lines = []

        def say(self, text):
            self.lines.append(text)

        error = show = say

        def ask(self, prompt):
            return "1x2"

        def yes_no(self, prompt):
            return "OPEN" in prompt

    class DudoSays:
        def dudo_move(self, *args):
            return "dudo"

    ui = ScriptUI()
    game = Dudo(ui, DudoSays(), VARIANT, seed=11, save_dir=str(tmp_path))
    game.play_game(0)
    path = tmp_path / "dudo-11-1.json"
    assert any(f"review it: gamestrategy review {path}" in str(line) for line in ui.lines)
    req = json_format.Parse(path.read_text(), pb.AnalyzeGameRequest())
    assert len(req.dudo) == 1 and req.dudo[0].reviewed_opened and req.dudo[0].claims[0].count == 1
    r = dudo_stub.AnalyzeGame(req, timeout=120)
    assert [m.move for m in r.moves] == ["1x2"]


def test_the_terminal_jotto_game_saves_your_test_words_for_review(jotto2, tmp_path):
    """gamestrategy-play jotto --save-dir: the person's test words against the program's secret saved as an
    AnalyzeGameRequest that the review accepts; a game with a word outside the dictionary is not saved."""
    from google.protobuf import json_format

    from clients.play.jotto import Game, Jotto
    from games.jotto.guess_scoring import parse_turns

    class Words:
        def words(self, variant):
            d = jotto2.dictionary
            return pb.GetWordsReply(variant=variant, words=list(d.words), common=[bool(c) for c in d.common],
                                    word_length=d.length)

    lines = []

    class UI:
        def say(self, text):
            lines.append(str(text))
        error = say

    game = Jotto(UI(), Words(), SMALL_VARIANT, "equilibrium", seed=5, save_dir=str(tmp_path))
    g = Game("do", 5, tests=[("ad", 1), ("go", 1), ("do", 2)], person="won")
    game.save(g, 0)
    path = tmp_path / "jotto-5.json"
    req = json_format.Parse(path.read_text(), pb.AnalyzeGameRequest())
    assert req.variant == SMALL_VARIANT and req.jotto.role == pb.JottoState.GUESSER and req.jotto.secret == "do"
    turns = parse_turns(jotto2, [(t.guess, t.jots) for t in req.jotto.turns], req.jotto.secret)
    assert [t.wins for t in turns] == [False, False, True]
    game.save(Game("do", 6, tests=[("qq", 0)]), 1)
    assert not (tmp_path / "jotto-6.json").exists() and "not in my dictionary" in lines[-1]


def test_a_round_past_the_state_cap_is_refused_not_truncated(dudo_root):
    """More states than ``max_nodes`` to value: no partial review (the server answers FAILED_PRECONDITION)."""
    out = review_from_store(str(dudo_root[1]), _round(3, [(1, 2)], True, False), max_nodes=1)
    assert set(out) == {"too_large"} and "more than 1 states" in out["too_large"]


M1 = DudoParams(max_dice=1, iterations=50, memory=1, perfect_recall_total=0, exact_br_total=0)


def test_dudo_values_with_a_one_claim_memory_equal_the_exhaustive_expectation(tmp_path):
    """A store whose 1 v 1 strategy remembers only the last claim: the review values the rest of a round by
    the strategy's windows (one state per remembered claim), the brute force by every full claim history,
    looking each one's row up."""
    path = build_dudo_store(M1, tmp_path)
    store = Store(path)
    mem = store_memories(store.manifest)
    assert mem[(1, 1)] == 1

    @functools.lru_cache(maxsize=None)
    def row(own_face: int, hist: tuple):
        actions, probs = lookup_row(lambda k: store.get("windows", k), mem, 1, 1, (own_face,), list(hist))
        return dict(zip((int(a) for a in actions), (float(p) for p in probs)))

    try:
        for x in (1, 4, 6):
            for claims in HISTORIES[:3]:
                opened = len(claims) % 2 == 0
                hist = tuple(strength(n, r, 2) for n, r in claims)
                want, _ = brute_force(row, x, hist, opened)
                mine = row(x, hist)
                a = max(mine, key=mine.get)
                moves = list(claims) + ([] if a < 0 else [claim_table(2)[a]])
                m = review_from_store(str(path), _round(x, moves, opened, a < 0))["moves"][-1]
                got = {mv: v for mv, v, _ in m["alternatives"]}
                for b, v in want.items():
                    assert got[_name(b)] == pytest.approx(v, abs=1e-9)
    finally:
        store.close()
