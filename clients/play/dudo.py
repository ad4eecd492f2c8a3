"""Dudo (2-player Liar's Dice, ones wild) against the served strategy; the client is the referee.

The dice are rolled here from the seed; claims are ordered and challenges settled by the shared rules
(games/dudo/rules.py): count > claim: the challenger loses count - claim dice; count < claim: the
claimant loses claim - count; equal: the challenger loses one. The challenge's winner opens the next
round; a player with no dice has lost.
"""
from __future__ import annotations

import re

import numpy as np
from rich.table import Table

from clients.play.review_screen import offer_review, save_transcript
from clients.play.service import Service, dice_of
from clients.play.ui import UI
from games.dudo.rules import FACES, MAX_DICE, challenge_outcome, claim_table, count_for, strength

HELP = """[bold]Dudo[/]: each player rolls his dice in secret. In turn players claim [bold]NxR[/] ("at least N dice
show R" among all dice in play); ones are wild: they count for every face (1x1 counts only ones). Each claim
must be stronger than the last (the order is listed). Instead of claiming you may say [bold]dudo[/]: the dice
are shown. Count > claim: the challenger loses the difference; count < claim: the claimant loses the
difference; exactly: the challenger loses one die. The challenge's winner opens the next round; a player
with no dice has lost.   Type a claim like 2x5, or dudo, ? for this help, quit to leave."""

FACE = "⚀⚁⚂⚃⚄⚅"


def show_dice(roll) -> str:
    return "  ".join(f"{FACE[f - 1]} {f}" for f in roll)


def claim_str(c) -> str:
    return f"{c[0]}x{c[1]}"


class Dudo:
    def __init__(self, ui: UI, service: Service, variant: str, seed: int, save_dir: str | None = None):
        self.ui, self.service, self.variant, self.seed = ui, service, variant, seed
        self.start_dice = min(dice_of(variant), MAX_DICE)
        self.save_dir = save_dir
        self.transcript: list[dict] = []  # this game's rounds, AnalyzeGameRequest's JSON form (docs/review.md)

    def legal(self, total: int, history) -> list[tuple[int, int]]:
        table = claim_table(total)
        if not history:
            return list(table)
        s = strength(*history[-1], total)
        return list(table[s + 1:])

    def parse_claim(self, text: str, total: int, history):
        """(n, r), "dudo", or None after a one-line explanation."""
        t = text.lower().replace(" ", "")
        if t == "dudo":
            if not history:
                self.ui.error("Nobody has claimed yet: open the round with a claim like 1x5.")
                return None
            return "dudo"
        m = re.fullmatch(r"(\d+)[x*×](\d+)", t)
        if not m:
            self.ui.error("Type a claim as NxR (e.g. 2x5: at least two fives), or dudo to challenge.")
            return None
        n, r = int(m.group(1)), int(m.group(2))
        if not 1 <= r <= FACES:
            self.ui.error(f"A face is 1 to {FACES}; {r} is not.")
            return None
        if not 1 <= n <= total:
            self.ui.error(f"There are {total} dice in play: a claim counts 1 to {total} dice.")
            return None
        if history and strength(n, r, total) <= strength(*history[-1], total):
            self.ui.error(f"{n}x{r} is not stronger than {claim_str(history[-1])}; see the legal claims above.")
            return None
        return (n, r)

    def round(self, game: int, rnd: int, you: int, me: int, you_open: bool):
        """One round; returns the dice after it and who opens the next."""
        rng = np.random.default_rng([self.seed, game, rnd])
        your_roll = sorted(int(x) for x in rng.integers(1, FACES + 1, you))
        my_roll = sorted(int(x) for x in rng.integers(1, FACES + 1, me))
        total = you + me
        self.ui.say(f"\n[bold]Round {rnd + 1}[/]: you have {you} {'die' if you == 1 else 'dice'}, "
                    f"I have {me}. {'You open' if you_open else 'I open'}.")
        self.ui.say(f"Your dice: [bold green]{show_dice(your_roll)}[/]    my dice: {'? ' * me}")
        history: list[tuple[int, int]] = []
        who: list[str] = []
        your_turn = you_open
        move_seed = (self.seed * 1_000_003 + game * 1009 + rnd) & ((1 << 63) - 1)
        while True:
            if your_turn:
                legal = self.legal(total, history)
                self.ui.say("Legal claims, weakest first: " + " ".join(claim_str(c) for c in legal)
                            + ("   or dudo" if history else ""))
                while True:
                    t = self.ui.ask("Your claim (NxR) or dudo:")
                    if t == "?":
                        self.ui.say(HELP)
                        continue
                    c = self.parse_claim(t, total, history)
                    if c is not None:
                        break
                actor = "you"
            else:
                mv = self.service.dudo_move(self.variant, move_seed, me, you, my_roll, history, not you_open)
                c = "dudo" if mv == "dudo" else tuple(int(x) for x in mv.split("x"))
                actor = "I"
                self.ui.say(f"I say: [bold magenta]{'DUDO!' if c == 'dudo' else claim_str(c)}[/]")
            if c == "dudo":
                break
            history.append(c)
            who.append(actor)
            self.ui.say("Claims: " + ", ".join(f"{claim_str(h)} ({w})" for h, w in zip(history, who)))
            your_turn = not your_turn
        # the challenge
        n, r = history[-1]
        challenger_you = actor == "you"
        faces = np.bincount(your_roll + my_roll, minlength=FACES + 1)[1:]
        count = count_for(faces, r)
        self.ui.say(f"{'You challenge' if challenger_you else 'I challenge'} "
                    f"{'my' if challenger_you else 'your'} claim {n}x{r}.")
        t = Table(show_header=False, box=None)
        t.add_row("your dice", show_dice(your_roll))
        t.add_row("my dice", show_dice(my_roll))
        self.ui.show(t)
        what = "ones" if r == 1 else f"{r}s (ones are wild)"
        self.ui.say(f"Dice counting for {what}: [bold]{count}[/]; the claim was {n}.")
        loser, k = challenge_outcome(n, count)
        loser_you = (loser == "challenger") == challenger_you
        if count > n:
            why = f"{count} > {n}: the challenger loses {count} - {n} = {k}"
        elif count < n:
            why = f"{count} < {n}: the claimant loses {n} - {count} = {k}"
        else:
            why = "Exactly the claim: the challenger loses 1"
        self.ui.say(f"{why} {'die' if k == 1 else 'dice'}: [bold]{'you lose' if loser_you else 'I lose'} {k}[/].")
        self.transcript.append(dict(ownDice=you, opponentDice=me, roll=your_roll, opponentRoll=my_roll,
                                    reviewedOpened=you_open, claims=[dict(count=c[0], face=c[1]) for c in history]))
        if loser_you:
            you -= k
        else:
            me -= k
        return max(you, 0), max(me, 0), loser_you is False  # the challenge's winner opens

    def play_game(self, game: int) -> dict | None:
        you = me = self.start_dice
        self.ui.say(f"We each start with {you} {'die' if you == 1 else 'dice'}.")
        you_open = self.ui.yes_no("WOULD YOU LIKE TO OPEN THE FIRST ROUND?")
        rnd = 0
        while you > 0 and me > 0:
            you, me, you_open = self.round(game, rnd, you, me, you_open)
            rnd += 1
            if you > 0 and me > 0:
                self.ui.say(f"Dice left: you {you}, me {me}. {'You' if you_open else 'I'} open the next round.")
        if you > 0:
            self.ui.say("[bold green]I have no dice left: you win the game.[/]")
        else:
            self.ui.say("[bold red]You have no dice left: I win the game.[/]")
        return self.save(game)

    def save(self, game: int) -> dict | None:
        """The finished game's transcript (AnalyzeGameRequest's JSON form), saved as DIR/dudo-<seed>-<game>.json
        when there is a save directory."""
        rounds, self.transcript = self.transcript, []
        if not rounds:
            return None
        body = dict(variant=self.variant, dudo=rounds)
        save_transcript(self.ui, self.save_dir, f"dudo-{self.seed}-{game + 1}.json", body)
        return body

    def run(self) -> None:
        self.ui.say(f"[bold]DUDO[/] (Liar's Dice, ones wild) on {self.variant}, seed {self.seed}; ? for help at a claim.")
        game = 0
        while True:
            offer_review(self.ui, self.service, self.play_game(game))
            game += 1
            if not self.ui.yes_no("ANOTHER GAME?"):
                return
