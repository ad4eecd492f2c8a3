"""bench.dudo_match: whole Dudo games of the served policy against another player, in pairs on the same dice."""
import itertools
import re

import numpy as np
import pytest

from bench import dudo_match
from builder.dudo import build_dudo_store
from games.dudo.build.params import DudoParams
from games.dudo.rules import claim_table

PARAMS = DudoParams(max_dice=2, iterations=20, memory=1, perfect_recall_total=0, exact_br_total=0,
                    large_search=(3, 2, 10, 4), label="tiny")


@pytest.mark.parametrize("roll,opponent_dice", [((1, 4), 2), ((2, 2, 5), 3), ((6,), 1), ((1, 1), 3)])
def test_a_claims_probability_is_the_share_of_the_opponents_rolls_that_make_it_true(roll, opponent_dice):
    total = len(roll) + opponent_dice
    for n, face in claim_table(total):
        true = sum(sum(1 for d in roll + other if d == face or (d == 1 and face != 1)) >= n
                   for other in itertools.product(range(1, 7), repeat=opponent_dice))
        assert dudo_match.claim_probability(roll, opponent_dice, n, face) == pytest.approx(true / 6 ** opponent_dice)


def test_the_heuristic_doubts_an_unlikely_claim_and_otherwise_claims_a_likely_one():
    rng = np.random.default_rng(0)
    assert dudo_match.heuristic_move((2, 3), 2, [(4, 6)], rng) == "dudo"      # no six, no one: 4 sixes of 2 dice
    for _ in range(20):
        move = dudo_match.heuristic_move((1, 6, 6), 3, [(2, 6)], rng)
        n, face = (int(x) for x in move.split("x"))
        assert dudo_match.claim_probability((1, 6, 6), 3, n, face) >= dudo_match.HEURISTIC_DOUBT


def test_a_match_is_the_same_games_under_the_same_seed_and_every_game_ends():
    def heuristic_pair(seed):
        return (dudo_match.heuristic_player(np.random.default_rng((seed, 0))),
                dudo_match.heuristic_player(np.random.default_rng((seed, 1))))

    a = dudo_match.play_match(*heuristic_pair(3), max_dice=5, pairs=6, seed=3)
    b = dudo_match.play_match(*heuristic_pair(3), max_dice=5, pairs=6, seed=3)
    assert a.pair_scores == b.pair_scores and sum(a.games.values()) == 12 and not a.failed
    assert set(a.pair_scores) <= {0.0, 0.5, 1.0}


def test_the_seats_swap_within_a_pair_on_the_same_dice():
    """In the pair's second game the served side rolls what its opponent rolled in the first, and the other way
    round (two players that open with 1x1 and doubt every claim, so both games go alike)."""
    seen = {"served": [], "opponent": []}

    def player(name):
        def move(own, opp, roll, history, opened, seed):
            seen[name].append((own, opp, tuple(roll)))
            return ("dudo" if history else "1x1"), "CLIENT"
        return move

    m = dudo_match.play_match(player("served"), player("opponent"), max_dice=2, pairs=1, seed=5)
    half = len(seen["served"]) // 2
    assert seen["served"][:half] == seen["opponent"][half:] and seen["opponent"][:half] == seen["served"][half:]
    assert m.pair_scores == [0.5]


def test_the_command_plays_the_served_policy_against_the_heuristic_and_the_rows(tmp_path, capsys):
    build_dudo_store(PARAMS, tmp_path)
    for opponent in ("heuristic", "fsicfr"):
        assert dudo_match.main(["--root", str(tmp_path), "--variant", PARAMS.variant, "--pairs", "3",
                                "--opponent", opponent]) == 0
        out = capsys.readouterr().out
        line = re.search(rf"{PARAMS.variant} search against {opponent} .*: 6 games, the served side won (\d); win rate "
                         r"[0-9.]+ \+- [0-9.]+ over 3 pairs .*answers by source \{(.*)\}; failed calls none", out)
        assert line, out
        assert "'LIVE'" in line.group(2)


@pytest.mark.parametrize("argv,fault", [(["--pairs", "0"], "--pairs must be at least 1"),
                                        (["--variant", "dudo-x", "--target", "127.0.0.1:1"], "--max-dice: 1..5")])
def test_bad_arguments_exit_2_naming_the_fault(argv, fault, capsys):
    with pytest.raises(SystemExit) as e:
        dudo_match.main(argv)
    assert e.value.code == 2 and fault in capsys.readouterr().err
