"""Plain-text tables of replies, shared by the CLI and the terminal games."""
from __future__ import annotations

from protos import gamestrategy_pb2 as pb


def number(x: float) -> str:
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else f"{x:.4g}"


def duration(seconds: float) -> str:
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    return f"{m} min {s} s" if s else f"{m} min"


def building_lines(building) -> list[str]:
    """The stores a build beside the server is still making (ListVariants' and GetStats' ``building``), one
    line each: 'dudo-5dice-default  being built: about 40%, about 3 min 10 s left'."""
    out = []
    for b in building:
        bits = []
        if b.state == "building":
            bits.append("no estimate yet" if b.fraction < 0 else f"about {round(100 * b.fraction)}%")
        if b.eta_seconds >= 0:
            bits.append(f"about {duration(b.eta_seconds)} left")
        what = "being built" if b.state == "building" else "waiting to be built"
        out.append(f"{b.variant:32s} {what}" + (f": {', '.join(bits)}" if bits else "") + "; served when published")
    return out


def jotto_label(m) -> str:
    """A reviewed word's label, saying so where the word named the secret (judged before its answer)."""
    return f"{m.label} (it named the secret)" if m.label and m.after == 0 else m.label


def table(rows: list[list[str]], right: set) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


# what a review's labels judge and what its columns are (docs/review.md, docs/glossary.md)
JOTTO_LEGEND = [
    "  each word is judged before its answer, by the expected guesses to find the secret with it (the served",
    "  hider's secret over the words still possible), not by whether it hit: a word that named the secret by luck",
    "  can still be labelled. words: still possible before->after; guesses: expected with this word; best: the",
    "  word with the fewest; loss = guesses - best guesses; uniform, best uniform: the same against a uniform",
    "  secret over the words still possible; continuation: how the rest of the game is valued (exact: the best",
    "  play from there; greedy: the greedy guesser's). docs/review.md, docs/glossary.md",
]
DUDO_LEGEND = [
    "  each move is judged by your win probability after it (p: the strategy's probability of your move;",
    "  before: your win probability under the strategy's mix; best: the move with the highest; loss = best",
    "  value - after; p of: whose probabilities p and before are, search: the searched policy's, fsicfr: the",
    "  stored rows', *: a move the served strategy searches that the review did not, and why, below).",
    "  docs/review.md, docs/glossary.md",
]


def review_lines(r: pb.AnalyzeGameReply) -> list[str]:
    """The review as a table: one row per reviewed move, then the costliest moves."""
    th = ", ".join(f"{k} >= {number(v)}" for k, v in sorted(r.thresholds.items(), key=lambda kv: kv[1]))
    dudo = r.unit == "win probability"
    out = [f"{r.variant}  store {r.store_version}  strategy {r.strategy}  accuracy {r.accuracy:.1f}",
           f"  losses in {r.unit}; {th}"] + (DUDO_LEGEND if dudo else JOTTO_LEGEND)
    if dudo:
        rows = [["#", "round", "move", "p", "before", "after", "best", "best value", "loss", "label", "p of"]]
        why = []
        for i, m in enumerate(r.moves):
            of, _, reason = m.policy.partition(": ")
            if reason:
                why.append(f"  * #{i + 1}: {reason}")
            rows.append([str(i + 1), str(m.round + 1), m.move, f"{m.probability:.3f}", f"{m.before:.3f}",
                         f"{m.after:.3f}", m.best_move, f"{m.best_value:.3f}", f"{m.loss:.3f}", m.label,
                         of + ("*" if reason else "")])
        out += table(rows, {0, 1, 3, 4, 5, 7, 8}) + why
    else:
        rows = [["#", "word", "words", "guesses", "best", "best guesses", "loss", "uniform", "best uniform",
                 "continuation", "label"]]
        for i, m in enumerate(r.moves):
            rows.append([str(i + 1), m.move, f"{int(m.before)}->{int(m.after)}", f"{m.value:.3f}", m.best_move,
                         f"{m.best_value:.3f}", f"{m.loss:.3f}", f"{m.value_uniform:.3f}",
                         f"{m.best_value_uniform:.3f}", m.continuation, jotto_label(m)])
        out += table(rows, {0, 2, 3, 5, 6, 7, 8})
    if r.costliest:
        out.append("  costliest: " + "; ".join(
            f"#{i + 1} {r.moves[i].move}" + (f" (round {r.moves[i].round + 1})" if dudo else "")
            + f" -{r.moves[i].loss:.3f}" for i in r.costliest))
    return out
