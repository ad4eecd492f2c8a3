"""After a finished game: where its transcript is saved, and the review (AnalyzeGame) offered at once."""
from __future__ import annotations

import json
import os
from pathlib import Path

import grpc

from clients.play.service import Service
from clients.play.ui import UI
from clients.tables import review_lines

REVIEW_HELP = ("The service scores each of your moves against the strategy it serves (AnalyzeGame): what it "
               "cost, labelled inaccuracy / mistake / blunder, and the three that cost most.")


def default_save_dir() -> str:
    """Where finished games are kept unless --save-dir says otherwise: $XDG_DATA_HOME/gamestrategy/games."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "gamestrategy", "games")


def save_transcript(ui: UI, save_dir: str | None, name: str, body: dict) -> None:
    """The transcript (an AnalyzeGameRequest in JSON, docs/review.md) as SAVE_DIR/NAME; one line says where."""
    if not save_dir:
        return
    path = Path(save_dir) / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=1) + "\n")
    except OSError as e:
        ui.error(f"could not save the game to {path}: {e.strerror or e}")
        return
    ui.say(f"Game saved to {path}; review it: gamestrategy review {path}")


def offer_review(ui: UI, service: Service, body: dict | None) -> None:
    """Asks whether to review the finished game now and prints the review as the CLI does."""
    if body is None or not ui.yes_no("REVIEW THIS GAME?", help=REVIEW_HELP):
        return
    ui.say("Reviewing (every move of yours against the served strategy)...")
    try:
        reply = service.analyze(body)
    except grpc.RpcError as e:
        ui.error(f"The review failed: {e.code().name}: {e.details()}")
        return
    for line in review_lines(reply):
        ui.plain(line)
