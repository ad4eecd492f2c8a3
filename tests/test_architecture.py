"""docs/architecture.md's pictures and contract list are the ones the code's imports and pyproject.toml give."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))

import architecture_graph  # noqa: E402


def test_the_page_matches_the_code():
    done = subprocess.run([sys.executable, "docs/architecture_graph.py"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_stale_page_is_named_with_its_first_differing_line(tmp_path, monkeypatch, capsys):
    """An import the picture lacks (a line dropped from it) fails the check; --write puts it back."""
    lines = architecture_graph.PAGE.read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if " --> " in line)
    page = tmp_path / "architecture.md"
    page.write_text("".join(lines[:k] + lines[k + 1:]))
    monkeypatch.setattr(architecture_graph, "PAGE", page)
    assert architecture_graph.main([]) == 1
    assert f"stale at line {k + 1}" in capsys.readouterr().err
    assert architecture_graph.main(["--write"]) == 0
    assert page.read_text() == "".join(lines)


def test_the_dudo_picture_follows_the_layers_contract():
    config = architecture_graph.importlinter_config()
    layers = architecture_graph.dudo_layers(config)
    text = architecture_graph.generated(config)
    boxes = [line.split("[", 1)[0].strip() for line in text.splitlines() if '["' in line]
    assert boxes[:len(layers)] == layers
    assert "research" in config["root_packages"]


def test_the_jotto_picture_follows_its_layers_contract_and_the_contract_places_every_module():
    """Each layer of games.jotto's contract is a box, in the contract's order; a module of games/jotto that no layer
    names would be held by nothing, so every one must be placed."""
    config = architecture_graph.importlinter_config()
    layers = architecture_graph.container_layers(config, architecture_graph.JOTTO)
    text = architecture_graph.generated(config)
    jotto = text[text.index("**games.jotto by role**"):]
    boxes = [line.split("[", 1)[0].strip() for line in jotto.splitlines() if '["' in line]
    assert boxes == ["_".join(architecture_graph.layer_tails(layer)) for layer in layers]
    placed = {t for layer in layers for t in architecture_graph.layer_tails(layer)}
    modules = {p.stem for p in (ROOT / "games" / "jotto").glob("*.py") if p.stem != "__init__"}
    assert modules == placed
