"""Functions in the text (issue 28) from Python: a program that defines and
calls functions computes what the same program with the calls written out
computes (values bit for bit, derivatives close), takes its parameters
with p= like any other, and pickles to a source that keeps both."""

import pickle

import numpy as np

import dstar
from conftest import close

WITH_CALLS = """param g
in x, y
sq(a, k) = a*a*k
function two(a, b) -> (s, d)
  s = a + b
  d = a*sin(b)
end
s, d = two(x, y)
out f = sq(s, g) + d
out h = sq(d, 2) * exp(-g*y)
# @params 2.5
"""

WRITTEN_OUT = """param g
in x, y
s = x + y
d = x*sin(y)
out f = s*s*g + d
out h = d*d*2 * exp(-g*y)
# @params 2.5
"""


def test_calls_compute_what_the_written_out_program_computes(rng):
    f, g = dstar.compile(WITH_CALLS), dstar.compile(WRITTEN_OUT)
    assert (f.n_in, f.n_out, f.param_names) == (2, 2, ["g"])
    for x in rng.uniform(-1, 1, size=(4, 2)):
        p = rng.uniform(0.5, 3.0, size=1)
        assert np.array_equal(f(x, p=p), g(x, p=p))
        close(f.jacobian(x, p=p), g.jacobian(x, p=p), 1e-14)
        close(f.hessian(x, weights=[1.0, -0.5], p=p), g.hessian(x, weights=[1.0, -0.5], p=p), 1e-13)
    assert np.array_equal(f([0.3, 0.4]), g([0.3, 0.4], p=[2.5]))


def test_a_batch_through_calls_equals_its_points(rng):
    f = dstar.compile(WITH_CALLS)
    xs = rng.uniform(-1, 1, size=(301, 2))
    ps = rng.uniform(0.5, 3.0, size=(301, 1))
    J = f.jacobian(xs, p=ps)
    assert J.shape == (301, 2, 2)
    for k in (0, 150, 300):
        assert np.array_equal(J[k], f.jacobian(xs[k], p=ps[k]))


def test_a_program_with_calls_pickles_with_its_parameters():
    f = dstar.compile(WITH_CALLS)
    g = pickle.loads(pickle.dumps(f))
    x = np.array([0.7, -0.2])
    assert g.param_names == ["g"]
    assert np.array_equal(g(x), f(x))
    assert np.array_equal(g(x, p=[1.25]), f(x, p=[1.25]))
