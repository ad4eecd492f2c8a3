"""The per-iteration curves the Jotto builder records for the operations page's plots."""
import numpy as np
import pytest

from games.jotto.store import DO_CURVES, FP_CURVES, FP_EPSILON, GUARANTEE_HISTORY, array_key
from games.storage import Store


def test_curves_agree_with_the_store_figures(small_store):
    _, path = small_store
    s = Store(path)
    m = s.manifest["strategies"]
    fp = s.array(array_key(FP_CURVES, "fp"))
    assert fp.shape == (m["fp"]["iterations"] + 1, 3)
    assert np.array_equal(fp[:, :2].max(axis=1), s.array(array_key(FP_EPSILON, "fp")))
    ts = m["fp"]["t_star"]
    assert ts == int(np.argmin(fp[:, :2].max(axis=1)))
    # row t*: the guesser mixture served as `fp` (uniform over the responses 0..t*), whose guarantee the
    # builder computed on its own path (pair_stats over the mixture's trees)
    assert fp[ts, 2] == pytest.approx(m["fp"]["figures"]["guarantee"], rel=1e-12)
    assert fp[ts, 1] == pytest.approx(m["fp"]["figures"]["epsilon_guesser"], rel=1e-9)
    do = s.array(array_key(DO_CURVES, "double_oracle"))
    assert do.shape == (m["double_oracle"]["iterations"], 2)
    assert np.array_equal(do[:, 0], s.array(array_key(GUARANTEE_HISTORY, "double_oracle")))
    assert np.all((do[:, 1] >= 1) & (do[:, 1] <= s.manifest["dictionary"]["size"]))  # expected guesses
    s.close()
