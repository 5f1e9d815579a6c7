"""The timing loop of the JAX peers (jax_gmm.py, jax_ba.py): answers each
`run KERNEL CALLS` line on stdin with the nanoseconds that CALLS calls of
KERNEL on the peer's arguments took, until `quit` or the end of input."""

import sys
import time

import jax


def serve(kernels, *args):
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        kernel, calls = kernels[words[1]], int(words[2])
        start = time.perf_counter_ns()
        for _ in range(calls):
            jax.block_until_ready(kernel(*args))
        print(time.perf_counter_ns() - start, flush=True)
