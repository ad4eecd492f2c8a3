"""The terminal client (clients/play) driven as a person would, in a pseudo-terminal, against a real server.

Small stores are built once for the module (Jotto 3 letters, Dudo up to 2 dice, Hangman 4 letters) and a
server is started on 127.0.0.1 port 0; each test spawns `python -m clients.play` under pexpect and answers
its prompts. Seeds are fixed, so every game is the same on every run.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import grpc
import pexpect
import pytest

from clients.client import GameStrategyClient
from protos import gamestrategy_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
J3, DUDO, HM = "jotto-en_US80-3-ganzfried", "dudo-m3-2dice", "hangman-en_US50-4"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def jots(a: str, b: str) -> int:
    return sum((Counter(a) & Counter(b)).values())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from builder.dudo import build_dudo_store
    from games.dudo.build.params import DudoParams
    from builder.hangman import HangmanParams, build_hangman_store
    from builder.jotto import JottoParams, build_jotto_store
    from server.app import build_server
    from server.registry import Registry

    root = tmp_path_factory.mktemp("playstores")
    build_jotto_store(J3, JottoParams(fp_iterations=10, do_iterations=2, book_threshold=60), root)
    build_dudo_store(DudoParams(max_dice=2, iterations=100, exact_br_total=0), root)
    build_hangman_store(HangmanParams(4, eval_games=4), root)
    registry = Registry(root)
    registry.refresh()
    srv, port = build_server(registry, "127.0.0.1:0")
    srv.start()
    client = GameStrategyClient(f"127.0.0.1:{port}", timeout=30)
    yield port, client, registry.backends
    client.close()
    srv.stop(0).wait()
    registry.close()


@pytest.fixture(scope="module")
def words(server):
    _, client, _ = server
    r = client.stub.GetWords(pb.GetWordsRequest(variant=J3), timeout=30)
    return list(r.words), list(r.common)


DATA_HOME = ""  # where the games save their transcripts by default; short, as the games print it on one line


@pytest.fixture(scope="module", autouse=True)
def _data_home():
    global DATA_HOME
    DATA_HOME = tempfile.mkdtemp(prefix="play-data-")  # made here, not at import: xdist imports the module per worker
    yield
    shutil.rmtree(DATA_HOME, ignore_errors=True)


def spawn(port: int, *args: str, color: bool = False, sigint_ignored: bool = False) -> pexpect.spawn:
    env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="100", LINES="40", XDG_DATA_HOME=DATA_HOME)
    env.pop("NO_COLOR", None)
    cmd = [sys.executable, "-m", "clients.play", *args, "--target", f"127.0.0.1:{port}"]
    if not color:
        cmd.append("--no-color")
    # sigint_ignored: started as a background job of a script is (SIGINT ignored, inherited through exec)
    c = pexpect.spawn(cmd[0], cmd[1:], cwd=str(ROOT), env=env, encoding="utf-8", timeout=30,
                      dimensions=(40, 100),
                      preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None)
    c.transcript = []
    c.logfile_read = _Log(c.transcript)
    return c


class _Log:
    def __init__(self, out):
        self.out = out

    def write(self, s):
        self.out.append(s)

    def flush(self):
        pass


def text(c) -> str:
    return ANSI.sub("", "".join(c.transcript)).replace("\r\n", "\n")


def finish(c, code: int = 0) -> str:
    c.expect(pexpect.EOF)
    c.close()
    out = text(c)
    assert "Traceback" not in out, out
    assert c.exitstatus == code, (c.exitstatus, c.signalstatus, out[-2000:])
    return out


def secret_of(client, seed: int, strategy: str) -> str:
    return client.stub.SampleMove(pb.SampleMoveRequest(
        variant=J3, strategy=strategy, game_seed=seed,
        jotto=pb.JottoState(role=pb.JottoState.HIDER, common_secret=True)), timeout=30).move


# ------------------------------------------------------------------------------------------ the API additions
def test_get_words_and_common_secret(server, words):
    _, client, backends = server
    ws, common = words
    b = backends[J3]
    assert ws == list(b.dictionary.words) and common == [bool(x) for x in b.dictionary.common]
    r = client.stub.GetWords(pb.GetWordsRequest(variant=J3), timeout=30)
    assert r.word_length == 3 and r.store_version == b.version
    is_common = dict(zip(ws, common))
    for seed in range(40):  # the common secret is always common, reproducible, and drawn from the hider
        for strategy in ("", "beeler", "benchmark", "people"):
            w = secret_of(client, seed, strategy)
            assert is_common[w] and w == secret_of(client, seed, strategy)
    assert len({secret_of(client, s, "") for s in range(40)}) > 1
    with pytest.raises(grpc.RpcError) as e:
        client.stub.GetWords(pb.GetWordsRequest(variant=DUDO), timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "Jotto and Hangman" in e.value.details()
    hm = client.stub.GetWords(pb.GetWordsRequest(variant=HM), timeout=30)
    assert hm.word_length == 4 and hm.words == sorted(backends[HM].lex.words) and not hm.common


# ------------------------------------------------------------------------------------------ Jotto
def jotto_game(c, person_secret: str, my_tests, program_secret: str, lie=None, stop_after_program_win=True):
    """Plays the turns: the person types `my_tests` in order (ending with the program's secret when it is
    known) and answers honestly for `person_secret` (or `lie`). Returns when both sides are done."""
    tests = list(my_tests)
    asked = []
    while True:
        i = c.expect([r"YOUR TEST WORD:", r"MY TEST WORD: (\w+)", r"IS YOUR WORD (\w+)\?",
                      r"DO YOU WANT ME TO CONTINUE GUESSING YOUR WORD\?", r"DO YOU WANT TO CONTINUE GUESSING MY WORD\?",
                      r"ANOTHER GAME\?", r"WANT TO TAKE BACK AN ANSWER\?", r"DO YOU WANT TO TRY TO GUESS MY WORD\?",
                      r"WHAT WAS YOUR SECRET WORD\?", r"HOW MANY JOTS DOES (\w+) HAVE\?", r"REVIEW THIS GAME\?"])
        if i == 0:
            c.sendline(tests.pop(0) if tests else program_secret)
        elif i in (1, 2):
            w = c.match.group(1).lower()
            asked.append((w, i == 2))
            if w == person_secret:
                c.expect(r"\?")
                c.sendline("y")
            elif i == 2:
                c.expect(r"\?")
                c.sendline("n")
            else:
                j = lie(w) if lie else None
                c.expect(r"\?")
                c.sendline(str(jots(w, person_secret) if j is None else j))
        elif i in (3, 4, 7):  # keep playing after a win or a give-up: both sides finish
            c.sendline("y")
        elif i == 5:
            c.sendline("n")
            return asked
        elif i in (6, 10):
            c.sendline("n")
        elif i == 8:
            c.sendline(person_secret)
        elif i == 9:
            w = c.match.group(1).lower()
            j = lie(w) if lie else None
            c.sendline(str(jots(w, person_secret) if j is None else j))


def test_jotto_person_wins_with_unknown_words_and_listing(server, words):
    port, client, _ = server
    ws, common = words
    secret = secret_of(client, 11, "beeler")
    c = spawn(port, "jotto", "--variant", J3, "--level", "beeler", "--seed", "11")
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    c.sendline("maybe")
    c.expect("Please answer Y or N.")
    c.sendline("y")
    c.expect("YOUR TEST WORD:")
    c.sendline("ab1")
    c.expect("letters a-z only")
    c.expect("YOUR TEST WORD:")
    c.sendline("abcd")
    c.expect("Words here have 3 letters; ABCD has 4.")
    c.expect("YOUR TEST WORD:")
    c.sendline("qzx")  # not a word: asked, refused
    c.expect("ARE YOU SURE THAT'S A WORD\\?")
    c.sendline("n")
    c.expect("YOUR TEST WORD:")
    c.sendline("zqv")  # not a word: asked, accepted (Beeler's Y lets you cheat)
    c.expect("ARE YOU SURE THAT'S A WORD\\?")
    c.sendline("y")
    c.expect(f"ZQV: {jots('zqv', secret)} JOT")
    c.expect(r"MY TEST WORD: (\w+)")
    first = c.match.group(1).lower()
    c.expect(r"\?")
    c.sendline(str(jots(first, "cob")))
    c.expect("YOUR TEST WORD:")
    c.sendline("list")
    c.expect(r"Common words that fit your tests \((\d+)\)")
    n = int(c.match.group(1))
    fit = sorted(w.upper() for w, cm in zip(ws, common) if cm and jots("zqv", w) == jots("zqv", secret))
    assert n == len(fit)
    c.expect("YOUR TEST WORD:")
    listing = text(c).split("Common words that fit your tests")[1].split("\n")[1:-1]
    rows = [line.split() for line in listing if line.strip()]
    assert [r[0] for r in rows] == fit[:len(rows)]  # alphabetical down the first column
    assert rows[0][1] == fit[len(rows)]  # ... and the second column continues it
    c.sendline(secret)
    c.expect("YOU GOT IT! MY WORD WAS " + secret.upper())
    c.expect("DO YOU WANT ME TO CONTINUE GUESSING YOUR WORD\\?")
    c.sendline("y")
    asked = jotto_game(c, "cob", [], secret)
    out = finish(c)
    assert "I GOT IT" in out
    # beeler: common test words until the letters are known, then "IS YOUR WORD ...?"
    is_common = dict(zip(ws, common))
    for w, certain in [(first, False)] + asked:
        assert certain or is_common[w], (w, asked)
    assert asked[-1][0] == "cob"


def test_jotto_program_wins_first_and_offers_to_continue(server, words):
    port, client, _ = server
    secret = secret_of(client, 5, "")
    c = spawn(port, "jotto", "--variant", J3, "--seed", "5")  # equilibrium level
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    c.sendline("n")
    person = "fin"
    ws, _ = words
    mine = iter([w for w in ws if w != secret])
    while True:
        i = c.expect([r"MY TEST WORD: (\w+)", r"IS YOUR WORD (\w+)\?", "YOUR TEST WORD:",
                      r"DO YOU WANT TO CONTINUE GUESSING MY WORD\?", r"HOW MANY JOTS DOES (\w+) HAVE\?"])
        if i == 3:
            break
        if i == 2:
            c.sendline(next(mine))
            continue
        w = c.match.group(1).lower()
        if i == 4:
            c.sendline(str(jots(w, person)))
            continue
        c.expect(r"\?")
        c.sendline("y" if w == person else ("n" if i == 1 else str(jots(w, person))))
    c.sendline("y")  # keep guessing its word after its win
    for t in [next(mine), next(mine), secret]:
        c.expect("YOUR TEST WORD:")
        c.sendline(t)
        if t != secret:
            c.expect(f"{t.upper()}: {jots(t, secret)} JOT")
    c.expect("YOU GOT IT")
    c.expect("Game saved to ([^;]+); review it")
    saved = Path(c.match.group(1).strip())
    c.expect("REVIEW THIS GAME\\?")  # offered at the end, answered with the CLI's table
    c.sendline("y")
    c.expect(r"losses in guesses", timeout=150)  # live work on the server
    c.expect("costliest|ANOTHER GAME")
    if "ANOTHER" not in c.match.group(0):
        c.expect("ANOTHER GAME\\?")
    c.sendline("n")
    out = finish(c)
    assert "I GOT IT IN" in out and "YOU GOT IT! MY WORD WAS " + secret.upper() in out
    assert saved == Path(DATA_HOME, "gamestrategy", "games", "jotto-5.json") and saved.exists()
    review = out.split("losses in guesses", 1)[1]
    tested = [t.upper() for t in re.findall(r"YOUR TEST WORD: (\w+)", out)]
    rows = re.findall(r"^\s+(\d+)\s+(\w+)\s+\d+->\d+", review, re.M)  # one row per test word, in order
    assert [w.upper() for _, w in rows] == tested and "accuracy" in out


def test_jotto_undo_replays_the_deduction(server, words):
    port, client, _ = server
    person = "cob"
    c = spawn(port, "jotto", "--variant", J3, "--level", "benchmark", "--seed", "2")
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    c.sendline("n")
    c.expect(r"MY TEST WORD: (\w+)")
    first = c.match.group(1).lower()
    wrong = (jots(first, person) + 1) % 3
    c.expect(r"\?")
    c.sendline(str(wrong))
    c.expect("YOUR TEST WORD:")
    c.sendline("bet")
    c.expect(r"(MY TEST WORD:|IS YOUR WORD) (\w+)")
    c.expect(r"\?")
    c.sendline("undo")
    c.expect(f"1. {first.upper()}: {wrong} JOT")
    c.expect(r"WHICH ANSWER IS WRONG \(1-1\)\?")
    c.sendline("7")
    c.expect("The answer's number is a whole number from 1 to 1.")
    c.sendline("1")
    c.expect(f"HOW MANY JOTS DOES {first.upper()} REALLY HAVE\\?")
    c.sendline(str(wrong))
    c.expect("That is the answer you gave")
    c.sendline(str(jots(first, person)))
    c.expect(f"OOPS, {jots(first, person)} JOTS? ON {first.upper()} INSTEAD OF {wrong}. REPLAYING MY DEDUCTION")
    c.expect(r"(MY TEST WORD:|IS YOUR WORD) (\w+)")
    kind, replayed = c.match.group(1), c.match.group(2).lower()
    expected = client.stub.SampleMove(pb.SampleMoveRequest(
        variant=J3, strategy="benchmark", game_seed=2, jotto=pb.JottoState(
            role=pb.JottoState.GUESSER, history=[pb.JottoTurn(guess=first, jots=jots(first, person))])),
        timeout=30).move
    assert replayed == expected
    c.expect(r"\?")
    c.sendline("y" if replayed == person else ("n" if kind == "IS YOUR WORD" else str(jots(replayed, person))))
    if kind == "IS YOUR WORD" and replayed != person:
        c.expect("HOW MANY JOTS")
        c.sendline(str(jots(replayed, person)))
    jotto_game(c, person, ["ace"], secret_of(client, 2, "benchmark"))
    out = finish(c)
    assert "I GOT IT" in out and "YOU GOT IT" in out


def test_jotto_contradiction_is_reported(server, words):
    port, client, backends = server
    ws, _ = words
    person = "cob"
    told = []

    def lie(w):
        """The first answer is wrong (one jot more), the others true: the answers end up contradicting."""
        j = (jots(w, person) + 1) % 3 if not told else jots(w, person)
        told.append((w, j))
        return j

    c = spawn(port, "jotto", "--variant", J3, "--level", "beeler", "--seed", "4")
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    c.sendline("n")
    program = secret_of(client, 4, "beeler")
    jotto_game(c, person, ["ace", "bit"], program, lie=lie)
    out = finish(c)
    assert "NO WORD OF MY LIST FITS ALL YOUR ANSWERS: EITHER YOUR WORD IS NOT IN MY LIST" in out and "I GIVE UP" in out
    assert "IF YOUR WORD IS COB, " in out  # the answer that cannot be right, against the word it fits
    wrong = [(w, j) for w, j in told if j != jots(w, person)]
    assert wrong
    for w, j in wrong:  # every answer inconsistent with the secret is named at the end
        t = jots(w, person)
        assert f"YOU GAVE ME {j} JOT{'S' if j != 1 else ''} ON {w.upper()} AND THAT HAS {t} JOT" in out
    assert f"{len(wrong)} OF YOUR {len(told)} ANSWERS {'DOES' if len(wrong) == 1 else 'DO'} NOT FIT COB" in out


def test_jotto_a_word_left_out_of_the_list_is_not_blamed_on_the_answers(server, words):
    """The person's word is PEN (it has an anagram, so the 3-letter list leaves it out) and every answer is right:
    the game says at the start that it finds only words of its list, says at the dead end that the word may not be
    in it, and after the word is told, that the answers were right and why PEN is not in the list."""
    port, client, _ = server
    ws, _ = words
    assert "pen" not in ws
    c = spawn(port, "jotto", "--variant", J3, "--level", "beeler", "--seed", "4")
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    intro = " ".join(ANSI.sub("", c.before).split())
    assert (f"THINK OF YOURS, A WORD OF MY LIST (THE WORDS OF 3 DIFFERENT LETTERS THAT HAVE NO ANAGRAM: {len(ws)} "
            "WORDS); DON'T TELL ME. I FIND ONLY WORDS OF MY LIST.") in intro, intro
    c.sendline("n")
    program = secret_of(client, 4, "beeler")
    jotto_game(c, "pen", ["ace", "bit"], program)
    out = finish(c)
    assert "EITHER YOUR WORD IS NOT IN MY LIST" in out and "CONTRADICT" not in out
    assert "ALL YOUR ANSWERS FIT PEN: THEY WERE RIGHT. PEN IS NOT IN MY LIST: IT HAS AN ANAGRAM (NEP)" in out


# ------------------------------------------------------------------------------------------ Dudo
def test_dudo_full_game(server):
    port, _, _ = server
    from games.dudo.rules import challenge_outcome, count_for

    c = spawn(port, "dudo", "--variant", DUDO, "--seed", "7")
    c.expect("We each start with 2 dice.")
    c.expect("WOULD YOU LIKE TO OPEN THE FIRST ROUND\\?")
    c.sendline("y")
    rounds = wild = 0
    bad_inputs = ["dudo", "banana", "9x2", "1x7"]
    games = 1
    while True:
        i = c.expect([r"Legal claims, weakest first: ([^\n]*)\n", r"ANOTHER GAME\?", r"OPEN THE FIRST ROUND\?",
                      r"REVIEW THIS GAME\?"])
        if i == 3:  # the first game reviewed: one row per claim or challenge of the person's
            c.sendline("y" if games == 1 else "n")
            if games == 1:  # the whole table is printed before the next question (live work on the server)
                c.expect(r"losses in win probability[^\n]*\n", timeout=150)
                c.expect(r"ANOTHER GAME\?", timeout=30)
                reviewed = len(re.findall(r"^\s+\d+\s+\d+\s", c.before, re.M))
                games += 1
                c.sendline("y")
            continue
        if i == 1:
            if games == 6:
                break
            games += 1
            c.sendline("y")
            continue
        if i == 2:
            c.sendline("y" if games % 2 else "n")
            continue
        legal = c.match.group(1).replace("or dudo", "").split()
        c.expect("Your claim")
        if bad_inputs:
            b = bad_inputs.pop(0)
            c.sendline(b)
            c.expect({"dudo": "Nobody has claimed yet", "banana": "Type a claim as NxR", "9x2": "dice in play",
                      "1x7": "A face is 1 to 6"}[b])
            c.expect("Your claim")
        before = text(c).rsplit("Round", 1)[-1]
        c.sendline("dudo" if "I say" in before else legal[0])
        if "I say" not in before:
            continue
    c.sendline("n")
    out = finish(c)
    # check each round's explanation against the rules
    blocks = re.findall(r"(?:You|I) challenge (?:my|your) claim (\d+)x(\d+)\.\n\s*your dice([^\n]*)\n\s*my dice"
                        r"([^\n]*)\n(Dice counting[^\n]*)\n([^\n]*)", out)
    for n, r, yours, mine, counting, result in blocks:
        n, r = int(n), int(r)
        faces = [int(x) for x in re.findall(r"\d", yours + " " + mine)]
        actual = count_for([faces.count(f) for f in range(1, 7)], r)
        assert counting.startswith(f"Dice counting for {'ones' if r == 1 else f'{r}s'}")
        assert counting.endswith(f": {actual}; the claim was {n}."), counting
        loser, k = challenge_outcome(n, actual)
        assert f"lose {k}" in result and loser in result, result
        rounds += 1
        wild += r != 1 and 1 in faces
    assert rounds >= 8 and wild >= 2 and out.count("win the game") == 6
    first = out.split("REVIEW THIS GAME?", 1)[0]
    mine = len(re.findall(r"Your claim[^\n]*\n", first))  # the person's moves in game 1 (claims and Dudo)
    assert reviewed >= 1 and reviewed <= mine
    assert Path(DATA_HOME, "gamestrategy", "games", "dudo-7-1.json").exists()


def finish_after_another(c, games: int = 1) -> str:
    c.expect("ANOTHER GAME\\?")
    c.sendline("n")
    return finish(c)


# ------------------------------------------------------------------------------------------ Hangman
def test_hangman_full_game(server):
    port, client, _ = server
    c = spawn(port, "hangman", "--variant", HM, "--seed", "3")
    c.expect(r"YOUR WORD FOR ME TO COMPLETE \(4 letters")
    c.sendline("qqqq")
    c.expect("QQQQ is not in my word list")
    c.sendline("abc")
    c.expect("Words here have 4 letters")
    c.sendline("fish")
    c.expect("WOULD YOU LIKE TO GO FIRST\\?")
    c.sendline("y")
    order = iter("etaoinshrdlcumwfgypbvkjxqz")
    first = True
    while True:
        i = c.expect(["YOUR LETTER:", r"You win", r"I win", r"a draw"])
        if i:
            break
        if first:
            c.sendline("ab")
            c.expect("Type one letter a-z.")
            c.sendline("e")
            c.expect("YOUR LETTER:")
            c.sendline("e")
            c.expect("E was asked already.")
            first = False
            next(order)
            continue
        asked = set(re.findall(r"Letters asked: ([^\n]*)", text(c))[-1].lower().split())
        letter = next(x for x in order if x not in asked)
        c.sendline(letter)
    out = finish_after_another(c)
    assert "you: complete my word" in out and "I: complete your word" in out and "misses" in out
    assert re.search(r"(You win|I win|a draw)", out)
    if "I win: I completed your word" in out:
        assert "F I S H" in out.rsplit("Letters asked:", 1)[0]
    # "my word" is always the program's (the one the person completes), "your word" the person's (FISH)
    for letter, where, too in re.findall(r"You ask (\w): (in|not in) my word(?: \(a piece on your diagram\))?"
                                         r"(; in your word too)?\.", out):
        assert (letter.lower() in "fish") == bool(too), (letter, too)
    for letter, where, too in re.findall(r"I ask (\w): (in|not in) your word(?: \(a piece on my diagram\))?"
                                         r"(; in my word too)?\.", out):
        assert (where == "in") == (letter.lower() in "fish"), (letter, where)
    assert re.search(r"I ask \w: (in|not in) your word", out) and re.search(r"You ask \w: (in|not in) my word", out)


# ------------------------------------------------------------------------------------------ leaving
def test_ctrl_c_and_end_of_input_leave_cleanly(server):
    """Ctrl-C leaves also when the client inherited SIGINT ignored (as under a test run or a script started
    in the background: Python keeps SIG_IGN, and this test used to hang whenever pytest was started so)."""
    port, _, _ = server
    for ignored in (False, True):
        c = spawn(port, "dudo", "--variant", DUDO, "--seed", "1", sigint_ignored=ignored)
        c.expect("WOULD YOU LIKE TO OPEN")
        c.sendintr()
        c.expect(pexpect.EOF)
        c.close()
        assert "Traceback" not in text(c) and c.exitstatus == 130, ignored
    c = spawn(port, "jotto", "--variant", J3, "--seed", "1")
    c.expect("WOULD YOU LIKE TO GO FIRST")
    c.sendline("y")
    c.expect("YOUR TEST WORD:")
    c.sendeof()
    out = finish(c, 0)
    assert "Bye." in out


def test_colour_on_a_terminal_and_none_when_piped(server):
    port, _, _ = server
    c = spawn(port, "jotto", "--variant", J3, "--seed", "1", color=True)
    c.expect("GO FIRST")
    c.sendline("quit")
    c.expect(pexpect.EOF)
    assert "\x1b[" in "".join(c.transcript)
    r = subprocess.run([sys.executable, "-m", "clients.play", "jotto", "--variant", J3, "--seed", "1", "--target",
                        f"127.0.0.1:{port}"], input="y\nzz\nquit\n", capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    assert r.returncode == 0 and "\x1b[" not in r.stdout and "Words here have 3 letters" in r.stdout


# ------------------------------------------------------------------------------------------ words, commands, help
T5_WORDS = ["board", "crane", "plumb", "fight", "jowls", "hexed", "quart", "vinyl", "smirk", "dwelt", "glyph",
            "frock", "tango", "wispy", "chump", "baker", "lodge", "mason", "tribe", "witch"]


@pytest.fixture(scope="module")
def server5(tmp_path_factory):
    """A server on a tiny 5-letter list holding BOARD (a word that spells a command)."""
    from builder.jotto import JottoParams, build_jotto_store
    from games.jotto.dictionary import register_list_file
    from server.app import build_server
    from server.registry import Registry

    tmp = tmp_path_factory.mktemp("t5")
    (tmp / "t5.txt").write_text("\n".join(T5_WORDS) + "\n")
    variant = f"jotto-{register_list_file('t5', tmp / 't5.txt')}-5-all"
    root = tmp / "stores"
    build_jotto_store(variant, JottoParams(fp_iterations=4, do_iterations=1, people_oracle="gbr"), root)
    registry = Registry(root)
    registry.refresh()
    srv, port = build_server(registry, "127.0.0.1:0")
    srv.start()
    yield port, variant
    srv.stop(0).wait()
    registry.close()


def test_jotto_a_word_that_spells_a_command_is_tested_and_questions_explain_themselves(server5):
    port, variant = server5
    c = spawn(port, "jotto", "--variant", variant, "--level", "beeler", "--seed", "2")
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    c.sendline("?")  # the question explains itself, then asks again
    c.expect("you name the first test word")
    c.expect("Please answer Y or N.")
    c.sendline("y")
    c.expect("YOUR TEST WORD:")
    c.sendline("board")  # BOARD is a word of this game: tested, not the board command
    c.expect(r"BOARD: (\d) JOTS?")
    c.expect(r"MY TEST WORD: (\w+)")
    c.expect(r"\?")
    c.sendline("0")
    c.expect("YOUR TEST WORD:")
    c.sendline(":board")  # the command, with a colon
    c.expect("Test words so far")
    c.expect("YOUR TEST WORD:")
    c.sendline("quit")
    out = finish(c)
    assert "ARE YOU SURE" not in out


def test_jotto_an_unknown_word_is_told_why_it_may_be_missing(server, words):
    port, _, _ = server
    c = spawn(port, "jotto", "--variant", J3, "--level", "beeler", "--seed", "11")
    c.expect("WOULD YOU LIKE TO GO FIRST?")
    c.sendline("y")
    c.expect("YOUR TEST WORD:")
    c.sendline("zzq")
    c.expect("ZZQ is not in my list: it repeats a letter, and this list has only words of 3 different letters")
    c.expect("ARE YOU SURE THAT'S A WORD\\?")
    c.sendline("n")
    c.expect("YOUR TEST WORD:")
    c.sendline("zqv")
    c.expect("ZQV is not in my list: it is not a word of the en_US80 list I draw mine from")
    c.expect("ARE YOU SURE THAT'S A WORD\\?")
    c.sendline("n")
    c.expect("YOUR TEST WORD:")
    c.sendline("pen")
    c.expect("PEN is not in my list: it has an anagram \\(nep\\), and this list leaves out every word that has one")
    c.expect("ARE YOU SURE THAT'S A WORD\\?")
    c.sendline("n")
    c.expect("YOUR TEST WORD:")
    c.sendline("quit")
    finish(c)


class _ScriptedUI:
    """The terminal's UI with the person's answers scripted and everything said kept."""

    def __init__(self, answers):
        self.answers, self.said = iter(answers), []

    def say(self, text="", style=None):
        self.said.append(text)

    plain = error = say

    def show(self, renderable):
        pass

    def ask(self, prompt):
        return next(self.answers)

    def yes_no(self, prompt, help=None):
        return next(self.answers) == "y"


class _RecordingService:
    """The service's Hangman calls, recorded: the program's word is CRANE, its letters in a fixed order."""

    def __init__(self):
        self.letter_calls = []

    def words(self, variant):
        return pb.GetWordsReply(variant=variant, words=["crane", "fishy"], word_length=5)

    def hangman_word(self, variant, strategy, seed):
        return "crane"

    def hangman_letter(self, variant, strategy, seed, opponent_word, asked, own_pattern):
        self.letter_calls.append((opponent_word, asked, own_pattern))
        return next(c for c in "etaoinshrdlcumwfgypbvkjxqz" if c not in asked)


def test_hangman_asks_the_service_knowing_the_programs_own_word_and_never_the_persons():
    """The served letter strategy spares the letters of the word its opponent must complete, the program's own
    word (HangmanState.opponent_word): given the person's word there instead, it spares the very letters it has to
    find. The person's word is checked against the list (GetWords) here and never sent."""
    from clients.play.hangman import Hangman

    service = _RecordingService()
    ui = _ScriptedUI(["plumb", "fishy", "y"] + list("zqxjkvbpygfwmucldrhsoiate"))
    Hangman(ui, service, "hangman-en_US50-5", 5, "ours", 3).play_game(0)
    assert "PLUMB is not in my word list; choose another." in ui.said
    assert service.letter_calls and all(word == "crane" for word, _, _ in service.letter_calls), service.letter_calls
