"""Maps from Python (issue 36): a loop that calls a Function on expressions,
or writes the same expression out for every data point, is found as a map
by the plan without the user doing anything; the derivatives built as maps
equal NumPy's formulas."""

import numpy as np
import pytest

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


def shooting(use_map):
    """Multiple shooting of a pendulum over N intervals: the defects
    x[k+1] - step(x[k], u[k]) and the sum of the controls' squares, built
    with a loop of calls or with step.map(N)."""
    n = 400
    th, om, u, h = dstar.symbols("th om u h")
    step = dstar.Function(
        [th, om, u], [th + h * om, om + h * (u - dstar.sin(th)), u * u], params=[h], name="step"
    )
    ths, oms, us = dstar.vector("th", n + 1), dstar.vector("om", n + 1), dstar.vector("u", n)
    if use_map:
        nth, nom, cost = step.map(n)(ths[:n], oms[:n], us, 0.05)
        total = step.map(n, sum=True)(ths[:n], oms[:n], us, 0.05)[2]
    else:
        calls = [step(ths[k], oms[k], us[k], 0.05) for k in range(n)]
        nth, nom, cost = ([c[r] for c in calls] for r in range(3))
        total = cost[0]
        for c in cost[1:]:
            total = total + c
    defects = [a - b for a, b in zip(ths[1:], nth)] + [a - b for a, b in zip(oms[1:], nom)]
    return dstar.Function(ths + oms + us, [total] + defects, name="ocp")


def test_a_map_is_the_loop_it_stands_for():
    """step.map(n) makes the calls a loop makes, in the same order: the
    same program text, hence the same maps and the same numbers."""
    mapped, looped = shooting(True), shooting(False)
    assert mapped.source() == looped.source()
    assert mapped.calls == looped.calls == 400  # the summed map makes the same calls
    x = np.random.default_rng(3).normal(size=mapped.n_in)
    assert np.array_equal(mapped(x), looped(x))
    close(mapped.jacobian(x), looped.jacobian(x), 0.0)
    weights = np.ones(mapped.n_out)
    close(mapped.hessian(x, weights), looped.hessian(x, weights), 0.0)


def test_map_arguments_are_shared_or_one_per_call():
    a, b = dstar.symbols("a b")
    f = dstar.Function([a, b], [a * b], name="f")
    xs = dstar.vector("x", 3)
    def shown(e):
        return str(e).split("; ")[0]

    assert [shown(e) for e in f.map(3)(xs, 2.0)] == ["t1 = f(x_0, 2)", "t1 = f(x_1, 2)", "t1 = f(x_2, 2)"]
    each = f.map(3)(np.array([1.0, 2.0, 3.0]), xs[0])
    assert [shown(e) for e in each] == ["t1 = f(1, x_0)", "t1 = f(2, x_0)", "t1 = f(3, x_0)"]
    assert str(f.map(2, sum=True)(xs[:2], xs[2])) == "t1 = f(x_0, x_2); t2 = f(x_1, x_2); t1 + t2"
    assert repr(f.map(3, sum=True)) == "f.map(3, sum=True)" and f.map(3).n == 3
    with pytest.raises(ValueError, match=r"f.map\(3\): argument 1 has 2 items; give 3"):
        f.map(3)(xs[:2], 1.0)
    with pytest.raises(TypeError, match=r"f.map\(3\): argument 2 is a NoneType"):
        f.map(3)(xs, None)
    with pytest.raises(TypeError, match=r"f\(\) takes its 2 inputs"):
        f.map(3)(xs)


def test_a_run_over_a_data_table_is_a_map():
    """The same fit written as a file with data tables and a run
    (docs/format.md, "Tables and runs"): its inputs and parameters are the
    tables' entries, it is found as a map, and its derivatives are NumPy's."""
    t, y = data()
    text = f"""param t[{N}], y[{N}]
in a, b, c, d
term(a, b, c, d, t, y) = (a * exp(-b * t) + c * sin(d * t) - y)^2
for i in range({N})
  r[i] = term(a, b, c, d, t[i], y[i])
end
out sum(r)
"""
    f = dstar.compile(text)
    assert f.hessian_method[0] == "maps"
    x = np.array([1.8, 0.6, 0.25, 2.0])
    p = np.concatenate([t, y])
    gradient, hessian = reference(x, t, y)
    close(f.gradient(x, p=p), gradient, 1e-10)
    close(f.hessian(x, p=p), hessian, 1e-10)
    # The run is its body written out: the same numbers as the loop of calls.
    close(f(x, p=p), least_squares(True)(x, p=p), 1e-12)
