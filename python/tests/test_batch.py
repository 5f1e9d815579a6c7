"""The batch path equals the loop over points bit for bit; calls from many
threads at once give the same results; shapes are checked."""

import threading

import numpy as np
import pytest

import dstar
from conftest import NLP

CARTPOLE = next(p for p in NLP if p.stem.startswith("cartpole"))


@pytest.fixture(scope="module")
def f():
    return dstar.compile(CARTPOLE.read_text())


def test_batch_equals_loop(f, rng):
    xs = rng.uniform(-1, 1, size=(300, f.n_in))
    w = rng.normal(size=f.n_out)
    v = rng.normal(size=f.n_in)
    assert np.array_equal(f(xs), np.stack([f(x) for x in xs]))
    assert np.array_equal(f.jacobian(xs), np.stack([f.jacobian(x) for x in xs]))
    assert np.array_equal(f.jacobian_nonzeros(xs), np.stack([f.jacobian_nonzeros(x) for x in xs]))
    assert np.array_equal(f.hessian(xs, weights=w), np.stack([f.hessian(x, weights=w) for x in xs]))
    assert np.array_equal(f.hessian_nonzeros(xs, w), np.stack([f.hessian_nonzeros(x, w) for x in xs]))
    assert np.array_equal(f.jvp(xs, v), np.stack([f.jvp(x, v) for x in xs]))
    assert np.array_equal(f.vjp(xs, w), np.stack([f.vjp(x, w) for x in xs]))
    assert np.array_equal(f.hvp(xs, v, w), np.stack([f.hvp(x, v, w) for x in xs]))
    sparse = f.jacobian(xs[:5], sparse=True)
    assert len(sparse) == 5 and np.array_equal(sparse[3].toarray(), f.jacobian(xs[3]))


def test_per_point_companions(f, rng):
    xs = rng.uniform(-1, 1, size=(40, f.n_in))
    vs = rng.normal(size=(40, f.n_in))
    ws = rng.normal(size=(40, f.n_out))
    assert np.array_equal(f.jvp(xs, vs), np.stack([f.jvp(x, v) for x, v in zip(xs, vs)]))
    assert np.array_equal(f.vjp(xs, ws), np.stack([f.vjp(x, w) for x, w in zip(xs, ws)]))
    assert np.array_equal(f.hessian(xs, ws), np.stack([f.hessian(x, w) for x, w in zip(xs, ws)]))
    assert np.array_equal(f.hvp(xs, vs, ws), np.stack([f.hvp(x, v, w) for x, v, w in zip(xs, vs, ws)]))


def test_non_contiguous_and_non_float_input(f, rng):
    xs = rng.uniform(-1, 1, size=(20, 2 * f.n_in))[:, ::2]
    assert not xs.flags.c_contiguous
    assert np.array_equal(f.jacobian(xs), f.jacobian(np.ascontiguousarray(xs)))
    raw = bytearray(8 * xs.size + 1)
    unaligned = np.frombuffer(raw, dtype=np.float64, offset=1).reshape(xs.shape)
    unaligned[...] = xs
    assert not unaligned.flags.aligned
    assert np.array_equal(f.jacobian(unaligned), f.jacobian(np.ascontiguousarray(xs)))
    readonly = np.ascontiguousarray(xs)
    readonly.flags.writeable = False
    assert np.array_equal(f(readonly), f(xs))
    g = dstar.compile("x*y")
    assert np.array_equal(g([2, 3]), [6.0])
    assert np.array_equal(g(np.array([[2, 3], [4, 5]], dtype=np.int32)), [[6.0], [20.0]])
    assert g(np.zeros((0, 2))).shape == (0, 1)


def test_concurrent_calls_from_threads(f, rng):
    xs = rng.uniform(-1, 1, size=(64, f.n_in))
    w = rng.normal(size=f.n_out)
    want_j = f.jacobian(xs)
    want_h = f.hessian(xs, weights=w)
    fresh = dstar.compile(CARTPOLE.read_text())  # kernels compiled by racing threads
    errors = []

    def work(k):
        try:
            for i in range(k, 64, 8):
                assert np.array_equal(fresh.jacobian(xs[i]), want_j[i])
                assert np.array_equal(fresh.hessian(xs[i], weights=w), want_h[i])
            assert np.array_equal(fresh.jacobian(xs), want_j)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda f: f(np.zeros(3)), r"x must have shape \(2,\) or \(B, 2\) .*got shape \(3,\)"),
        (lambda f: f.jacobian(np.zeros((4, 3))), r"got shape \(4, 3\)"),
        (lambda f: f.jacobian(np.zeros((2, 2, 2))), r"got shape \(2, 2, 2\)"),
        (lambda f: f.jvp(np.zeros(2), np.zeros(3)), r"v must have shape \(2,\) or \(k, 2\) .*got shape \(3,\)"),
        (lambda f: f.jvp(np.zeros(2), np.zeros((3, 3))), r"v must have shape \(2,\) or \(k, 2\)"),
        (lambda f: f.jvp(np.zeros(2), np.zeros((1, 3, 2))), r"got shape \(1, 3, 2\)"),
        (lambda f: f.jvp(np.zeros((5, 2)), np.zeros((4, 2))), r"v must have shape \(2,\), \(5, 2\) or \(5, k, 2\)"),
        (lambda f: f.jvp(np.zeros((5, 2)), np.zeros((4, 3, 2))), r"got shape \(4, 3, 2\)"),
        (lambda f: f.vjp(np.zeros(2), np.zeros(1)), r"w must have shape \(2,\) or \(k, 2\)"),
        (lambda f: f.vjp(np.zeros((5, 2)), np.zeros((5, 3, 3))), r"w must have shape \(2,\), \(5, 2\) or \(5, k, 2\)"),
        (lambda f: f.hvp(np.zeros(2), np.zeros((3, 1)), [1, 1]), r"v must have shape \(2,\) or \(k, 2\)"),
        (lambda f: f.hessian(np.zeros(2)), r"2 outputs: pass weights="),
        (lambda f: f.hessian(np.zeros(2), weights=[1.0]), r"weights must have shape \(2,\)"),
        (lambda f: f.gradient(np.zeros(2)), r"scalar function"),
    ],
)
def test_shape_errors(call, message):
    g = dstar.compile("in x, y\nout x*y\nout x + y")
    with pytest.raises(ValueError, match=message):
        call(g)


def test_complex_values_are_refused():
    # NumPy's cast would drop a complex array's imaginary parts (a warning,
    # then f(0)); complex Python numbers NumPy refuses itself.
    g = dstar.compile("in x, y\nout x*y")
    for call in [
        lambda: g(np.array([1j, 2.0])),
        lambda: g.jacobian([[1 + 2j, 3.0]]),
        lambda: g.jvp([1.0, 2.0], np.array([1j, 0])),
        lambda: g.vjp([1.0, 2.0], [1j]),
    ]:
        with pytest.raises(TypeError, match="complex"):
            call()
    assert np.array_equal(g(np.array([2 + 0j, 3]).real), [6.0])
