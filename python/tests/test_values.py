"""Values against NumPy, derivatives against finite differences and against
each other (J, J@v, w@J, H, H@v of the same function agree)."""

import math

import numpy as np
import pytest

import dstar
from conftest import central_jacobian, close

# One expression per function of the op table (the table is the source of
# truth: test_every_function_is_covered fails when a function is added
# without a row here), with a NumPy oracle and a safe domain.
NUMPY = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": lambda a: np.arccosh(a + 2), "atanh": np.arctanh, "exp": np.exp, "expm1": np.expm1,
    "exp2": np.exp2, "log": lambda a: np.log(a + 2), "log1p": np.log1p, "log2": lambda a: np.log2(a + 2),
    "log10": lambda a: np.log10(a + 2), "sqrt": lambda a: np.sqrt(a + 2), "cbrt": np.cbrt,
    "abs": np.abs, "sign": np.sign, "floor": np.floor, "ceil": np.ceil,
    "erf": np.vectorize(math.erf),
    "pow": lambda a, b: np.power(a + 2, b), "atan2": np.arctan2, "hypot": np.hypot,
    "min": np.minimum, "max": np.maximum,
}
SHIFTED = {"acosh", "log", "log2", "log10", "sqrt"}


def text_of(name, arity):
    if arity == 1:
        return f"{name}(x + 2)" if name in SHIFTED else f"{name}(x)"
    return "pow(x + 2, y)" if name == "pow" else f"{name}(x, y)"


def test_every_function_is_covered():
    assert {name for name, _ in dstar.FUNCTIONS} == set(NUMPY)


@pytest.mark.parametrize("name,arity", dstar.FUNCTIONS)
def test_function_values_match_numpy(name, arity, rng):
    f = dstar.compile(text_of(name, arity), inputs=["x", "y"])
    xs = rng.uniform(-0.9, 0.9, size=(200, 2))
    got = f(xs)[:, 0]
    args = (xs[:, 0],) if arity == 1 else (xs[:, 0], xs[:, 1])
    close(got, NUMPY[name](*args), 1e-14)


@pytest.mark.parametrize("name,arity", dstar.FUNCTIONS)
def test_function_jacobians_match_differences(name, arity, rng):
    if name in {"floor", "ceil", "sign"}:
        pytest.skip("piecewise constant: derivative 0, differences meaningless at jumps")
    f = dstar.compile(text_of(name, arity), inputs=["x", "y"])
    for x in rng.uniform(-0.8, 0.8, size=(20, 2)):
        close(f.jacobian(x), central_jacobian(f, x), 1e-6)


EXPRS = [
    "sin(x*y) + x^2",
    "exp(-x^2 - y^2) * cos(3*x) / (1 + y^2)",
    "hypot(x, y) * atan2(y, x + 3) + log1p(x^2)",
    "ifelse(x < y, x*y^3, sin(y)*x)",
]


@pytest.mark.parametrize("text", EXPRS)
def test_expression_values_match_numpy(text, rng):
    f = dstar.compile(text)
    env = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "hypot": np.hypot, "atan2": np.arctan2,
           "log1p": np.log1p}
    for x in rng.uniform(-1, 1, size=(50, 2)):
        if "ifelse" in text:
            want = x[0] * x[1] ** 3 if x[0] < x[1] else np.sin(x[1]) * x[0]
        else:
            want = eval(text.replace("^", "**"), env, dict(zip(f.input_names, x)))
        close(f(x)[0], want, 1e-14)


PROGRAM = """
in x, y, z
t = x*y + sin(z)
out f1 = t^2 + z
out f2 = exp(t) / (1 + y^2)
out f3 = x*y*z
"""


def test_jacobian_hessian_and_products_agree(rng):
    f = dstar.compile(PROGRAM)
    for x in rng.uniform(-1, 1, size=(20, 3)):
        J = f.jacobian(x)
        close(J, central_jacobian(f, x), 1e-7)
        v, w = rng.normal(size=3), rng.normal(size=3)
        close(f.jvp(x, v), J @ v, 1e-13)
        close(f.vjp(x, w), w @ J, 1e-13)
        H = f.hessian(x, weights=w)
        close(H, H.T, 0.0)
        close(H, central_jacobian(lambda p: f.vjp(p, w), x), 1e-6)
        close(f.hvp(x, v, weights=w), H @ v, 1e-12)
        lower = f.hessian(x, weights=w, sparse=True).toarray()
        close(lower, np.tril(H), 0.0)


def test_sparse_jacobian_has_the_symbolic_pattern():
    f = dstar.compile("in a, b, c\nout a*b\nout c^2\nout 3")
    J = f.jacobian([1.0, 2.0, 3.0], sparse=True)
    assert J.shape == (3, 3)
    indptr, indices = f.jacobian_pattern
    assert list(J.indptr) == list(indptr) == [0, 2, 3, 3]
    assert list(J.indices) == list(indices) == [0, 1, 2]
    close(J.toarray(), f.jacobian([1.0, 2.0, 3.0]), 0.0)
    close(J.data, f.jacobian_nonzeros([1.0, 2.0, 3.0]), 0.0)


def test_scalar_hessian_and_gradient_default_weights():
    f = dstar.compile("x*x*y")
    close(f.gradient([1.0, 2.0]), [4.0, 1.0], 0.0)
    close(f.hessian([1.0, 2.0]), [[4.0, 2.0], [2.0, 0.0]], 0.0)
    close(f.hvp([1.0, 2.0], [1.0, 1.0]), [6.0, 2.0], 0.0)


def test_derivative_text():
    assert dstar.derivative("sin(x*y)", "x") == "y * cos(x * y)"
    assert dstar.derivative("x^3", "x", order=2) == "6 * x"
    assert dstar.derivative("sin(x)", "x", order=4) == "sin(x)"
    assert dstar.derivative("x^2", "y") == "0"
    assert "d_f_d_y = x" in dstar.jacobian_source("in x, y\nout f = x*y")
    assert "d2_f_d_x_d_x" in dstar.hessian_source("in x, y\nout f = x*x*y")


def test_repr_lists_few_names():
    f = dstar.compile("in x, y\nout s = x + y")
    assert repr(f) == "<dstar.Function (x, y) -> (s), 1 ops>"
    names = [f"x{i}" for i in range(10_000)]
    wide = dstar.compile("in " + ", ".join(names) + "\nout y = x0 * x9999")
    assert repr(wide) == "<dstar.Function (x0, x1, x2, x3, x4, x5, x6, …, x9999) -> (y), 1 ops>"
