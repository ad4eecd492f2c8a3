"""Every import of one of our modules names a module that exists, including the imports inside functions, which
neither import-linter (it skips a module it cannot find) nor importing the package sees until the call runs: after a
module moves, a stale path in a function body would fail only when a caller reaches it."""
import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("games", "builder", "server", "clients", "protos", "bench", "launcher", "research")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every ``import`` / ``from ... import`` of ours in the file; a relative
    import resolved against the file's package."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                out.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
            else:
                out.append((node.lineno, node.module))
    return [(line, name) for line, name in out if name.split(".")[0] in OURS]


def missing_imports(paths) -> list[str]:
    out = []
    for path in paths:
        for line, name in imported_modules(path):
            if importlib.util.find_spec(name) is None:
                out.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    return out


@pytest.mark.parametrize("package", OURS)
def test_every_import_of_ours_names_a_module_that_exists(package):
    paths = sorted((ROOT / package).rglob("*.py"))
    assert paths
    assert missing_imports(paths) == []


def test_a_stale_path_inside_a_function_is_found(tmp_path):
    sample = ROOT / "games" / "dudo" / "policy" / "_stale_sample.py"
    try:
        sample.write_text("def f():\n    from games.dudo.solve import solve_game\n    from .bound import kind_of\n"
                          "    from games.dudo.measure.bound import kind_of as k\n")
        found = missing_imports([sample])
    finally:
        sample.unlink()
    assert found == ["games/dudo/policy/_stale_sample.py:2: games.dudo.solve",
                     "games/dudo/policy/_stale_sample.py:3: games.dudo.policy.bound"]
