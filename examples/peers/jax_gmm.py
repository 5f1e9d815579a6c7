#!/usr/bin/env python3
"""JAX's answer to the Gaussian-mixture log-likelihood of gen.py (`gen.py gmm N`):
the same objective written with arrays, as JAX users write it, and
`jax.jit(jax.grad(f))` of it, in float64.

    python3 jax_gmm.py PROBLEM.json

PROBLEM.json holds {"d", "K", "x": the inputs (alphas, means row by row, then for
each component the log-diagonal and the strictly lower entries row by row),
"p": the data points row by row}. Prints one JSON line, {"setup_s": the first
call of jit(grad(f)) (tracing and XLA's compile included), "function_setup_s":
the same for jit(f), "value", "grad"}, then serves timing requests on stdin:
`run grad CALLS` or `run value CALLS` makes CALLS calls (each waited for) and
prints the ns they took; `quit` (or end of input) ends. Run it with
XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
(and taskset) for one thread.
"""
import json
import sys
import time

import jax
import jax.numpy as jnp

from jax_serve import serve

jax.config.update("jax_enable_x64", True)


def objective(d, K):
    rows, cols = zip(*[(r, c) for r in range(d) for c in range(r)])
    rows, cols = jnp.array(rows), jnp.array(cols)
    tri = d * (d - 1) // 2

    def f(theta, X):
        al = theta[:K]
        mu = theta[K:K + K * d].reshape(K, d)
        rest = theta[K + K * d:].reshape(K, d + tri)
        logd, low = rest[:, :d], rest[:, d:]
        Q = jnp.zeros((K, d, d)).at[:, rows, cols].set(low) + jax.vmap(jnp.diag)(jnp.exp(logd))
        xc = X[None, :, :] - mu[:, None, :]                       # K, N, d
        sq = jnp.sum(jnp.einsum("kij,knj->kni", Q, xc) ** 2, axis=-1)  # K, N
        vals = al[:, None] + jnp.sum(logd, axis=1)[:, None] - 0.5 * sq
        m = jnp.max(vals, axis=0)
        per_point = m + jnp.log(jnp.sum(jnp.exp(vals - m), axis=0))
        am = jnp.max(al)
        lse_alpha = am + jnp.log(jnp.sum(jnp.exp(al - am)))
        prior = jnp.sum(jnp.exp(logd) ** 2) + jnp.sum(low ** 2)
        return jnp.sum(per_point) - X.shape[0] * lse_alpha - 0.5 * prior + jnp.sum(logd)

    return f


def main():
    problem = json.load(open(sys.argv[1]))
    d, K = problem["d"], problem["K"]
    theta = jnp.array(problem["x"], dtype=jnp.float64)
    X = jnp.array(problem["p"], dtype=jnp.float64).reshape(-1, d)
    f = objective(d, K)
    start = time.perf_counter()
    grad = jax.jit(jax.grad(f))
    g = grad(theta, X).block_until_ready()
    setup_s = time.perf_counter() - start
    start = time.perf_counter()
    value = jax.jit(f)
    v = value(theta, X).block_until_ready()
    function_setup_s = time.perf_counter() - start
    print(json.dumps({"setup_s": setup_s, "function_setup_s": function_setup_s, "value": float(v),
                      "grad": [float(a) for a in g]}), flush=True)
    serve({"grad": grad, "value": value}, theta, X)


if __name__ == "__main__":
    main()
