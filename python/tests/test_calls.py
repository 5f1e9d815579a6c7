"""A Function called on expressions records a call (issue 28): one call site
per call, kept by the Functions built over it, printed and pickled as
functions, with the values of the model written out bit for bit and its
derivatives to rounding."""

import pickle

import numpy as np
import pytest

import dstar

H = 0.05


def step_exprs(x, v, u):
    """One explicit Euler step of a pendulum, on expressions or numbers."""
    return x + H * v, v + H * (u - 9.81 * dstar.sin(x))


def make_step():
    x, v, u = dstar.symbols("x v u")
    return dstar.Function([x, v, u], list(step_exprs(x, v, u)), output_names=["xn", "vn"], name="step")


def shooting(n, step):
    """The final state and a cost after n steps from (s_0, s_1) under controls u_k."""
    s = dstar.vector("s", 2)
    u = dstar.vector("u", n)
    x = tuple(s)
    cost = 0.0
    for k in range(n):
        x = step(*x, u[k])
        cost = cost + u[k] ** 2 + x[0] ** 2
    return s + u, [x[0], x[1], cost]


def point(n, seed=0):
    return np.random.default_rng(seed).uniform(-0.5, 0.5, n)


def close(a, b, rtol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    scale = np.maximum(np.abs(b), 1.0)
    assert a.shape == b.shape
    assert np.all(np.abs(a - b) <= rtol * scale), np.max(np.abs(a - b) / scale)


def test_a_call_on_expressions_is_an_expression_or_a_tuple():
    step = make_step()
    a, b, c = dstar.symbols("a b c")
    xn, vn = step(a, b, c)
    assert isinstance(xn, dstar.Expr) and isinstance(vn, dstar.Expr)
    assert str(xn) == "t1, t2 = step(a, b, c); t1"
    y = dstar.symbols("y")
    sq = dstar.Function([y], y * y, name="sq")
    assert isinstance(sq(a + 1), dstar.Expr)
    assert str(sq(2.0 * a)) == "t1 = sq(2 * a); t1"
    # A number for some arguments is a constant argument.
    assert str(step(a, 0.5, 1)[1]) == "t1, t2 = step(a, 0.5, 1); t2"


def test_numbers_only_evaluate():
    step = make_step()
    assert np.array_equal(step(0.1, 0.2, 0.3), step([0.1, 0.2, 0.3]))
    assert np.array_equal(step(0.1, 0.2, 0.3), np.array(step_exprs(0.1, 0.2, 0.3)).ravel())
    assert step([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]).shape == (2, 2)


def test_a_loop_builds_one_site_per_call_not_a_copy():
    step = make_step()
    n = 1000
    inputs, outputs = shooting(n, step)
    f = dstar.Function(inputs, outputs)
    assert f.calls == n
    assert f.function_names == ["step"]
    text = f.source()
    lines = text.splitlines()
    assert sum(" = step(" in line for line in lines) == n
    # A call is one line whatever the body; the cost is a few lines per step.
    assert len(lines) < 4 * n
    assert len(text) < 120 * n
    # The same model written out is the body's size times n.
    written = dstar.Function(*shooting(n, step_exprs))
    assert written.calls == 0
    assert written.ops > 5 * n
    assert f.ops < written.ops


@pytest.mark.parametrize("n", [1, 7, 40])
def test_values_and_derivatives_equal_the_model_written_out(n):
    step = make_step()
    f = dstar.Function(*shooting(n, step))
    g = dstar.Function(*shooting(n, step_exprs))
    assert f.calls == n and g.calls == 0
    x = point(n + 2)
    xs = np.stack([point(n + 2, seed) for seed in range(3)])
    w = np.array([0.5, -2.0, 1.0])
    v = point(n + 2, 9)
    assert np.array_equal(f(x), g(x))
    assert np.array_equal(f(xs), g(xs))
    close(f.jacobian(x), g.jacobian(x))
    close(f.jacobian(xs), g.jacobian(xs))
    close(f.hessian(x, weights=w), g.hessian(x, weights=w))
    close(f.jvp(x, v), g.jvp(x, v))
    close(f.vjp(x, w), g.vjp(x, w))
    close(f.hvp(x, v, weights=w), g.hvp(x, v, weights=w))
    assert (f.jacobian(x, sparse=True) != g.jacobian(x, sparse=True)).nnz == 0 or n > 0
    jf, jg = f.jacobian(x, sparse=True), g.jacobian(x, sparse=True)
    assert np.array_equal(jf.indptr, jg.indptr) and np.array_equal(jf.indices, jg.indices)


def test_source_round_trips_and_pickles():
    step = make_step()
    f = dstar.Function(*shooting(12, step), name="shoot")
    text = f.source()
    assert text.count("function step(x, v, u) -> (xn, vn)") == 1
    again = dstar.compile(text)
    assert again.source() == text
    assert again.calls == 12
    back = pickle.loads(pickle.dumps(f))
    assert back.name == "shoot" and back.calls == 12 and back.source() == text
    x = point(14)
    assert np.array_equal(back(x), f(x))
    assert np.array_equal(again(x), f(x))
    close(back.hessian(x, weights=[1.0, 1.0, 1.0]), f.hessian(x, weights=[1.0, 1.0, 1.0]))
    # A pickled step still records calls.
    step2 = pickle.loads(pickle.dumps(step))
    a, b, c = dstar.symbols("a b c")
    assert str(step2(a, b, c)[0]) == "t1, t2 = step(a, b, c); t1"


def test_functions_calling_functions():
    y = dstar.symbols("y")
    sq = dstar.Function([y], y * y, name="sq")
    x, v, u = dstar.symbols("x v u")
    step = dstar.Function([x, v, u], [x + H * v, v + H * (sq(u) - sq(x))], name="step")
    s, t = dstar.symbols("s t")
    a, b = step(s, t, 0.5)
    a, b = step(a, b, s)
    f = dstar.Function([s, t], [sq(a) + b], name="outer")
    assert f.function_names == ["sq", "step"]
    assert f.calls == 3
    text = f.source()
    assert text.index("function sq(") < text.index("function step(")
    assert dstar.compile(text).source() == text
    # Called again: the outer function's body keeps its own calls.
    p, q = dstar.symbols("p q")
    g = dstar.Function([p, q], [f(p, q) * f(q, p)])
    assert g.function_names == ["sq", "step", "outer"]
    assert g.calls == 2
    written = dstar.compile(g.source())

    def model(s, t):
        def sq_(z):
            return z * z

        def step_(x, v, u):
            return x + H * v, v + H * (sq_(u) - sq_(x))

        a, b = step_(s, t, 0.5)
        a, b = step_(a, b, s)
        return sq_(a) + b

    pt = np.array([0.3, -0.7])
    assert g(pt)[0] == model(0.3, -0.7) * model(-0.7, 0.3)
    assert np.array_equal(written(pt), g(pt))
    p_, q_ = dstar.symbols("p q")
    h = dstar.Function([p_, q_], [model(p_, q_) * model(q_, p_)])
    assert np.array_equal(h(pt), g(pt))
    close(g.jacobian(pt), h.jacobian(pt))
    close(g.hessian(pt), h.hessian(pt))


def test_parameters_are_trailing_arguments():
    x, k = dstar.symbols("x k")
    spring = dstar.Function([x], [-k * x * x], params=[k], name="spring")
    a, g = dstar.symbols("a g")
    f = dstar.Function([a], [spring(a, g) + spring(2 * a, p=[3.0])], params=[g], name="f2")
    assert f.calls == 2
    assert f(np.array([0.5]), p=[2.0])[0] == -2.0 * 0.5 * 0.5 + -3.0 * 1.0 * 1.0
    close(f.jacobian([0.5], p=[2.0]), [[-2.0 * 2 * 0.5 - 3.0 * 2 * 2 * 0.5 * 2]])
    text = f.source()
    assert "function spring(x, k) -> (out1)" in text
    assert np.array_equal(dstar.compile(text)([0.5], p=[2.0]), f([0.5], p=[2.0]))
    # A builder's parameters have no default values: a call passes them.
    with pytest.raises(TypeError, match=r"then its 1 parameter \(k; or as p="):
        spring(a)
    with pytest.raises(TypeError, match="twice"):
        spring(a, g, p=[g])
    with pytest.raises(ValueError, match="p= gave 2"):
        spring(a, p=[1.0, 2.0])


def test_issue_34_a_call_without_parameters_takes_the_files_defaults():
    """A program's '# @params' values are its parameters' defaults for a
    call on expressions too, as for one on numbers and on the command line."""
    scale = dstar.compile("param k, c\nin x\nout y = k*x + c\n# @params 7 0.5", name="scale")
    assert scale.param_values == [7.0, 0.5]
    x = dstar.symbols("x")
    f = dstar.Function([x], [scale(x) + scale(2 * x, 3.0, 0.0) + scale(x, p=[1.0, 1.0])])
    assert f.calls == 3
    assert f([1.0])[0] == (7.0 + 0.5) + 6.0 + 2.0 == scale([1.0])[0] + 8.0
    assert "scale(x, 7, 0.5)" in f.source()
    # Nested: a function whose body calls one with defaults keeps them.
    twice = dstar.Function([x], [scale(scale(x))], name="twice")
    assert twice([1.0])[0] == 7.0 * 7.5 + 0.5
    without = dstar.compile("param k\nin x\nout y = k*x", name="without")
    assert without.param_values is None
    with pytest.raises(TypeError, match=r"then its 1 parameter \(k; or as p="):
        without(x)


def test_wrong_arguments_are_clear_errors():
    step = make_step()
    a, b = dstar.symbols("a b")
    with pytest.raises(TypeError, match=r"step\(\) takes its 3 inputs \(x, v, u\).*got 2 arguments"):
        step(a, b)
    with pytest.raises(TypeError, match="got 4 arguments"):
        step(a, b, a, b)
    with pytest.raises(TypeError, match=r"argument 3 \('u'\) of step\(\) must be a dstar expression or a number"):
        step(a, b, "c")
    with pytest.raises(ValueError, match="no parameters"):
        step(a, b, 1.0, p=[a])
    with pytest.raises(TypeError, match="one number or expression per input"):
        step(1.0, 2.0)
    with pytest.raises(ValueError, match="not a valid name"):
        dstar.Function([a], [a], name="no good")
    with pytest.raises(ValueError, match="cannot name a Function"):
        dstar.Function([a], [a], name="sin")


def test_names_that_clash_are_made_distinct():
    x = dstar.symbols("x")
    f1 = dstar.Function([x], [x + 1], name="f")
    f2 = dstar.Function([x], [x * 3], name="f")
    t1 = dstar.Function([x], [x - 2], name="t1")
    named_like_input = dstar.Function([x], [2 * x], name="a")
    a = dstar.symbols("a")
    g = dstar.Function([a], [f1(a) * f2(a) + t1(a) + named_like_input(a)])
    text = g.source()
    assert g.function_names == ["f", "f_2", "t1_2", "a_2"]
    again = dstar.compile(text)
    assert again.function_names == g.function_names
    assert np.array_equal(again([2.0]), g([2.0]))
    assert g([2.0])[0] == 3.0 * 6.0 + 0.0 + 4.0


def test_calls_combine_across_graphs():
    step = make_step()
    (a,) = dstar.vector("a", 1)
    xn, _ = step(a, 0.5, 0.25)  # a call in a's small graph
    big = dstar.vector("big", 50)
    total = sum(big[1:], big[0])  # a larger graph: the call is copied into it
    f = dstar.Function([a] + big, [xn + total, xn * 2])
    assert f.calls == 1
    x = point(51)
    assert f(x)[1] == 2 * (x[0] + H * 0.5)
    # Equal calls are one site, and equal expressions hash alike across graphs.
    (c,) = dstar.vector("c", 1)
    assert step(c, 1.0, 2.0)[0] == step(c, 1.0, 2.0)[0]
    assert hash(step(a, 0.5, 0.25)[0]) == hash(xn)
