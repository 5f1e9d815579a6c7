#!/usr/bin/env python3
"""JAX's answer to ADBench's bundle adjustment (`ba.py N_CAMS N_PTS N_OBS`):
the residuals of one observation written with arrays and their Jacobian
blocks by `jax.jit(jax.vmap(jax.jacfwd(f)))` over the observations
(ADBench's per-observation blocks), in float64.

    python3 jax_ba.py PROBLEM.json

PROBLEM.json is `ba.py ... --json`: {"cams", "pts", "weights", "obs":
(camera, point) per observation, "feats"}. Prints one JSON line,
{"setup_s": the first call of the jitted Jacobian (tracing and XLA's
compile included), "values": the reprojection residuals (observation by
observation) then the weight residuals, "reprojection": the blocks, one
list of 2 x 15 per observation (columns: the camera's 11, the point's 3,
the weight), "weight": d(1 - w^2)/dw per observation}, then serves timing
requests on stdin as jax_gmm.py does: `run jacobian CALLS` makes CALLS calls
(each waited for) and prints the ns they took; `quit` (or end of input)
ends. Run it with XLA_FLAGS="--xla_cpu_multi_thread_eigen=false
intra_op_parallelism_threads=1" (and taskset) for one thread.
"""
import json
import sys
import time

import jax
import jax.numpy as jnp

from jax_serve import serve

jax.config.update("jax_enable_x64", True)


def rodrigues(r, y):
    """ADBench's `rodrigues_rotate_point`, its small-angle branch by `where`."""
    sqtheta = jnp.sum(r * r)
    theta = jnp.sqrt(sqtheta)
    k = r / theta
    tmp = jnp.dot(k, y) * (1 - jnp.cos(theta))
    rotated = y * jnp.cos(theta) + jnp.cross(k, y) * jnp.sin(theta) + k * tmp
    return jnp.where(sqtheta != 0, rotated, y + jnp.cross(r, y))


def reprojection(cam, X, w, feat):
    """ADBench's `computeReprojError` for one observation: 2 residuals."""
    z = rodrigues(cam[0:3], X - cam[3:6])
    p = z[0:2] / z[2]
    rsq = jnp.sum(p * p)
    distortion = 1 + cam[9] * rsq + cam[10] * rsq * rsq
    return w * (p * distortion * cam[6] + cam[7:9] - feat)


def weight(w):
    """ADBench's `computeZachWeightError`."""
    return 1 - w * w


def main():
    problem = json.load(open(sys.argv[1]))
    cams = jnp.array(problem["cams"], dtype=jnp.float64)
    pts = jnp.array(problem["pts"], dtype=jnp.float64)
    weights = jnp.array(problem["weights"], dtype=jnp.float64)
    obs = jnp.array(problem["obs"], dtype=jnp.int32)
    feats = jnp.array(problem["feats"], dtype=jnp.float64)

    def residuals(cams, pts, weights):
        e = jax.vmap(reprojection)(cams[obs[:, 0]], pts[obs[:, 1]], weights, feats)
        return jnp.concatenate([e.reshape(-1), weight(weights)])

    def jacobian(cams, pts, weights):
        blocks = jax.vmap(jax.jacfwd(reprojection, argnums=(0, 1, 2)))(
            cams[obs[:, 0]], pts[obs[:, 1]], weights, feats)
        reprojection_blocks = jnp.concatenate([blocks[0], blocks[1], blocks[2][:, :, None]], axis=2)
        return reprojection_blocks, jax.vmap(jax.grad(weight))(weights)

    start = time.perf_counter()
    jac = jax.jit(jacobian)
    blocks, dweight = jac(cams, pts, weights)
    blocks.block_until_ready()
    dweight.block_until_ready()
    setup_s = time.perf_counter() - start
    values = jax.jit(residuals)(cams, pts, weights)
    print(json.dumps({"setup_s": setup_s, "values": [float(v) for v in values],
                      "reprojection": blocks.tolist(), "weight": [float(v) for v in dweight]}), flush=True)
    serve({"jacobian": jac}, cams, pts, weights)


if __name__ == "__main__":
    main()
