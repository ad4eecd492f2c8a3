"""server.building.BuildStatus: the builder's progress file as ListVariants, GetStats, /readyz and the play page give
it, as of each answer."""
import json
import time

import pytest

from games.buildprogress import FILE_NAME, BuildProgress, VariantProgress
from server.building import BuildStatus


def _written(root, ago: float):
    """A build whose file was written ``ago`` seconds before now: Hangman 2 s into its build, 4 s left; the 5-letter
    Jotto store 100 s into its, 200 s left."""
    BuildProgress([VariantProgress("hangman-en_US50-5", "building", None, 2.0, work_fraction=1 / 3, work_remaining=4.0),
                   VariantProgress("jotto-en_US80-5-ganzfried", "building", None, 100.0, work_fraction=1 / 3,
                                   work_remaining=200.0)]).write(root)
    path = root / FILE_NAME
    data = json.loads(path.read_text())
    data["updated"] = time.time() - ago
    path.write_text(json.dumps(data))


def test_a_store_of_a_few_seconds_is_answered_as_of_the_answer_not_the_files_write(tmp_path):
    _written(tmp_path, ago=2.0)
    hangman, jotto = BuildStatus(tmp_path).pending()
    # 2 s of its 6-s build have passed since the file said 1/3 and 4 s left
    assert hangman["eta_seconds"] == pytest.approx(2.0, abs=0.1)
    assert hangman["fraction"] == pytest.approx(2 / 3, abs=0.02)
    assert (jotto["fraction"], jotto["eta_seconds"]) == (0.333, 200.0)   # a long store: as the file said


def test_the_figures_move_between_reads_of_the_file(tmp_path):
    _written(tmp_path, ago=0.0)
    status = BuildStatus(tmp_path, every=60.0)      # the file read once
    first = status.pending()[0]["eta_seconds"]
    time.sleep(0.3)
    assert status.pending()[0]["eta_seconds"] < first - 0.2
