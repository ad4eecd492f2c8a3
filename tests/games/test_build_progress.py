"""The build's progress file (games.buildprogress): written atomically, read back, estimates, stale builds."""
import json
import time

import pytest

from games.buildprogress import (FILE_NAME, MAX_CARRY_SECONDS, SHORT_STORE_SECONDS, STALE_SECONDS, BuildProgress,
                                 ProgressError, VariantProgress, carried, measured_seconds, read_progress,
                                 record_seconds)


def test_round_trip_and_estimates(tmp_path):
    p = BuildProgress.start([("jotto-a", 10.0), ("dudo-b", 100.0), ("hangman-c", None)])
    p.variants[0].state, p.variants[0].seconds = "done", 9.0
    p.variants[1].state, p.variants[1].seconds = "building", 25.0
    p.write(tmp_path)
    assert not list(tmp_path.glob("*.tmp"))  # replaced atomically: no temporary left
    back = read_progress(tmp_path)
    assert [v.variant for v in back.variants] == ["jotto-a", "dudo-b", "hangman-c"]
    assert back.running
    summary = back.summary()
    assert [s["variant"] for s in summary] == ["dudo-b", "hangman-c"]  # what is still to come
    assert summary[0] == {"variant": "dudo-b", "game": "dudo", "state": "building", "fraction": 0.25,
                          "eta_seconds": 75.0}
    assert summary[1]["state"] == "planned" and summary[1]["fraction"] == 0.0
    assert summary[1]["eta_seconds"] is None  # no estimate for it: no ETA, not a made-up one


def test_eta_adds_the_stores_before_and_fraction_stays_below_one_until_published():
    p = BuildProgress([VariantProgress("jotto-a", "building", 10.0, 30.0), VariantProgress("dudo-b", "planned", 50.0)],
                      updated=time.time())
    assert p.summary()[0]["fraction"] == 0.99  # over its estimate, not yet published
    assert p.eta_seconds("jotto-a") == 0.0 and p.eta_seconds("dudo-b") == 50.0
    p.variants[0].seconds = 4.0
    assert p.eta_seconds("dudo-b") == 56.0


def test_a_planned_store_in_lanes_is_published_when_the_builders_schedule_says(tmp_path):
    # a lane builds the 4-letter store, another Dudo; the 5-letter store comes after the 4-letter one: not after both
    p = BuildProgress([VariantProgress("jotto-4", "building", None, 30.0, work_fraction=0.5, work_remaining=30.0),
                       VariantProgress("dudo-b", "building", None, 30.0, work_fraction=0.1, work_remaining=300.0),
                       VariantProgress("jotto-5", "planned", 90.0, published_in=120.0)], updated=time.time())
    assert p.eta_seconds("jotto-5") == 120.0
    p.write(tmp_path)
    back = read_progress(tmp_path)
    assert back.variants[2].published_in == 120.0 and back.eta_seconds("jotto-5") == 120.0
    p.variants[2].published_in = None               # no schedule (one lane, no CPU count): the stores before it
    assert p.eta_seconds("jotto-5") == 30.0 + 300.0 + 90.0


def test_a_short_stores_figures_are_carried_to_the_moment_they_are_read():
    """Guess Who, 1 s into its 5-s build, said 0.2 and 4 s left; read 1.5 s later: 0.5 and 2.5 s left (its share of
    the time passed). A store estimated at ``SHORT_STORE_SECONDS`` or more, one without a time left, and one whose
    time left is spent keep what they said; a file older than ``MAX_CARRY_SECONDS`` is carried that far only."""
    assert carried(1.0, 0.2, 4.0, 1.5) == pytest.approx((0.5, 2.5))
    assert carried(10.0, 0.5, SHORT_STORE_SECONDS - 10.0, 1.5) == (0.5, SHORT_STORE_SECONDS - 10.0)
    assert carried(1.0, 0.2, None, 1.5) == (0.2, None) and carried(5.0, 0.99, 0.0, 1.5) == (0.99, 0.0)
    assert carried(1.0, 0.1, 18.0, 60.0) == pytest.approx((0.1 + 0.9 * MAX_CARRY_SECONDS / 18.0,
                                                            18.0 - MAX_CARRY_SECONDS))
    assert carried(1.0, 0.2, 4.0, 10.0) == pytest.approx((0.99, 0.0))   # never "done" before it is published
    p = BuildProgress([VariantProgress("guesswho-24", "building", None, 1.0, work_fraction=0.2, work_remaining=4.0),
                       VariantProgress("jotto-en_US80-4-ganzfried", "planned", 40.0, published_in=10.0)],
                      updated=time.time())
    building, planned = p.summary(now=p.updated + 1.5)
    assert (building["fraction"], building["eta_seconds"]) == (0.5, 2.5)
    assert planned["eta_seconds"] == 10.0


def test_a_finished_or_dead_build_shows_nothing_pending():
    p = BuildProgress([VariantProgress("jotto-a", "building", 10.0, 1.0)], updated=time.time())
    assert p.pending()
    p.updated = time.time() - STALE_SECONDS - 1  # no heartbeat: the builder died
    assert p.stale() and p.pending() == []
    p.updated, p.state = time.time(), "done"
    assert p.pending() == []


@pytest.mark.parametrize("text,fault", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"format": 7, "variants": []}', "format 7 is not the supported 1"),
    ('{"format": 1, "variants": [{"variant": "jotto-a", "state": "cooking"}]}', "state 'cooking'"),
    ('{"format": 1, "variants": [{"state": "planned"}]}', "malformed entry"),
    ('{"format": 1, "state": "sleeping", "variants": []}', "build state 'sleeping'"),
])
def test_a_bad_file_is_a_clear_error(tmp_path, text, fault):
    (tmp_path / FILE_NAME).write_text(text)
    with pytest.raises(ProgressError, match=fault):
        read_progress(tmp_path)


def test_no_file_is_none_and_measured_times_are_kept(tmp_path):
    assert read_progress(tmp_path) is None
    assert measured_seconds(tmp_path) == {}
    record_seconds(tmp_path, "jotto-a abc", 12.34)
    record_seconds(tmp_path, "dudo-b def", 400)
    assert measured_seconds(tmp_path) == {"jotto-a abc": 12.3, "dudo-b def": 400.0}
    (tmp_path / ".work" / "measured-seconds.json").write_text(json.dumps(["garbage"]))
    assert measured_seconds(tmp_path) == {}  # only an estimate: an unreadable file means none
