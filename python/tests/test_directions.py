"""k directions per call (jvp, vjp, hvp with a (k, len) or (B, k, len)
array) against k single-direction calls and against the dense Jacobian and
Hessian, over generated functions; the batch equals the loop bit for bit."""

import numpy as np
import pytest

import dstar
from conftest import close, random_program

# Below, at and past the widest kernels (8 directions per native call for
# vjp and hvp, 32 for jvp), so that one call runs kernels of several widths.
KS = [1, 2, 5, 8, 13, 17, 40]


@pytest.fixture(scope="module")
def functions():
    rng = np.random.default_rng(16)
    shapes = [(1, 1), (2, 3), (3, 1), (4, 4), (6, 2)]
    return [dstar.compile(random_program(rng, n, m)) for _ in range(4) for n, m in shapes]


def test_k_directions_equal_single_directions_and_dense(functions, rng):
    for f in functions:
        n, m = f.n_in, f.n_out
        x = rng.uniform(-1, 1, size=n)
        J, w = f.jacobian(x), rng.normal(size=m)
        H = f.hessian(x, weights=w)
        for k in KS:
            V, W = rng.normal(size=(k, n)), rng.normal(size=(k, m))
            jv, wj, hv = f.jvp(x, V), f.vjp(x, W), f.hvp(x, V, weights=w)
            assert jv.shape == (k, m) and wj.shape == (k, n) and hv.shape == (k, n)
            close(jv, np.stack([f.jvp(x, v) for v in V]), 1e-14)
            close(wj, np.stack([f.vjp(x, u) for u in W]), 1e-14)
            close(hv, np.stack([f.hvp(x, v, weights=w) for v in V]), 1e-14)
            close(jv, V @ J.T, 1e-12)
            close(wj, W @ J, 1e-12)
            close(hv, V @ H, 1e-12)


def test_batch_of_k_directions_equals_loop(functions, rng):
    for f in functions[::3]:
        n, m, B = f.n_in, f.n_out, 50
        xs = rng.uniform(-1, 1, size=(B, n))
        ws = rng.normal(size=(B, m))
        for k in [3, 11]:
            V, W = rng.normal(size=(B, k, n)), rng.normal(size=(B, k, m))
            jv, wj, hv = f.jvp(xs, V), f.vjp(xs, W), f.hvp(xs, V, weights=ws)
            assert jv.shape == (B, k, m) and wj.shape == (B, k, n) and hv.shape == (B, k, n)
            assert np.array_equal(jv, np.stack([f.jvp(x, v) for x, v in zip(xs, V)]))
            assert np.array_equal(wj, np.stack([f.vjp(x, u) for x, u in zip(xs, W)]))
            assert np.array_equal(hv, np.stack([f.hvp(x, v, w) for x, v, w in zip(xs, V, ws)]))
            # The same k directions for every point: broadcast (a stride-0 view).
            shared = np.broadcast_to(V[0], (B, k, n))
            assert np.array_equal(f.jvp(xs, shared), np.stack([f.jvp(x, V[0]) for x in xs]))


def test_shapes_of_one_and_no_directions(rng):
    f = dstar.compile("in x, y, z\nout x*y\nout sin(z)")
    x = rng.uniform(-1, 1, size=3)
    assert f.jvp(x, np.ones(3)).shape == (2,)  # a 1-D direction stays 1-D
    assert f.jvp(x, np.ones((1, 3))).shape == (1, 2)
    assert f.jvp(x, np.ones((0, 3))).shape == (0, 2)
    assert f.vjp(x, np.ones(2)).shape == (3,)
    assert f.vjp(x, np.ones((1, 2))).shape == (1, 3)
    assert f.hvp(x, np.ones((0, 3)), [1.0, 1.0]).shape == (0, 3)
    xs = rng.uniform(-1, 1, size=(4, 3))
    assert f.jvp(xs, np.ones(3)).shape == (4, 2)
    assert f.jvp(xs, np.ones((4, 3))).shape == (4, 2)
    assert f.jvp(xs, np.ones((4, 1, 3))).shape == (4, 1, 2)
    assert f.vjp(xs, np.ones((4, 0, 2))).shape == (4, 0, 3)
    assert f.jvp(np.ones((0, 3)), np.ones((0, 5, 3))).shape == (0, 5, 2)
