"""The Python package's targets (issue 16), measured as ratios against peers
in the same run; prints, asserts nothing.

    python python/benches/bench_targets.py [--points 1000000]

1. Per-call overhead from Python on a small kernel (lyons): the Python call
   minus the same kernel timed in a Rust loop (target <= 1 us); CasADi's
   Function call and a JAX jitted call beside it.
2. Batch throughput, sh_10 Jacobian over many points: dstar's batch path
   against jax.jit(jax.vmap(jax.jacfwd(f))) (target >= 2x) and CasADi's
   map(..., "thread") (target >= 1x); and dstar on 1 thread against all
   cores (dstar.set_num_threads), the multi-core speed-up, with the load
   average before it ran (other work on the machine lowers it).
3. Set-up, text to a callable Jacobian, on sh_20 and nbody_acc_20: dstar
   against CasADi with C code generation + gcc -O3 (target >= 10x) and JAX's
   first jitted call (target >= 100x). dstar's figure is the median of five
   fresh set-ups (the first printed beside it): one set-up takes about a
   tenth of a second, which a moment of other work on a shared machine can
   stretch by a quarter, while the peers' seconds average such moments out.

Peers missing from the environment are skipped (pip install casadi jax).
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

import dstar

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
sys.path.insert(0, str(REPO / "examples" / "python"))

from problem_format import build, statements  # noqa: E402

try:
    import casadi as ca

    from dstar2casadi import load as casadi_load
except ImportError:
    ca = None
try:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
except ImportError:
    jax = None


def per_call_ns(fn, number):
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number * 1e9


def jax_function(text):
    """The problem as a JAX function of one point (n,) -> (m,)."""
    inputs, _, _ = statements(text)
    namespace = {name: getattr(jnp, name) for name in
                 ["sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "log", "log2", "log10", "sqrt",
                  "cbrt", "sign", "floor", "ceil", "expm1", "log1p", "exp2", "hypot"]}
    namespace.update(asin=jnp.arcsin, acos=jnp.arccos, atan=jnp.arctan, asinh=jnp.arcsinh,
                     acosh=jnp.arccosh, atanh=jnp.arctanh, abs=jnp.abs, pow=jnp.power,
                     atan2=jnp.arctan2, min=jnp.minimum, max=jnp.maximum, erf=jax.scipy.special.erf,
                     _ifelse=jnp.where, pi=np.pi, e=np.e)

    def f(x):
        outputs = build(text, namespace, [x[k] for k in range(len(inputs))])
        return jnp.stack([jnp.asarray(o, dtype=jnp.float64) for o in outputs])

    return f


def overhead():
    text = (CORPUS / "lyons.dstar").read_text()
    f = dstar.compile(text)
    x = np.array([0.7, 1.3])
    print("1. per-call overhead, lyons (2 inputs, 2 outputs)")
    for kind, call in [("values", lambda: f(x)), ("jacobian", lambda: f.jacobian_nonzeros(x))]:
        call()
        native = f.native_call_ns(kind, list(x), 1_000_000)
        python = per_call_ns(call, 200_000)
        print(f"   dstar {kind:<9} Python {python:7.0f} ns  native {native:6.1f} ns  "
              f"overhead {python - native:6.0f} ns  (target <= 1000 ns)")
    dense = per_call_ns(lambda: f.jacobian(x), 200_000)
    print(f"   dstar jacobian (dense ndarray) from Python {dense:7.0f} ns")
    if ca is not None:
        sx, outputs, _ = casadi_load(text)
        jf = ca.Function("jf", [sx], [ca.jacobian(ca.vertcat(*outputs), sx)])
        jf(x)
        print(f"   CasADi Function call (jacobian) {per_call_ns(lambda: jf(x), 50_000):7.0f} ns")
    if jax is not None:
        jj = jax.jit(jax.jacfwd(jax_function(text)))
        jj(x).block_until_ready()
        print(f"   JAX jitted call (jacfwd) {per_call_ns(lambda: jj(x).block_until_ready(), 20_000):7.0f} ns")


def batch(points):
    text = (CORPUS / "sh_10.dstar").read_text()
    f = dstar.compile(text)
    rng = np.random.default_rng(0)
    chunk = min(points, 100_000)  # dense (B, 100, 3) Jacobians: 240 MB per chunk
    xs = rng.uniform(-1, 1, size=(chunk, f.n_in))
    rounds = max(points // chunk, 1)
    print(f"2. batch throughput, sh_10 Jacobian (100 x 3), {rounds * chunk:,} points in chunks of {chunk:,}")

    def rate(call):
        call()  # warm-up / compile
        start = time.perf_counter()
        for _ in range(rounds):
            call()
        return rounds * chunk / (time.perf_counter() - start)

    ours = rate(lambda: f.jacobian(xs))
    nnz = rate(lambda: f.jacobian_nonzeros(xs))
    print(f"   dstar dense   {ours / 1e6:7.2f} M points/s")
    print(f"   dstar nonzeros {nnz / 1e6:6.2f} M points/s")
    cores = dstar.num_threads()
    for path, call in [("dense", lambda: f.jacobian(xs)), ("nonzeros", lambda: f.jacobian_nonzeros(xs))]:
        load = os.getloadavg()[0]
        dstar.set_num_threads(1)
        single = rate(call)
        dstar.set_num_threads(None)
        multi = rate(call)
        print(f"   dstar {path:<8} 1 thread {single / 1e6:5.2f} M points/s, {cores} threads "
              f"{multi / 1e6:5.2f} M points/s: speed-up {multi / single:4.2f} (load average {load:.2f} before)")
    if jax is not None:
        jv = jax.jit(jax.vmap(jax.jacfwd(jax_function(text))))
        xj = jnp.asarray(xs)
        theirs = rate(lambda: jv(xj).block_until_ready())
        print(f"   JAX jit(vmap(jacfwd)) {theirs / 1e6:7.2f} M points/s   dstar / JAX = {ours / theirs:5.2f} "
              "(target >= 2)")
    if ca is not None:
        sx, outputs, _ = casadi_load(text)
        jf = ca.Function("jf", [sx], [ca.jacobian(ca.vertcat(*outputs), sx)])
        mapped = jf.map(chunk, "thread", os.cpu_count() or 2)
        xt = xs.T.copy()
        theirs = rate(lambda: mapped(xt))
        print(f"   CasADi map(thread)   {theirs / 1e6:7.2f} M points/s   dstar / CasADi = {ours / theirs:5.2f} "
              "(target >= 1)")


def dstar_setup(text):
    """Seconds from text to the first Jacobian: a fresh Function, compiled by
    its first call (nothing is cached across Functions); and the point."""
    start = time.perf_counter()
    f = dstar.compile(text)
    x0 = np.full(f.n_in, 0.3)
    f.jacobian(x0)
    return time.perf_counter() - start, x0


def setup(rounds=5):
    print(f"3. set-up: text to a callable Jacobian (first call included); dstar: the median of {rounds} "
          "fresh set-ups, each a new Function (the first one, in brackets, is the process's first "
          "compile of that problem); the peers once (JAX's takes seconds)")
    for name in ["sh_20", "nbody_acc_20"]:
        text = (CORPUS / f"{name}.dstar").read_text()
        times = []
        for _ in range(rounds):
            seconds, x0 = dstar_setup(text)
            times.append(seconds)
        ours = statistics.median(times)
        line = f"   {name:<13} dstar {ours * 1e3:7.1f} ms ({times[0] * 1e3:.1f})"
        if ca is not None:
            start = time.perf_counter()
            sx, outputs, _ = casadi_load(text)
            jf = ca.Function("jf", [sx], [ca.jacobian(ca.vertcat(*outputs), sx)])
            with tempfile.TemporaryDirectory() as tmp:
                c_file = jf.generate("jf.c", {"with_header": False})
                os.replace(c_file, os.path.join(tmp, "jf.c"))
                so = os.path.join(tmp, "jf.so")
                subprocess.run(["gcc", "-O3", "-shared", "-fPIC", os.path.join(tmp, "jf.c"), "-o", so], check=True)
                compiled = ca.external("jf", so)
                compiled(x0)
            theirs = time.perf_counter() - start
            line += f" | CasADi + C + gcc -O3 {theirs * 1e3:9.1f} ms ({theirs / ours:6.1f}x, target >= 10)"
        if jax is not None:
            start = time.perf_counter()
            jj = jax.jit(jax.jacfwd(jax_function(text)))
            jj(jnp.asarray(x0)).block_until_ready()
            theirs = time.perf_counter() - start
            line += f" | JAX first jit call {theirs * 1e3:8.1f} ms ({theirs / ours:6.1f}x, target >= 100)"
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--only", choices=["overhead", "batch", "setup"])
    args = parser.parse_args()
    print(f"dstar, {os.cpu_count()} cores; casadi {'yes' if ca else 'no'}, jax {'yes' if jax else 'no'}")
    if args.only in (None, "overhead"):
        overhead()
    if args.only in (None, "batch"):
        batch(args.points)
    if args.only in (None, "setup"):
        setup()


if __name__ == "__main__":
    main()
