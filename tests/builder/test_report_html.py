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
