"""dstar.dask on a real (local, two-process) distributed cluster equals the
local batch bit for bit."""

import numpy as np
import pytest

import dstar

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import dstar.dask  # noqa: E402

from conftest import NLP  # noqa: E402


def test_local_cluster_matches_local_batch(rng):
    f = dstar.compile(NLP[0].read_text())
    points = rng.uniform(-1, 1, size=(4_000, f.n_in))
    w = rng.normal(size=f.n_out)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        lazy = da.from_array(points, chunks=(1_000, f.n_in))
        # A timeout, so that a failing worker fails the test instead of hanging it.
        jac, val, hes = (client.compute(x).result(timeout=300) for x in (
            dstar.dask.jacobian(f, lazy), dstar.dask.values(f, lazy), dstar.dask.hessian(f, lazy, weights=w)))
    assert np.array_equal(jac, f.jacobian(points))
    assert np.array_equal(val, f(points))
    assert np.array_equal(hes, f.hessian(points, weights=w))


def test_shape_is_checked():
    f = dstar.compile("x*y")
    with pytest.raises(ValueError, match=r"shape \(B, 2\)"):
        dstar.dask.jacobian(f, da.zeros((10, 3), chunks=5))


def test_parameters_are_shared_by_the_blocks(rng):
    f = dstar.compile("param a\nin x, y\nout a*x*y\n# @params 2")
    points = rng.uniform(-1, 1, size=(100, 2))
    lazy = da.from_array(points, chunks=(30, 2))
    got = dstar.dask.values(f, lazy, p=[3.0]).compute(scheduler="synchronous")
    assert np.array_equal(got, f(points, p=[3.0]))
    assert np.array_equal(dstar.dask.jacobian(f, lazy).compute(scheduler="synchronous"), f.jacobian(points))
