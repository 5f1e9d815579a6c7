"""Evaluate dstar kernels over a ``dask.array`` of points.

Each block of rows is evaluated by the batch path of the kernel on the
worker that holds it; the :class:`dstar.Function` travels to workers by
pickle (its source text, compiled again there, once per process).

>>> import dask.array as da, numpy as np, dstar, dstar.dask
>>> f = dstar.compile("in x, y\\nout x*y\\nout sin(x)")
>>> points = da.from_array(np.random.default_rng(0).random((10_000, 2)), chunks=(2_500, 2))
>>> jac = dstar.dask.jacobian(f, points)          # lazy, shape (10000, 2, 2)
>>> jac.compute().shape
(10000, 2, 2)

The same code runs on a cluster: create ``distributed.Client("tcp://scheduler:8786")``
(or any ``Client``) before calling ``compute()``, and dask ships the blocks
and the function to its workers; each worker needs ``pip install dstar``.
"""

import numpy as np

__all__ = ["values", "jacobian", "hessian", "gradient"]


def _check(f, points):
    if points.ndim != 2 or points.shape[1] != f.n_in:
        raise ValueError(f"points must be a dask array of shape (B, {f.n_in}); got shape {points.shape}")
    if len(points.chunks[1]) != 1:
        points = points.rechunk({1: -1})
    return points


def _copy(values):
    """A copy of the caller's ``p`` or ``weights``: the blocks run at
    ``compute()``, and must see the values of the call, not later edits."""
    return None if values is None else np.array(values, dtype=np.float64)


def values(f, points, p=None):
    """``f(points, p=p)`` block by block: a lazy dask array ``(B, n_out)``;
    the parameters ``p`` (shape ``(n_param,)``, by default the function's
    ``# @params``) are shared by every point."""
    points, p = _check(f, points), _copy(p)
    return points.map_blocks(
        lambda block: f(np.ascontiguousarray(block, dtype=np.float64), p=p),
        chunks=(points.chunks[0], (f.n_out,)),
        dtype=np.float64,
    )


def jacobian(f, points, p=None):
    """Dense Jacobians block by block: a lazy dask array ``(B, n_out, n_in)``."""
    points, p = _check(f, points), _copy(p)
    return points.map_blocks(
        lambda block: f.jacobian(np.ascontiguousarray(block, dtype=np.float64), p=p),
        chunks=(points.chunks[0], (f.n_out,), (f.n_in,)),
        new_axis=2,
        dtype=np.float64,
    )


def gradient(f, points, p=None):
    """Gradients of a scalar function: a lazy dask array ``(B, n_in)``."""
    points, p = _check(f, points), _copy(p)
    return points.map_blocks(
        lambda block: f.gradient(np.ascontiguousarray(block, dtype=np.float64), p=p),
        chunks=(points.chunks[0], (f.n_in,)),
        dtype=np.float64,
    )


def hessian(f, points, weights=None, p=None):
    """Dense Lagrangian Hessians: a lazy dask array ``(B, n_in, n_in)``;
    ``weights`` of shape ``(n_out,)`` is shared by every point."""
    points, p = _check(f, points), _copy(p)
    w = _copy(weights)
    return points.map_blocks(
        lambda block: f.hessian(np.ascontiguousarray(block, dtype=np.float64), weights=w, p=p),
        chunks=(points.chunks[0], (f.n_in,), (f.n_in,)),
        new_axis=2,
        dtype=np.float64,
    )
