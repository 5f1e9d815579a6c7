"""A Function pickles to its source and options and compiles again on load."""

import multiprocessing
import pickle

import numpy as np

import dstar
from conftest import NLP


def test_round_trip_text_and_builder(rng):
    f = dstar.compile(NLP[0].read_text(), simplify=False)
    g = pickle.loads(pickle.dumps(f))
    assert g.source() == f.source() and g.simplify is False
    xs = rng.uniform(-1, 1, size=(10, f.n_in))
    assert np.array_equal(g.jacobian(xs), f.jacobian(xs))
    x, y = dstar.symbols("x y")
    b = dstar.Function([x, y], [dstar.hypot(x, y) * x])
    c = pickle.loads(pickle.dumps(b))
    assert np.array_equal(c.hessian([1.0, 2.0]), b.hessian([1.0, 2.0]))


def _jacobian(args):
    f, x = args
    return f.jacobian(x)


def test_multiprocessing_ships_functions(rng):
    f = dstar.compile("in x, y\nout x*y\nout sin(x)*exp(y)")
    xs = rng.uniform(-1, 1, size=(8, 2))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.map(_jacobian, [(f, x) for x in xs])
    assert np.array_equal(np.stack(got), f.jacobian(xs))


def test_self_check_is_on_by_default_and_kept_by_pickling():
    f = dstar.compile("in x, y\nout x^3*y + sin(x*y)")
    assert f.self_check is True
    g = dstar.compile("in x, y\nout x^3*y + sin(x*y)", self_check=False)
    assert g.self_check is False
    h = pickle.loads(pickle.dumps(g))
    assert h.self_check is False and h.simplify is True
    x = np.array([0.7, 1.3])
    # The check never changes a result: the same numbers either way.
    assert np.array_equal(f.jacobian(x), g.jacobian(x))
    assert np.array_equal(f.hessian(x), h.hessian(x))
    x0, y0 = dstar.symbols("x0 y0")
    assert dstar.Function([x0, y0], x0 * y0, self_check=False).self_check is False
