"""Issue 34, item 2: results cached by the package follow the contents of the
caller's arrays, not their identity. A point or parameter vector changed in
place, or a result changed by the caller, never brings back a stale value."""

import numpy as np
import pytest

import dstar

TEXT = "param a, b\nin x, y\nout f = a*x^2 + b*atan2(y, x)\nout g = a*x*y + b\nout h = y/x\n# @params 1 2"

# Every NLP method that takes (x, p) and may answer from the cache, with the
# same quantity computed by the Function directly.
METHODS = {
    "values": lambda nlp, x, p: nlp.function(x, p=p),
    "objective": lambda nlp, x, p: nlp.function(x, p=p)[0],
    "constraints": lambda nlp, x, p: nlp.function(x, p=p)[1:],
    "gradient": lambda nlp, x, p: nlp.function.jacobian(x, p=p)[0],
    "jacobian_nonzeros": lambda nlp, x, p: nlp.function.jacobian(x, p=p)[1:][nlp.jacobian_structure],
    "jacobian": lambda nlp, x, p: nlp.function.jacobian(x, p=p)[1:],
}


def dense(value):
    return value.toarray() if hasattr(value, "toarray") else np.asarray(value)


# What a caller does to its arrays between two calls: each changes the
# point or the parameters in place, keeping the array object.
EDITS = {
    "p[0] = 5": lambda x, p: p.__setitem__(0, 5.0),
    "p[1] *= -1": lambda x, p: p.__setitem__(1, -p[1]),
    "x[1] += 1": lambda x, p: x.__setitem__(1, x[1] + 1.0),
    # -0.0 == 0.0, yet atan2(y, -0.0) != atan2(y, 0.0) and 1/-0.0 != 1/0.0.
    "x[0] = -0.0": lambda x, p: x.__setitem__(0, -0.0),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("method", METHODS)
def test_issue_34_nlp_cache_follows_arrays_changed_in_place(method, edit):
    nlp = dstar.NLP(TEXT)
    x, p = np.array([0.0, 1.5]), np.array([1.0, 2.0])
    with np.errstate(all="ignore"):
        getattr(nlp, method)(x, p)
        EDITS[edit](x, p)
        result = getattr(nlp, method)(x, p)
        want = METHODS[method](nlp, x, p)
    got = dense(result)
    assert np.array_equal(got, want, equal_nan=True), (method, edit, got, want)
    # (SciPy's toarray() writes -0.0 as 0.0.)
    if not hasattr(result, "toarray"):
        assert np.array_equal(np.signbit(got), np.signbit(want)), (method, edit, got, want)


@pytest.mark.parametrize("method", METHODS)
def test_issue_34_nlp_results_do_not_share_the_cache(method):
    """A result the caller writes into does not change the next answer."""
    nlp = dstar.NLP(TEXT)
    x, p = np.array([0.5, 1.5]), np.array([1.0, 2.0])
    first = getattr(nlp, method)(x, p)
    want = dense(first).copy()
    if isinstance(first, np.ndarray):
        first[...] = 99.0
    elif hasattr(first, "data"):
        first.data[...] = 99.0
    assert np.array_equal(dense(getattr(nlp, method)(x, p)), want)


def test_issue_34_dask_takes_the_parameters_when_called():
    """dstar.dask's functions are lazy: the p and weights they were called
    with are what compute() uses, whatever the caller does to them later."""
    da = pytest.importorskip("dask.array")
    import dstar.dask

    f = dstar.compile("param a\nin x, y\nout a*x*y\nout x + y\n# @params 2")
    scalar = dstar.compile("param a\nin x, y\nout a*x*y\n# @params 2")
    points = np.array([[1.0, 2.0], [3.0, 4.0]])
    lazy = da.from_array(points, chunks=(1, 2))
    p, w = np.array([3.0]), np.array([1.0, 1.0])
    results = {
        "values": (dstar.dask.values(f, lazy, p=p), f(points, p=[3.0])),
        "jacobian": (dstar.dask.jacobian(f, lazy, p=p), f.jacobian(points, p=[3.0])),
        "gradient": (dstar.dask.gradient(scalar, lazy, p=p), scalar.gradient(points, p=[3.0])),
        "hessian": (dstar.dask.hessian(f, lazy, weights=w, p=p), f.hessian(points, [1.0, 1.0], p=[3.0])),
    }
    p[0], w[0] = 100.0, -5.0
    for name, (lazy_result, want) in results.items():
        assert np.array_equal(lazy_result.compute(scheduler="synchronous"), want), name
