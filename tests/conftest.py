import os
from pathlib import Path

import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".numba_cache"))

SMALL_VARIANT = "jotto-en_US80-2-ganzfried"


@pytest.fixture(scope="session")
def small_store(tmp_path_factory):
    """A small Jotto store with a low book threshold so that the book has many entries."""
    from builder.jotto import JottoParams, build_jotto_store

    root = tmp_path_factory.mktemp("stores")
    params = JottoParams(fp_iterations=60, do_iterations=6, book_threshold=6)
    path = build_jotto_store(SMALL_VARIANT, params, root)
    return root, path
