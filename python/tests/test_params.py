"""Issue 27: parameters from Python. A program's parameters are data given
with every call (p=), never differentiated: every request kind with
parameters equals the same program with their values written in as numbers
(values bit for bit, derivatives close) and has no column for them; a new p
is what recompiling with it gives; batches take one p for all points or one
per point; wrong lengths are ValueErrors that say what was expected."""

import pickle
import re

import numpy as np
import pytest

import dstar
from conftest import close

# An argument of each function of the op table inside its domain for
# inputs in (-0.9, 0.9) and parameters in (0.5, 1.5): |u| < 0.7.
SHIFTED = {"acosh", "log", "log2", "log10", "sqrt"}

# Where the parameters a, b go among the inputs x, y: declarations in
# text order (a declaration order the parser numbers as inputs, then
# parameters).
LAYOUTS = [
    ["param a, b", "in x, y"],
    ["in x", "param a", "in y", "param b"],
    ["in x, y", "param b, a"],
    ["param b", "in y, x", "param a"],
]


def body(name, arity):
    """Outputs of x, y, a, b around one function of the op table."""
    u = "(a*x + b*y) / 4"
    arg = f"{u} + 2" if name in SHIFTED else u
    if arity == 1:
        call = f"{name}({arg})"
    elif name == "pow":
        call = f"pow({u} + 2, b*y)"
    else:
        call = f"{name}({u}, b - y)"
    return [f"out f = {call} * (1 + a*x)", f"out g = x*y*b + {call}^2 / (2 + a)"]


def program(layout, name, arity, values=None):
    """The program text; with `values`, the parameters written in as numbers."""
    lines = layout + body(name, arity)
    if values is None:
        return "\n".join(lines) + "\n"
    text = "\n".join(line for line in lines if not line.startswith("param")) + "\n"
    return written_in(text, values)


def written_in(text, values):
    """`text` with each parameter name replaced by its value."""
    for param, value in values.items():
        text = re.sub(rf"\b{param}\b", f"({float(value)!r})", text)
    return text


def params_of(f, values):
    return np.array([values[name] for name in f.param_names])


@pytest.mark.parametrize("name,arity", dstar.FUNCTIONS)
def test_every_request_with_parameters_equals_the_numbers_written_in(name, arity, rng):
    for layout in LAYOUTS:
        values = {"a": rng.uniform(0.5, 1.5), "b": rng.uniform(0.5, 1.5)}
        f = dstar.compile(program(layout, name, arity))
        g = dstar.compile(program(layout, name, arity, values))
        assert f.n_param == 2 and sorted(f.param_names) == ["a", "b"]
        assert f.input_names == g.input_names
        p = params_of(f, values)
        n = f.n_in
        for x in rng.uniform(-0.9, 0.9, size=(3, n)):
            w, v, V = rng.normal(size=2), rng.normal(size=n), rng.normal(size=(13, n))
            assert np.array_equal(f(x, p=p), g(x), equal_nan=True), layout
            J = f.jacobian(x, p=p)
            assert J.shape == (2, n)  # no column for a parameter
            close(J, g.jacobian(x), 1e-13)
            close(f.jacobian_nonzeros(x, p=p), f.jacobian(x, sparse=True, p=p).data, 0.0)
            H = f.hessian(x, weights=w, p=p)
            assert H.shape == (n, n)
            close(H, g.hessian(x, weights=w), 1e-12)
            close(f.hessian(x, weights=w, sparse=True, p=p).toarray(), np.tril(H), 0.0)
            close(f.jvp(x, v, p=p), g.jvp(x, v), 1e-13)
            close(f.jvp(x, V, p=p), V @ J.T, 1e-12)
            close(f.vjp(x, w, p=p), g.vjp(x, w), 1e-13)
            close(f.vjp(x, np.stack([w] * 9), p=p), np.stack([w @ J] * 9), 1e-12)
            close(f.hvp(x, V, weights=w, p=p), V @ H, 1e-12)


def test_gradient_with_parameters():
    f = dstar.compile("in x\nparam c\nin y\nout c * x^2 * y")
    g = dstar.compile("in x, y\nout 3.5 * x^2 * y")
    x = np.array([0.3, -1.2])
    assert f.gradient(x, p=[3.5]).shape == (2,)
    close(f.gradient(x, p=[3.5]), g.gradient(x), 1e-15)
    close(f.hessian(x, p=[3.5]), g.hessian(x), 1e-15)


def test_new_parameters_give_what_recompiling_gives(rng):
    text = "param k, c\nin x, y\nout f = exp(-k*x) * sin(c*y)\nout g = hypot(x, k) * c\n"
    f = dstar.compile(text)
    x = np.array([0.4, -0.7])
    for _ in range(4):
        k, c = rng.uniform(0.5, 2.0, size=2)
        written = dstar.compile(written_in(text.replace("param k, c\n", ""), {"k": k, "c": c}))
        assert np.array_equal(f(x, p=[k, c]), written(x))
        close(f.jacobian(x, p=[k, c]), written.jacobian(x), 1e-14)
        close(f.hessian(x, weights=[1.0, -2.0], p=[k, c]), written.hessian(x, weights=[1.0, -2.0]), 1e-13)


def test_defaults_from_the_file():
    f = dstar.compile("param g, len\nin th\nout -g / len * sin(th)\n# @params 9.81 0.5")
    x = np.array([0.3])
    assert np.array_equal(f(x), f(x, p=[9.81, 0.5]))
    assert np.array_equal(f.jacobian(x), f.jacobian(x, p=[9.81, 0.5]))
    assert not np.array_equal(f(x, p=[1.62, 0.5]), f(x))
    assert "# @params 9.81 0.5" in f.source()


@pytest.fixture(scope="module")
def pendulum():
    return dstar.compile(
        "param g\nin th, om\nparam len\nin u\n"
        "out dth = om\nout dom = -g / len * sin(th) + u\nout en = om^2 * len / 2 - g * cos(th)\n"
    )


def test_batches_with_shared_and_per_point_parameters(pendulum, rng):
    f = pendulum
    B = 300
    xs = rng.uniform(-1, 1, size=(B, f.n_in))
    P = rng.uniform(0.5, 10, size=(B, f.n_param))
    p = P[0]
    W = rng.normal(size=(B, f.n_out))
    V = rng.normal(size=(B, 5, f.n_in))
    Wk = rng.normal(size=(B, 5, f.n_out))
    one = {
        "values": lambda x, p, i: f(x, p=p),
        "jacobian": lambda x, p, i: f.jacobian(x, p=p),
        "nonzeros": lambda x, p, i: f.jacobian_nonzeros(x, p=p),
        "hessian": lambda x, p, i: f.hessian(x, W[i], p=p),
        "hessian_nonzeros": lambda x, p, i: f.hessian_nonzeros(x, W[i], p=p),
        "jvp": lambda x, p, i: f.jvp(x, V[i], p=p),
        "vjp": lambda x, p, i: f.vjp(x, Wk[i], p=p),
        "hvp": lambda x, p, i: f.hvp(x, V[i], W[i], p=p),
    }
    batch = {
        "values": lambda p: f(xs, p=p),
        "jacobian": lambda p: f.jacobian(xs, p=p),
        "nonzeros": lambda p: f.jacobian_nonzeros(xs, p=p),
        "hessian": lambda p: f.hessian(xs, W, p=p),
        "hessian_nonzeros": lambda p: f.hessian_nonzeros(xs, W, p=p),
        "jvp": lambda p: f.jvp(xs, V, p=p),
        "vjp": lambda p: f.vjp(xs, Wk, p=p),
        "hvp": lambda p: f.hvp(xs, V, W, p=p),
    }
    for kind in one:
        per_point = np.stack([one[kind](x, P[i], i) for i, x in enumerate(xs)])
        shared = np.stack([one[kind](x, p, i) for i, x in enumerate(xs)])
        assert np.array_equal(batch[kind](P), per_point), kind
        assert np.array_equal(batch[kind](p), shared), kind
    sparse = f.jacobian(xs[:3], sparse=True, p=P[:3])
    assert np.array_equal(sparse[2].toarray(), f.jacobian(xs[2], p=P[2]))


def test_scalar_batches_with_parameters(rng):
    f = dstar.compile("param a\nin x, y\nout a * x^2 * y + sin(a*y)")
    xs = rng.uniform(-1, 1, size=(50, 2))
    P = rng.uniform(0.5, 2, size=(50, 1))
    assert np.array_equal(f.gradient(xs, p=P), np.stack([f.gradient(x, p=q) for x, q in zip(xs, P)]))
    assert np.array_equal(f.hessian(xs, p=P), np.stack([f.hessian(x, p=q) for x, q in zip(xs, P)]))


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda f: f([0.1, 0.2, 0.3]), r"2 parameters \(g, len\) and no default values.*pass p="),
        (lambda f: f.jacobian([0.1, 0.2, 0.3]), r"2 parameters \(g, len\)"),
        (lambda f: f.hessian([0.1, 0.2, 0.3], [1, 0, 0]), r"2 parameters \(g, len\)"),
        (lambda f: f.gradient([0.1, 0.2, 0.3]), r"scalar function"),
        (lambda f: f([0.1, 0.2, 0.3], p=[1.0]), r"p must have shape \(2,\) \(one value per parameter: g, len\); got shape \(1,\)"),
        (lambda f: f([0.1, 0.2, 0.3], p=[1.0, 2.0, 3.0]), r"p must have shape \(2,\).*got shape \(3,\)"),
        (lambda f: f.jacobian(np.zeros((4, 3)), p=np.ones((3, 2))), r"p must have shape \(2,\) or \(4, 2\).*got shape \(3, 2\)"),
        (lambda f: f.jvp([0.1, 0.2, 0.3], [1.0, 0.0], p=[1, 2]), r"v must have shape \(3,\) or \(k, 3\)"),
        (lambda f: f.vjp([0.1, 0.2, 0.3], [1.0, 0.0], p=[1, 2]), r"w must have shape \(3,\) or \(k, 3\)"),
        (lambda f: f.hessian([0.1, 0.2, 0.3], [1.0], p=[1, 2]), r"weights must have shape \(3,\)"),
        (lambda f: f.hvp(np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((5, 3)), p=[1, 2]), r"weights must have shape \(3,\) or \(4, 3\)"),
        (lambda f: f.native_call_ns("values", [0.1, 0.2, 0.3], 10, p=[1.0]), r"p must have shape \(2,\)"),
    ],
)
def test_wrong_lengths_are_value_errors(call, message):
    f = dstar.compile("param g, len\nin th, om, u\nout om\nout -g/len*sin(th) + u\nout om*u")
    with pytest.raises(ValueError, match=message):
        call(f)


def test_parameters_given_to_a_function_without_any():
    f = dstar.compile("in x, y\nout x*y")
    assert f.n_param == 0 and f.param_names == []
    assert np.array_equal(f([2.0, 3.0], p=[]), [6.0])
    with pytest.raises(ValueError, match=r"p must have shape \(0,\) \(this function has no parameters\)"):
        f([2.0, 3.0], p=[1.0])


def test_pickling_keeps_parameters(rng):
    f = dstar.compile("param a\nin x\nparam b\nin y\nout a*sin(x) + b*y^2\n# @params 2 3")
    g = pickle.loads(pickle.dumps(f))
    assert g.param_names == ["a", "b"] and g.input_names == ["x", "y"]
    assert g.source() == f.source()
    xs = rng.uniform(-1, 1, size=(5, 2))
    assert np.array_equal(g(xs), f(xs))  # the defaults came along
    assert np.array_equal(g.jacobian(xs, p=[5.0, 7.0]), f.jacobian(xs, p=[5.0, 7.0]))
    x, y, a = dstar.symbols("x y a")
    built = dstar.Function([x, y], a * x * y, params=[a])
    back = pickle.loads(pickle.dumps(built))
    assert back.param_names == ["a"] and back.n_param == 1
    assert np.array_equal(back([2.0, 3.0], p=[0.5]), [3.0])
    with pytest.raises(ValueError, match=r"1 parameter \(a\) and no default values"):
        back([2.0, 3.0])


def test_repr_names_the_parameters():
    f = dstar.compile("param a\nin x\nout s = a*x")
    assert repr(f) == "<dstar.Function (x) -> (s), 1 ops; params (a)>"
