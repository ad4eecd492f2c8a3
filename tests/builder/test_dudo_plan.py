"""The default and full profiles' Dudo plans: the memories the cost model (games/dudo/cost.py) and the budgets
choose per dice group. They decide the stores' content, so a change of the cost model that moves one changes the
stores' content hashes; this pins them (`python -m builder.dudo_report --plan default` prints the whole plan)."""
from builder.profiles import DUDO_DEFAULT, DUDO_FULL


def _text(plan: dict) -> dict:
    return {f"{a}v{b}": "perfect" if m is None else str(m) for (a, b), m in plan.items()}


def test_the_default_plan():
    p = DUDO_DEFAULT
    assert _text(p.memories()) == {
        "1v1": "perfect", "1v2": "4", "1v3": "3", "1v4": "2", "1v5": "2", "2v2": "4", "2v3": "2", "2v4": "2",
        "2v5": "2", "3v3": "2", "3v4": "2", "3v5": "2", "4v4": "2", "4v5": "2", "5v5": "2"}
    bound = {"1v4": "3", "1v5": "3", "2v3": "3", "2v4": "3", "2v5": "3", "3v3": "3", "3v4": "3", "3v5": "3",
             "4v4": "3", "4v5": "2", "5v5": "2"}
    assert _text(p.bound_memories()) == bound
    assert _text(p.improvement_memories()) == bound
    assert _text(p.train_memories()) == {"2v3": "3", "3v3": "3"}


def test_the_full_plan():
    p = DUDO_FULL
    assert _text(p.memories()) == {
        "1v1": "perfect", "1v2": "perfect", "1v3": "6", "1v4": "3", "1v5": "3", "2v2": "6", "2v3": "4",
        "2v4": "4-24-3", "2v5": "4-14-3", "3v3": "5-18-4", "3v4": "4-24-3-32-2", "3v5": "3-24-2",
        "4v4": "4-24-3-32-2", "4v5": "3-24-2", "5v5": "3-28-2"}
    bound = {"1v4": "4", "1v5": "3", "2v3": "5", "2v4": "4", "2v5": "4-14-3", "3v3": "5-18-4", "3v4": "4-24-3-32-2",
             "3v5": "3", "4v4": "4-24-3-32-2", "4v5": "3-24-2", "5v5": "3-28-2"}
    assert _text(p.bound_memories()) == bound
    assert _text(p.improvement_memories()) == bound
    assert _text(p.train_memories()) == {}
