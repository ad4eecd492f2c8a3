"""Symmetric Hangman (Saija & Henken) against the served strategy; the client referees with the shared
rules (games/hangman/game.py): a letter asked by either player is revealed in both words; a letter missing
from the asker's own word adds to his diagram; completing one's word wins, both at once is a draw, a full
diagram loses.
"""
from __future__ import annotations

from rich.columns import Columns
from rich.panel import Panel
from rich.text import Text

from clients.play.service import Service
from clients.play.ui import UI
from games.hangman.game import ALPHABET, DIAGRAM_PIECES, DRAW, MAX_MISSES, WIN, Lexicon, State

HELP = """[bold]Symmetric Hangman[/]: [italic]my word[/] is the one I chose, and you complete it; [italic]your
word[/] is the one you chose, and I complete it. In turn we ask a letter not asked before; it is shown wherever
it occurs in [italic]both[/] words. A letter you ask that is not in my word adds a piece to your diagram ({m}
pieces; mine likewise). Whoever completes the word they must complete first wins (both at once: a draw); a
full diagram loses.   Type one letter, ? for this help, quit to leave."""

def diagram(misses: int, max_misses: int = MAX_MISSES) -> str:
    grid = [[" "] * 9 for _ in range(7)]
    shown = round(misses * len(DIAGRAM_PIECES) / max_misses) if max_misses else 0
    for piece in DIAGRAM_PIECES[:shown]:
        for r, c, ch in piece:
            grid[r][c] = ch
    return "\n".join("".join(row).rstrip() or " " for row in grid)


class Hangman:
    def __init__(self, ui: UI, service: Service, variant: str, length: int, level: str, seed: int):
        self.ui, self.service, self.variant, self.L, self.level, self.seed = ui, service, variant, length, level, seed
        self.words = frozenset(service.words(variant).words)   # the person's word is checked here, never sent

    def choose_person_word(self, program_word: str) -> str:
        while True:
            t = self.ui.ask(f"YOUR WORD FOR ME TO COMPLETE ({self.L} letters, I won't look):").lower()
            if t == "?":
                self.ui.say(HELP.format(m=MAX_MISSES))
                continue
            if not t.isascii() or not t.isalpha():
                self.ui.error("A word is letters a-z only.")
                continue
            if len(t) != self.L:
                self.ui.error(f"Words here have {self.L} letters; {t.upper()} has {len(t)}.")
                continue
            if t not in self.words:
                self.ui.error(f"{t.upper()} is not in my word list; choose another.")
                continue
            return t

    def board(self, st: State, words) -> None:
        you_miss, me_miss = st.misses
        left = Panel(Text(f"{diagram(you_miss)}\n\n{' '.join(st.pattern(0).upper())}\n"
                          f"misses {you_miss}/{st.max_misses}"), title="you: complete my word", border_style="green")
        right = Panel(Text(f"{diagram(me_miss)}\n\n{' '.join(st.pattern(1).upper())}\n"
                           f"misses {me_miss}/{st.max_misses}"), title="I: complete your word", border_style="magenta")
        self.ui.show(Columns([left, right]))
        asked = "".join(ALPHABET[c] for _, c in st.history)
        self.ui.say(f"Letters asked: [bold]{' '.join(asked.upper()) or '-'}[/]")

    def play_game(self, game: int) -> None:
        seed = self.seed + game
        program_word = self.service.hangman_word(self.variant, self.level, seed)
        person_word = self.choose_person_word(program_word)
        lex = Lexicon({program_word, person_word})
        # player 0 = the person (completes the program's word), player 1 = the program
        first = 0 if self.ui.yes_no("WOULD YOU LIKE TO GO FIRST?", "Y: you ask the first letter; N: I ask "
                                    "first. Then we take turns, one letter each.") else 1
        st = State(lex, (lex.index[program_word], lex.index[person_word]), first=first)
        self.board(st, (program_word, person_word))
        while st.result is None:
            if st.to_move == 0:
                asked = {ALPHABET[c] for _, c in st.history}
                while True:
                    t = self.ui.ask("YOUR LETTER:").lower()
                    if t == "?":
                        self.ui.say(HELP.format(m=st.max_misses))
                    elif len(t) != 1 or not ("a" <= t <= "z"):
                        self.ui.error("Type one letter a-z.")
                    elif t in asked:
                        self.ui.error(f"{t.upper()} was asked already.")
                    else:
                        break
                letter = t
                hit = letter in program_word
                # "my word": the one I chose, which you complete; "your word": yours, which I complete
                self.ui.say(f"You ask {letter.upper()}: {'in' if hit else '[bold red]not in[/]'} my word"
                            + ("" if hit else " (a piece on your diagram)")
                            + ("; in your word too" if letter in person_word else "") + ".")
            else:
                asked = "".join(ALPHABET[c] for _, c in st.history)
                # the service knows the program's own word (the one the person completes), never the person's
                letter = self.service.hangman_letter(self.variant, self.level, seed, program_word, asked,
                                                     st.pattern(1))
                hit = letter in person_word
                self.ui.say(f"I ask [bold magenta]{letter.upper()}[/]: {'in' if hit else 'not in'} your word"
                            + ("" if hit else " (a piece on my diagram)")
                            + ("; in my word too" if letter in program_word else "") + ".")
            st.ask(ALPHABET.index(letter))
            self.board(st, (program_word, person_word))
        you, _ = st.result
        if you == DRAW:
            self.ui.say("[bold]Both words complete at once: a draw.[/]")
        elif you == WIN:
            why = "you completed my word" if st.complete(0) else "my diagram is full"
            self.ui.say(f"[bold green]You win[/]: {why}. My word for you was {program_word.upper()}.")
        else:
            why = "I completed your word" if st.complete(1) else "your diagram is full"
            self.ui.say(f"[bold red]I win[/]: {why}. My word for you was {program_word.upper()}.")

    def run(self) -> None:
        self.ui.say(f"[bold]SYMMETRIC HANGMAN[/] on {self.variant} ({self.L}-letter words, strategy {self.level}, seed {self.seed}); "
                    "? for help.")
        game = 0
        while True:
            self.play_game(game)
            game += 1
            if not self.ui.yes_no("ANOTHER GAME?"):
                return
