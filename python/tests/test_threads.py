"""dstar.set_num_threads: batches on n threads or all cores give the same
results bit for bit; bad counts are refused."""

import numpy as np
import pytest

import dstar
from conftest import NLP


@pytest.fixture
def restore_threads():
    yield
    dstar.set_num_threads(None)


def test_thread_count_changes_nothing_but_threads(restore_threads, rng):
    f = dstar.compile(NLP[0].read_text())
    xs = rng.uniform(-1, 1, size=(2_000, f.n_in))
    V = rng.normal(size=(2_000, 3, f.n_in))
    all_cores = dstar.num_threads()
    assert all_cores >= 1
    want_j, want_jv = f.jacobian(xs), f.jvp(xs, V)
    for n in [1, 3]:
        dstar.set_num_threads(n)
        assert dstar.num_threads() == n
        assert np.array_equal(f.jacobian(xs), want_j)
        assert np.array_equal(f.jvp(xs, V), want_jv)
    dstar.set_num_threads(None)
    assert dstar.num_threads() == all_cores


def test_bad_thread_counts(restore_threads):
    with pytest.raises(ValueError, match="n >= 1"):
        dstar.set_num_threads(0)
    with pytest.raises(OverflowError):
        dstar.set_num_threads(-1)
