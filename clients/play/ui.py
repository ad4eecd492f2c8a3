"""Terminal input/output shared by the games: polite prompts, one-line explanations, column listings."""
from __future__ import annotations

import math
import os

from rich.console import Console
from rich.markup import escape

from clients.play.terminal_line import for_stdin

YES = {"y", "yes"}
NO = {"n", "no"}


class Quit(Exception):
    """The person asked to leave (typed quit)."""


class UI:
    def __init__(self, color: bool = True):
        color = color and not os.environ.get("NO_COLOR")
        self.console = Console(highlight=False, color_system="auto" if color else None)
        self.lines = for_stdin()  # None when input is not a terminal: then the console reads it

    # ---------------------------------------------------------------- output
    def say(self, text: str = "", style: str | None = None) -> None:
        self.console.print(text, style=style, soft_wrap=False)

    def plain(self, text: str, style: str | None = None) -> None:
        """Text that is printed as it is (words typed by the person: no markup)."""
        self.console.print(escape(text), style=style)

    def error(self, text: str) -> None:
        self.console.print(escape(text), style="bold red", soft_wrap=True)  # one line, never wrapped

    def show(self, renderable) -> None:
        self.console.print(renderable)

    # ---------------------------------------------------------------- input
    def ask(self, prompt: str) -> str:
        """One line from the person, stripped; EOFError / KeyboardInterrupt leave through main."""
        if self.lines is None:
            text = self.console.input(f"[bold cyan]{prompt}[/] ")
        else:
            self.console.print(f"[bold cyan]{prompt}[/] ", end="")
            self.console.file.flush()
            text = self.lines.read_line()
        t = text.strip()
        if t.lower() in ("quit", "exit"):
            raise Quit
        return t

    def yes_no(self, prompt: str, help: str | None = None) -> bool:
        """Y or N; `?` explains the question (`help`) and asks again."""
        while True:
            t = self.ask(prompt).lower()
            if t in YES:
                return True
            if t in NO:
                return False
            if t == "?" and help:
                self.say(help)
            self.error("Please answer Y or N.")

    def number(self, prompt: str, lo: int, hi: int, what: str = "a number") -> int:
        while True:
            t = self.ask(prompt)
            if t.isdigit() and lo <= int(t) <= hi:
                return int(t)
            self.error(f"{what[0].upper() + what[1:]} is a whole number from {lo} to {hi}.")

    # ---------------------------------------------------------------- listings
    def columns(self, words: list[str], title: str) -> None:
        """Words alphabetically down each column (Beeler's plea), a page at a time."""
        words = sorted(words)
        self.say(f"[bold]{escape(title)}[/] ({len(words)})")
        if not words:
            return
        cell = max(len(w) for w in words) + 2
        width = max(self.console.width, cell)
        ncols = max(1, width // cell)
        rows_per_page = max(4, self.console.height - 4)
        per_page = ncols * rows_per_page
        for start in range(0, len(words), per_page):
            page = words[start:start + per_page]
            rows = math.ceil(len(page) / ncols)
            for r in range(rows):
                line = "".join(page[c * rows + r].ljust(cell) for c in range(ncols) if c * rows + r < len(page))
                self.plain(line.rstrip())
            if start + per_page < len(words):
                if self.ask("-- more: Enter for the next page, q to stop --").lower() == "q":
                    return
