"""The symbolic builder: operators, every function of the op table,
ifelse, sharing, and builder == text."""

import time

import numpy as np
import pytest

import dstar


def test_builder_equals_text():
    x, y, z = dstar.symbols("x y z")
    t = x * y + dstar.sin(z)
    f = dstar.Function([x, y, z], [t**2 + z, dstar.exp(t) / (1 + y**2)], output_names=["f1", "f2"])
    g = dstar.compile("in x, y, z\nt = x*y + sin(z)\nout f1 = t^2 + z\nout f2 = exp(t) / (1 + y^2)")
    assert f.source() == g.source()
    p = np.array([0.3, -0.7, 1.1])
    assert np.array_equal(f.jacobian(p), g.jacobian(p))


def test_operators_with_numbers_on_either_side():
    (x,) = dstar.symbols("x0:1")
    exprs = [2 + x, x + 2, 2 - x, x - 2, 2 * x, x * 2, 2 / x, x / 2, 2**x, x**2, -x, +x,
             np.float64(2.0) * x, x * np.float64(2.0)]
    f = dstar.Function([x], exprs)
    got = f([3.0])
    want = [5, 5, -1, 1, 6, 6, 2 / 3, 1.5, 8, 9, -3, 3, 6, 6]
    assert np.allclose(got, want, rtol=1e-15)
    assert str(2 - x) == "2 - x0"


@pytest.mark.parametrize("name,arity", dstar.FUNCTIONS)
def test_every_function_matches_its_text(name, arity):
    x, y = dstar.symbols("x y")
    build = getattr(dstar, name)
    e = build(x / 4) if arity == 1 else build(x / 4, y)
    f = dstar.Function([x, y], [e], output_names=["f"])
    text = f"{name}(x / 4)" if arity == 1 else f"{name}(x / 4, y)"
    g = dstar.compile(text, inputs=["x", "y"])
    assert f.source() == g.source()
    assert np.array_equal(f.jacobian([0.3, 0.4]), g.jacobian([0.3, 0.4]), equal_nan=True)
    with pytest.raises(TypeError, match=f"{name}\\(\\) takes {arity}"):
        build(*([x] * (arity + 1)))


def test_ifelse_and_conditions():
    x, y = dstar.symbols("x y")
    e = dstar.ifelse(x < y, x * y, dstar.sin(y))
    assert str(e) == "ifelse(x < y, x * y, sin(y))"
    f = dstar.Function([x, y], e)
    assert f([1.0, 2.0])[0] == 2.0 and f([3.0, 2.0])[0] == np.sin(2.0)
    assert f.jacobian([1.0, 2.0]).tolist() == [[2.0, 1.0]]
    with pytest.raises(TypeError, match="no truth value"):
        bool(x < y)
    with pytest.raises(TypeError, match="comparison"):
        dstar.ifelse(True, x, y)
    assert (x * y == y * x) and not (x == y)  # structural: hash-consed nodes
    assert {x * y: 1}[y * x] == 1


def test_sharing_keeps_text_linear():
    (x,) = dstar.symbols("x0:1")
    e = x
    for _ in range(60):  # a tree of 2^60 leaves, a DAG of 60 nodes
        e = dstar.sin(e) * dstar.sin(e)
    f = dstar.Function([x], e)
    assert len(f.source()) < 10_000
    assert f.ops == 120
    assert len(str(e)) < 10_000


def test_large_programs_build_fast():
    n = 20_000
    xs = dstar.vector("x", n)
    start = time.perf_counter()
    acc = 0.0
    for i in range(n - 1):  # 1e5 operations
        acc = acc + 100 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1 - xs[i]) ** 2
    f = dstar.Function(xs, acc)
    build = time.perf_counter() - start
    assert f.ops >= 100_000
    g = f.gradient(np.full(n, 0.5))
    assert g.shape == (n,)
    # Generous bound, not a benchmark: a quadratic builder would take minutes.
    assert build < 30, build


def test_function_errors():
    x, y = dstar.symbols("x y")
    with pytest.raises(ValueError, match="depend on symbol 'y'"):
        dstar.Function([x], x * y)
    with pytest.raises(ValueError, match="not a symbol"):
        dstar.Function([x * y], x)
    with pytest.raises(ValueError, match="input twice"):
        dstar.Function([x, x], x)
    (x2,) = dstar.symbols("x0:1")
    other_x = dstar.symbols("x")
    with pytest.raises(ValueError, match="distinct names"):
        dstar.Function([x, other_x], x + other_x)
    with pytest.raises(ValueError, match="not a valid name"):
        dstar.symbols("1x")
    with pytest.raises(ValueError, match="a function"):
        dstar.symbols("sin")
    with pytest.raises(TypeError):
        dstar.sin("x")


def test_symbols_forms():
    a = dstar.symbols("a")
    assert isinstance(a, dstar.Expr) and a.is_symbol
    assert [str(s) for s in dstar.symbols("q0:3")] == ["q0", "q1", "q2"]
    assert [str(s) for s in dstar.symbols("u, v w")] == ["u", "v", "w"]
    assert [str(s) for s in dstar.vector("z", 2)] == ["z_0", "z_1"]
    assert (dstar.sin(0.0) + 1).value == 1.0


def test_symbol_counts_are_guarded():
    # A slip such as x0:100000000000 is an error at once, not hours of
    # allocation until the machine runs out of memory.
    with pytest.raises(ValueError, match="100000000000 symbols at once"):
        dstar.symbols("x0:100000000000")
    with pytest.raises(ValueError, match="symbols at once"):
        dstar.vector("v", 10**12)
    with pytest.raises(ValueError, match="symbols at once"):
        dstar.symbols("a0:6000000 b0:6000000")
    assert len(dstar.symbols("q0:1000")) == 1000
