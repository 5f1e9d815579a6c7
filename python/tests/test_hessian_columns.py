"""A large, dense Lagrangian Hessian (issue 35) is built by columns of H·V
products: single shooting over 760 steps, 289,180 nonzeros in the lower
triangle, past the plan's 2^18. From Python it is the same call as any
Hessian, and its columns agree with differences of the compiled gradient."""

import pickle

import numpy as np

import dstar

STEPS = 760


def single_shooting(**options):
    """A pendulum stepped STEPS times from (a0, b0), one control per step:
    the final state, written with a Python loop."""
    a, b = dstar.symbols("a0 b0")
    u = dstar.vector("u", STEPS)
    state = (a, b)
    for k in range(STEPS):
        a_k, b_k = state
        state = (a_k + 0.1 * b_k, b_k + 0.1 * (u[k] - dstar.sin(a_k)))
    return dstar.Function([a, b] + list(u), list(state), **options)


def test_a_dense_hessian_by_columns_agrees_with_differences_of_the_gradient():
    f = single_shooting()
    n = STEPS + 2
    assert f.hessian_method[0] == "hvp_columns"
    rng = np.random.default_rng(35)
    x = rng.uniform(-0.5, 0.5, n)
    w = np.array([0.7, -1.3])
    hessian = f.hessian(x, weights=w)
    assert hessian.shape == (n, n)
    assert np.array_equal(hessian, hessian.T)
    lower = f.hessian(x, weights=w, sparse=True)
    assert 2**18 <= lower.nnz <= n * (n + 1) // 2
    step = 1e-6  # the chain is stiff: the truncation error of 1e-5 is 3e-5 of the entries
    for i in [0, 1, 2, n // 2, n - 1]:
        e = np.zeros(n)
        e[i] = step
        difference = (w @ f.jacobian(x + e) - w @ f.jacobian(x - e)) / (2 * step)
        np.testing.assert_allclose(hessian[:, i], difference, rtol=1e-5, atol=1e-6)


def test_hessian_columns_false_builds_the_straight_line_kernel_and_pickles():
    f = single_shooting(hessian_columns=False)
    assert not f.hessian_columns
    assert f.hessian_method[0] != "hvp_columns"
    assert not pickle.loads(pickle.dumps(f)).hessian_columns
    by_columns = single_shooting()
    assert by_columns.hessian_columns and pickle.loads(pickle.dumps(by_columns)).hessian_columns
    x = np.linspace(-0.4, 0.4, STEPS + 2)
    w = np.array([1.0, 0.5])
    np.testing.assert_allclose(by_columns.hessian(x, weights=w), f.hessian(x, weights=w), rtol=1e-10, atol=1e-12)
