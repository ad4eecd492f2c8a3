"""python -m builder.report --html DIR: every published store's plots as SVG files and an index page."""
import xml.etree.ElementTree as ET

from tests.conftest import SMALL_VARIANT


def test_html_report_writes_every_plot(small_store, tmp_path):
    from builder.report import main
    from games.storage import Store, current_stores

    root, _ = small_store
    out = tmp_path / "report"
    assert main(["--root", str(root), "--html", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([f"{SMALL_VARIANT}.{n}.svg" for n in ("fp", "double_oracle", "guessers")] + ["index.html"])
    m = Store(current_stores(root, "jotto")[SMALL_VARIANT]).manifest
    for name in names[:-1] if names[-1] == "index.html" else names:
        if name.endswith(".svg"):
            svg = (out / name).read_text()
            ET.fromstring(svg)  # well-formed SVG
            assert SMALL_VARIANT in svg
    guessers = (out / f"{SMALL_VARIANT}.guessers.svg").read_text()
    for s in ("benchmark", "fp", "double_oracle", "beeler"):
        assert f"{m['strategies'][s]['figures']['guarantee']:.2f}" in guessers  # the bars carry the store's figures
    index = (out / "index.html").read_text()
    assert m["store_version"] in index and f'src="{SMALL_VARIANT}.fp.svg"' in index


def test_html_report_of_a_dudo_store_with_memory_per_group(tmp_path):
    """The Dudo heat map and the index carry row format 2's facts: each round's memory chosen by budget."""
    from builder.dudo import build_dudo_store
    from builder.report import main
    from games.dudo.build.params import DudoParams
    from games.dudo.store import store_memories
    from games.storage import Store

    params = DudoParams(max_dice=2, iterations=3, exact_br_total=0, memory_budget=1 << 30, time_budget=0.05, label="t")
    path = build_dudo_store(params, tmp_path / "stores")
    m = Store(path).manifest
    mem = store_memories(m)
    assert len(set(mem.values())) > 1
    out = tmp_path / "report"
    assert main(["--root", str(tmp_path / "stores"), "--html", str(out)]) == 0
    svg = (out / f"{params.variant}.exploitability.svg").read_text()
    ET.fromstring(svg)
    for k, st in m["rounds"].items():
        a, b = sorted(int(x) for x in k.split("v"))
        label = "perfect" if mem[(a, b)] is None else f"m={mem[(a, b)]}"
        assert st["memory"] == ("perfect" if mem[(a, b)] is None else str(mem[(a, b)]))
        assert f"{label}, {int(st['iterations'])} it" in svg
    assert "not measured" not in svg  # every round's bound is named (exact, or which lower bound)
    index = (out / "index.html").read_text()
    assert f"<td>windows</td><td>{m['windows']}</td>" in index and "memory_by_group" in index


def test_the_summary_of_a_root_without_jotto_names_the_other_stores_report(tmp_path, capsys):
    """python -m builder.report summarises the Jotto stores; on a root with a Dudo store only it says where that one's
    summary is, not just that there is no Jotto store."""
    from builder.report import main
    from games.storage import StoreWriter

    with StoreWriter(tmp_path, "dudo", "dudo-5dice-default") as w:
        w.put_many("windows", iter([(b"k", b"v")]))
        w.publish({"game": "dudo", "variant": "dudo-5dice-default"})
    assert main(["--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"no Jotto store under {tmp_path}")
    assert "the other stores (this table is of the Jotto ones): dudo-5dice-default: python -m builder.dudo_report" in out


def test_jotto_plots_say_what_they_show(small_store):
    """The double-oracle band is the round's restricted gap (not the served epsilon, which the title gives);
    rounds and iterations get whole-number ticks; every guesser of the store is compared, people included."""
    import numpy as np

    from games.plots import jotto_double_oracle, jotto_fp, jotto_guessers
    from games.storage import Store, current_stores

    root, _ = small_store
    store = Store(current_stores(root, "jotto")[SMALL_VARIANT])
    m = store.manifest
    fig = jotto_double_oracle(store)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "epsilon (gap)" not in labels and any("not the served epsilon" in t for t in labels)
    assert f"served epsilon {m['strategies']['double_oracle']['figures']['epsilon']:.3f}" in ax.get_title()
    for f in (fig, jotto_fp(store)):
        ticks = f.axes[0].get_xticks()
        assert np.allclose(ticks, np.round(ticks)), ticks
    assert "people" in m["strategies"]
    names = [t.get_text() for t in jotto_guessers(store).axes[0].get_xticklabels()]
    assert any(n.startswith("people") for n in names), names


def test_readme_tables_are_generated_from_the_stores(small_store, tmp_path):
    """--readme rewrites only the marked regions, with each store's own figures; no markers: exit 2, one line."""
    from builder.readme_tables import BEGIN, END
    from builder.report import main
    from games.storage import Store, current_stores

    root, _ = small_store
    m = Store(current_stores(root, "jotto")[SMALL_VARIANT]).manifest
    readme = tmp_path / "README.md"
    regions = "".join(f"{BEGIN.format(name=n)}\nold\n{END.format(name=n)}\n" for n in ("strength", "speed"))
    readme.write_text("# title\n\n" + regions + "tail\n")
    assert main(["--root", str(root), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# title\n") and text.endswith("tail\n") and "\nold\n" not in text
    served = m["served"]
    row = next(line for line in text.splitlines() if line.startswith(f"| {SMALL_VARIANT} | {served} |"))
    assert f"guarantee {m['strategies'][served]['figures']['guarantee']:.3f}" in row
    assert f"| {SMALL_VARIANT} | {m['build_seconds']:.1f} |" in text
    readme.write_text("no regions\n")
    assert main(["--root", str(root), "--readme", str(readme)]) == 2
