"""Maps from Python (issue 36): a loop that calls a Function on expressions,
or writes the same expression out for every data point, is found as a map
by the plan without the user doing anything; the derivatives built as maps
equal NumPy's formulas."""

import numpy as np

import dstar
from conftest import close

N = 3000  # points: past the plan's 20,000 operations, so maps pay


def data():
    rng = np.random.default_rng(5)
    t = np.linspace(0.0, 3.0, N)
    y = 2.0 * np.exp(-0.7 * t) + 0.3 * np.sin(1.9 * t) + rng.normal(0.0, 0.01, N)
    return t, y


def residual(a, b, c, d, t, y, sin, exp):
    return (a * exp(-b * t) + c * sin(d * t) - y) ** 2


def least_squares(calls):
    """The sum of squared residuals over N points, data as parameters: each
    term a call of one Function (calls) or written out."""
    a, b, c, d = dstar.symbols("a b c d")
    ts, ys = dstar.vector("t", N), dstar.vector("y", N)
    if calls:
        args = dstar.symbols("pa pb pc pd pt py")
        term = dstar.Function(list(args), residual(*args, dstar.sin, dstar.exp), name="term")
        terms = [term(a, b, c, d, t, y) for t, y in zip(ts, ys)]
    else:
        terms = [residual(a, b, c, d, t, y, dstar.sin, dstar.exp) for t, y in zip(ts, ys)]
    total = terms[0]
    for e in terms[1:]:
        total = total + e
    return dstar.Function([a, b, c, d], total, params=list(ts) + list(ys))


def reference(x, t, y):
    """The gradient and Hessian of the sum by hand."""
    a, b, c, d = x
    e, s, co = np.exp(-b * t), np.sin(d * t), np.cos(d * t)
    r = a * e + c * s - y
    dr = np.stack([e, -a * t * e, s, c * t * co])
    gradient = 2.0 * dr @ r
    d2r = np.zeros((4, 4, N))
    d2r[0, 1] = d2r[1, 0] = -t * e
    d2r[1, 1] = a * t * t * e
    d2r[2, 3] = d2r[3, 2] = t * co
    d2r[3, 3] = -c * t * t * s
    hessian = 2.0 * (dr @ dr.T + np.einsum("ijk,k->ij", d2r, r))
    return gradient, hessian


def test_a_loop_of_calls_and_its_written_out_twin_are_maps():
    t, y = data()
    p = np.concatenate([t, y])
    x = np.array([1.8, 0.6, 0.25, 2.0])
    gradient, hessian = reference(x, t, y)
    for calls in (True, False):
        f = least_squares(calls)
        assert f.hessian_method[0] == "maps", calls
        close(f.gradient(x, p=p), gradient, 1e-10)
        close(f.hessian(x, p=p), hessian, 1e-10)
        close(f.jacobian(x, p=p)[0], gradient, 1e-10)
