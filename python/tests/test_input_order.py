"""Functions whose DAG creates inputs after other nodes (a single expression
is parsed with each variable created where it first appears: in x*x*y, y
comes after x*x) get the same Hessians and Hessian products as the same
function written with its inputs first, and both match finite differences
of the gradient."""

import numpy as np

import dstar
from conftest import central_jacobian, close, random_expression


def check_second_order(f, reference, x, w, v):
    H = f.hessian(x, weights=w)
    close(H, reference.hessian(x, weights=w), 1e-13)
    close(H, central_jacobian(lambda p: f.vjp(p, w), x), 1e-6)
    close(f.hessian(x, weights=w, sparse=True).toarray(), np.tril(H), 1e-13)
    close(f.hvp(x, v, weights=w), H @ v, 1e-12)
    close(f.hvp(x, np.stack([v, 2 * v]), weights=w), np.stack([H @ v, 2 * H @ v]), 1e-12)


def test_hessian_of_x_x_y_with_inputs_at_first_use():
    text = dstar.compile("x*x*y")
    inputs_first = dstar.compile("in x, y\nout f = x*x*y")
    x = dstar.symbols("x")
    square = x * x  # a node of the builder's DAG before y exists
    y = dstar.symbols("y")
    built = dstar.Function([x, y], square * y)
    for f in (text, built):
        p = np.array([1.5, -0.5])
        close(f.hessian(p), [[2 * p[1], 2 * p[0]], [2 * p[0], 0.0]], 0.0)
        check_second_order(f, inputs_first, p, np.array([1.0]), np.array([0.3, -1.2]))


def test_generated_expressions_with_inputs_at_first_use(rng):
    for _ in range(60):
        names = ["a", "b", "c", "d"][: rng.integers(1, 5)]
        expr = " + ".join(random_expression(rng, names, 4) for _ in range(2))
        f = dstar.compile(expr)  # inputs in order of appearance, created at first use
        order = f.input_names
        inputs_first = dstar.compile(f"in {', '.join(order)}\nout f = {expr}")
        reordered = dstar.compile(expr, inputs=sorted(order))
        permutation = [order.index(name) for name in sorted(order)]
        for x in rng.uniform(-1, 1, size=(3, len(order))):
            w, v = np.array([rng.normal()]), rng.normal(size=len(order))
            check_second_order(f, inputs_first, x, w, v)
            H = reordered.hessian(x[permutation], weights=w)
            close(H, f.hessian(x, weights=w)[np.ix_(permutation, permutation)], 1e-13)
