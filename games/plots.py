"""Pictures of a store's quality figures (matplotlib, SVG): one set of plots for the operations page and
for ``python -m builder.report --html``.

Jotto: fictitious play's and the double oracle's curves per iteration (recorded by the builder) and the
guessers compared; Dudo: the exploitability of every round (own dice x opponent dice) as a heat map,
each cell labelled with the kind of best response that measured it.
"""
from __future__ import annotations

import io
import threading

import numpy as np

from games.jotto.store import CERT_CURVES, DO_CURVES, FP_CURVES, FP_EPSILON, GUARANTEE_HISTORY, array_key
from games.storage import Store, StoreError

_lock = threading.Lock()  # pyplot's state is global: one figure at a time
GUESSERS = ("benchmark", "fp", "double_oracle", "beeler", "people")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _svg(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    _plt().close(fig)
    return buf.getvalue()


def _array(store: Store, key: str) -> np.ndarray | None:
    try:
        return store.array(key)
    except StoreError:
        return None


def plot_names(store: Store) -> list[str]:
    """The plots this store has data for."""
    game = store.manifest.get("game")
    if game == "jotto":
        return ["fp", "double_oracle", "guessers"] + (["exact_do"] if "exact_do" in store.manifest["strategies"] else [])
    if game == "dudo":
        return ["exploitability"]
    return []


def render(store: Store, name: str) -> bytes:
    """One plot of a store as SVG; KeyError for a plot the store has no data for."""
    if name not in plot_names(store):
        raise KeyError(name)
    with _lock:
        return _svg(PLOTS[name](store))


def jotto_fp(store: Store):
    """Fictitious play per iteration: Ganzfried's epsilon (and its hider/guesser parts and the guesser
    mixture's guarantee where the store recorded them), t* marked."""
    plt = _plt()
    m = store.manifest
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    curves = _array(store, array_key(FP_CURVES, "fp"))  # epsilon_hider, epsilon_guesser, guarantee
    if curves is not None:
        t = np.arange(len(curves))
        ax.plot(t, np.maximum(curves[:, 0], curves[:, 1]),
                label="epsilon (max)", color="C0", lw=1.6)
        ax.plot(t, curves[:, 0], label="epsilon hider", color="C1", lw=0.8, alpha=0.8)
        ax.plot(t, curves[:, 1], label="epsilon guesser", color="C2", lw=0.8, alpha=0.8)
        ax2 = ax.twinx()
        ax2.plot(t, curves[:, 2], color="C3", lw=1.2, ls="--", label="guarantee (guesses)")
        ax2.set_ylabel("guesser mixture's guarantee (guesses)", color="C3")
        ax2.legend(loc="upper center", fontsize=8, frameon=False)
    else:
        eps = _array(store, array_key(FP_EPSILON, "fp"))
        t = np.arange(len(eps) if eps is not None else 0)
        if eps is not None:
            ax.plot(t, eps, label="epsilon (max)", color="C0")
    ts = m["strategies"]["fp"].get("t_star")
    if ts is not None:
        ax.axvline(ts, color="grey", ls=":", lw=1)
        ax.annotate(f"t* = {ts}", (ts, ax.get_ylim()[1]), fontsize=8, ha="left", va="top", color="grey")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.set_ylabel("epsilon (guesses)")
    ax.set_title(f"{m['variant']}: fictitious play", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    return fig


def _integer_ticks():
    """Ticks at whole numbers only (rounds and iterations have no 1.25)."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def jotto_double_oracle(store: Store):
    """Double oracle per round: the restricted game's guarantee and, where recorded, the restricted
    hider's payoff against its greedy response (the gap between them is the round's epsilon)."""
    plt = _plt()
    m = store.manifest
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    curves = _array(store, array_key(DO_CURVES, "double_oracle"))  # guarantee, hider vs greedy response
    if curves is None:
        g = _array(store, array_key(GUARANTEE_HISTORY, "double_oracle"))
        curves = np.column_stack([g]) if g is not None else np.zeros((0, 1))
    r = np.arange(1, len(curves) + 1)
    ax.plot(r, curves[:, 0], marker=".", label="guarantee (upper bound on guesses)", color="C0")
    if curves.shape[1] > 1:
        ax.plot(r, curves[:, 1], marker=".", label="restricted hider vs greedy response", color="C1")
        # the gap of each round's restricted pair; the served strategy's epsilon (the table's) is measured
        # against the oracles after the last round and is usually much smaller
        ax.fill_between(r, curves[:, 1], curves[:, 0], color="C0", alpha=0.1,
                        label="the round's restricted gap (not the served epsilon)")
    fp_g = m["strategies"].get("fp", {}).get("figures", {}).get("guarantee")
    if fp_g is not None:
        ax.axhline(fp_g, color="grey", ls=":", lw=1, label=f"fictitious play's guarantee {fp_g:.3f}")
    ax.set_xlabel("double-oracle round")
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.set_ylabel("expected guesses")
    eps = m["strategies"].get("double_oracle", {}).get("figures", {}).get("epsilon")
    served = f" (served epsilon {eps:.3f})" if eps is not None else ""
    ax.set_title(f"{m['variant']}: double oracle{served}", fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    return fig


def jotto_guessers(store: Store):
    """The guessers compared: guarantee, against the uniform hider, and the worst case (guesses)."""
    plt = _plt()
    m = store.manifest
    names = [s for s in GUESSERS if s in m["strategies"]]
    figs = [("guarantee", "guarantee"), ("mean_guesses_vs_uniform", "vs uniform hider"),
            ("hider_vs_gbr", "own hider vs greedy response")]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    w = 0.8 / len(figs)
    x = np.arange(len(names))
    for k, (key, label) in enumerate(figs):
        vals = [m["strategies"][s]["figures"].get(key, np.nan) for s in names]
        bars = ax.bar(x + (k - (len(figs) - 1) / 2) * w, vals, w, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    lo = min(m["strategies"][s]["figures"].get("hider_vs_gbr", 1e9) for s in names)
    ax.set_ylim(max(0.0, lo - 1.0), None)
    served = m.get("served")
    ax.set_xticks(x, [f"{s}{' (served)' if s == served else ''}" for s in names], fontsize=8)
    ax.set_ylabel("expected guesses")
    ax.set_title(f"{m['variant']}: guessers compared", fontsize=10)
    ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=3)
    return fig


def _kind(br_kind: str) -> str:
    """games.dudo.build.solve_game's br_kind, shortly: exact best response, a lower bound, or not measured."""
    if br_kind.startswith("exact"):
        return "exact"
    if br_kind == "abstract-local" or br_kind.startswith("lower bound: abstraction"):
        return "LB (abstract BR)"
    if br_kind.startswith("lower bound: best response with memory"):
        return f"LB (BR, memory {br_kind.rsplit(' ', 1)[-1]})"
    return "not measured"


def headline(st: dict) -> tuple[float, str]:
    """A Dudo round's headline figure and its kind, shortly: the perfect-recall improvement where measured (the
    larger lower bound), else the exploitability with its best response's kind (as GetStats names it)."""
    if "improved_exploitability" in st:
        return st["improved_exploitability"], "LB (perfect-recall improvement)"
    return st.get("exploitability", float("nan")), _kind(str(st.get("br_kind", "")))


def dudo_exploitability(store: Store):
    """Each round's headline figure (``headline``), opener's dice x other's dice; each cell: the figure, its kind
    (exact, or LB = a lower bound, by which responder), the opener's win probability, memory and iterations; a
    round no game reaches is marked so."""
    plt = _plt()
    m = store.manifest
    rounds = m.get("rounds", {})
    n = max([5] + [int(x) for k in rounds for x in k.split("v")])
    grid = np.full((n, n), np.nan)
    for k, st in rounds.items():
        a, b = (int(x) for x in k.split("v"))
        grid[a - 1, b - 1] = headline(st)[0]
    fig, ax = plt.subplots(figsize=(7.2, 6.0))
    vals = grid[np.isfinite(grid) & (grid > 0)]
    norm = None
    if len(vals) and vals.max() > 20 * vals.min():  # figures spanning orders of magnitude
        from matplotlib.colors import LogNorm

        norm = LogNorm(vals.min(), vals.max())
    im = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis_r", origin="lower", extent=(0.5, n + 0.5, 0.5, n + 0.5),
                   norm=norm)
    fig.colorbar(im, ax=ax, label="headline: exploitability, win probability (both seats summed)")
    for k, st in rounds.items():
        a, b = (int(x) for x in k.split("v"))
        mem = st.get("memory", "")
        mem = "perfect" if mem == "perfect" else f"m={int(mem)}" if str(mem).isdigit() or isinstance(mem, (int, float)) else str(mem)
        value, kind = headline(st)
        txt = (f"{value:.4f}\n{kind}\n"
               f"v={st.get('value', float('nan')):.3f}\n{mem}, {int(st.get('iterations', 0))} it")
        ax.text(b, a, txt, ha="center", va="center", fontsize=6.5, color="white",
                bbox=dict(boxstyle="round,pad=0.15", fc="black", alpha=0.35, lw=0))
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            if not np.isfinite(grid[a - 1, b - 1]):
                ax.text(b, a, "unreachable\n(no game\nplays it)" if f"{a}v{b}" not in rounds else "not\nmeasured",
                        ha="center", va="center", fontsize=6.5, color="grey")
    ax.set_xticks(range(1, n + 1))
    ax.set_yticks(range(1, n + 1))
    ax.set_xlabel("other player's dice")
    ax.set_ylabel("opener's dice")
    ax.set_title(f"{m['variant']}: each round's headline figure (exact = exact best response, LB = lower bound; "
                 "v = the opener's win probability; docs/glossary.md)", fontsize=8)
    return fig


def jotto_exact_do(store: Store):
    """The exact double oracle per round: the guarantee (hider's exact best response) and the round's
    hider against the guesser's exact best response, with the best of them (the value bracket)."""
    plt = _plt()
    m = store.manifest
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    c = _array(store, array_key(CERT_CURVES, "exact_do"))
    c = np.zeros((0, 5)) if c is None else c
    r = np.arange(1, len(c) + 1)
    ax.plot(r, c[:, 1], marker=".", label="guarantee (hider's exact best response)", color="C0")
    ax.plot(r, c[:, 2], marker=".", ls="", label="round's hider vs exact best response", color="C1")
    best = np.fmax.accumulate(np.where(np.isnan(c[:, 2]), -np.inf, c[:, 2])) if len(c) else c[:, 2]
    ax.plot(r, best, label="best proven lower end", color="C2")
    cert = m.get("certified")
    if cert is not None:
        ax.set_title(f"{m['variant']}: exact double oracle, value in [{cert['lower']:.4f}, {cert['upper']:.4f}]",
                     fontsize=10)
    ax.set_xlabel("exact double-oracle round")
    ax.set_ylabel("expected guesses")
    ax.legend(fontsize=8, frameon=False)
    return fig


PLOTS = {"fp": jotto_fp, "exact_do": jotto_exact_do, "double_oracle": jotto_double_oracle, "guessers": jotto_guessers,
         "exploitability": dudo_exploitability}
