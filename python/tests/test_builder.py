"""The symbolic builder: operators, every function of the op table,
ifelse, sharing, and builder == text."""

import time

import numpy as np
import pytest

import dstar
from conftest import close


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
    with pytest.raises(ValueError, match="given twice as an input"):
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


def test_parameters_equal_the_parsed_text():
    x, g, y, c = dstar.symbols("x g y c")
    f = dstar.Function([x, y], [g * dstar.sin(x) + c * y**2, x * y / g], output_names=["f", "h"], params=[g, c])
    text = dstar.compile("in x, y\nparam g, c\nout f = g*sin(x) + c*y^2\nout h = x*y/g")
    assert (f.input_names, f.param_names, f.n_param) == (["x", "y"], ["g", "c"], 2)
    assert f.source() == text.source()
    assert dstar.compile(f.source()).param_names == ["g", "c"]
    p, pt = np.array([9.81, 0.25]), np.array([0.3, -0.7])
    assert np.array_equal(f(pt, p=p), text(pt, p=p))
    assert np.array_equal(f.jacobian(pt, p=p), text.jacobian(pt, p=p))
    assert f.jacobian(pt, p=p).shape == (2, 2)


def python_expression(text):
    """Problem-format expression text as Python over dstar expressions."""
    return text.replace("^", "**")


def test_generated_programs_built_in_python_equal_the_text(rng):
    from conftest import random_program

    env = {name: getattr(dstar, name) for name in ["sin", "cos", "tanh", "atan", "sqrt", "log"]}
    for trial in range(20):
        n = int(rng.integers(1, 5))
        text = random_program(rng, n, int(rng.integers(1, 4)), n_temps=6)
        lines = text.splitlines()
        # Each input a symbol of its own call: expressions of several graphs.
        names = {f"x{k}": dstar.symbols(f"x{k}") for k in range(n)}
        outputs, output_names = [], []
        for line in lines[1:]:
            name, expr = (part.strip() for part in line.removeprefix("out ").split("=", 1))
            value = eval(python_expression(expr), dict(env), names)
            if line.startswith("out "):
                outputs.append(value)
                output_names.append(name)
            else:
                names[name] = value
        built = dstar.Function([names[f"x{k}"] for k in range(n)], outputs, output_names=output_names)
        parsed = dstar.compile(text)
        for x in rng.uniform(-1, 1, size=(3, n)):
            assert np.array_equal(built(x), parsed(x)), text
            close(built.jacobian(x), parsed.jacobian(x), 1e-13)


def test_symbols_of_different_calls_keep_their_identity():
    x = dstar.symbols("x")
    y = dstar.symbols("y")
    a, b = x * y, y * x  # built in x's graph and in y's
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert not (a == x * y + 1)
    # x reaches y's graph twice, through a and through b: one input.
    f = dstar.Function([x, y], [a + b * x, dstar.sin(b) + 2 * x])
    g = dstar.compile("in x, y\nout out1 = x*y + x*y*x\nout out2 = sin(x*y) + 2*x")
    assert f.source() == g.source()
    assert str(dstar.ifelse(x < y, a, 2)) == "ifelse(x < y, x * y, 2)"


def test_functions_copy_their_expressions():
    x, y = dstar.symbols("x y")
    f = dstar.Function([x, y], x * y + 1)
    del x, y  # the graph goes with its last expression; f has its own DAG
    assert np.array_equal(f([2.0, 3.0]), [7.0])


def test_threads_build_functions_at_once():
    import threading

    def build(k, out):
        xs = dstar.vector(f"x{k}", 50)
        acc = 0.0
        for i in range(49):
            acc = acc + (xs[i + 1] - xs[i] ** 2) ** 2 * (k + 1)
        out[k] = dstar.Function(xs, acc)

    results = {}
    threads = [threading.Thread(target=build, args=(k, results)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want = {}
    for k in range(4):
        build(k, want)
    for k in range(4):
        assert results[k].source() == want[k].source()


def test_parameter_errors():
    x, y, a = dstar.symbols("x y a")
    with pytest.raises(ValueError, match="'a' is both an input and a parameter"):
        dstar.Function([x, a], x * a, params=[a])
    with pytest.raises(ValueError, match="parameter 0 of the Function is '2 \\* a', not a symbol"):
        dstar.Function([x], x, params=[a * 2])
    with pytest.raises(ValueError, match="'a' is given twice as a parameter"):
        dstar.Function([x], x * a, params=[a, a])
    with pytest.raises(ValueError, match="depend on symbol 'a', which is neither an input nor a parameter"):
        dstar.Function([x, y], x * a)
    with pytest.raises(TypeError, match="params must be symbols"):
        dstar.Function([x], x, params=["a"])
