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
