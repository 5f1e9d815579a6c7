"""Issue 27's Python targets, measured in one run; prints them, asserts
nothing.

    python examples/python/batch_and_builder.py [--points 100000] [--baseline PYTHON]

1. Batches: ``f.jacobian(xs)`` (dense, from Python) against the same
   kernel's ``Compiled::eval_batch`` timed in a Rust loop
   (``f.native_batch_ns``) on the same threads, on every problem of
   ``tests/corpus`` at ``--points`` points (fewer where the dense result
   would pass 1 GB; the count is printed): target within 1.1x. The
   nonzeros (``f.jacobian_nonzeros``, no scatter) beside it. Each figure is
   the fastest of three. With ``--baseline PYTHON``, an interpreter whose
   ``dstar`` is the package before issue 27 (its own per-point batch loop),
   the same ``f.jacobian(xs)`` there and the speed-up.
2. Memory: building and dropping 10,000 functions of 1,000 nodes each
   (``dstar.vector``, operators, ``dstar.Function``): resident memory after
   the first 100 and after all of them (target within 1.2x).
3. Threads: two large functions built on two threads at once against one
   after the other (target: the wall time well under the sum): the
   operators from Python, ``dstar.Function`` (the copy into the program's
   DAG, without the GIL) and both with the first Jacobian compile.

Every figure shares the machine with whatever else runs on it; the load
average is printed first.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPUS = sorted((REPO / "tests" / "corpus").glob("*.dstar"))
RESULT_BYTES = 1 << 30


def points_for(path, n, m, points, seed=27):
    """`points` of `n` inputs (at most what keeps a dense `m x n` Jacobian
    per point within 1 GB) around the problem's reference point."""
    ref = json.loads(path.with_suffix(".ref.json").read_text())
    count = int(min(points, max(1000, RESULT_BYTES // (8 * n * m))))
    rng = np.random.default_rng(seed)
    return np.array(ref["point"]) + 0.01 * rng.standard_normal((count, n))


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def python_batch_seconds(path, points):
    """The fastest of three f.jacobian(xs) from Python (any dstar version)."""
    import dstar

    f = dstar.compile(path.read_text())
    xs = points_for(path, f.n_in, f.n_out, points)
    f.jacobian(xs[:2])  # compiled, and the two-point variant too
    return best(lambda: f.jacobian(xs)), len(xs)


def batches(points, baseline):
    import dstar

    print(f"1. Batch Jacobians on {dstar.num_threads()} threads: Python f.jacobian(xs) (dense) and "
          "f.jacobian_nonzeros(xs)\n   against Compiled::eval_batch in a Rust loop, into one buffer (warm) "
          "or a new one per call (fresh); target <= 1.1x")
    header = (f"{'problem':<15}{'B':>7}{'warm ms':>9}{'fresh ms':>9}{'dense ms':>9}{'/warm':>7}{'/fresh':>7}"
              f"{'nnz ms':>9}{'/warm':>7}{'/fresh':>7}")
    if baseline:
        header += f"{'before ms':>10}{'speed-up':>9}"
    print(header)
    ratios = {"dense": [], "nonzeros": []}
    for path in CORPUS:
        f = dstar.compile(path.read_text())
        xs = points_for(path, f.n_in, f.n_out, points)
        f.jacobian(xs[:2])
        warm = min(f.native_batch_ns("jacobian", xs, 1) for _ in range(3)) / 1e9
        fresh = min(f.native_batch_ns("jacobian", xs, 1, fresh=True) for _ in range(3)) / 1e9
        dense = best(lambda: f.jacobian(xs))
        nonzeros = best(lambda: f.jacobian_nonzeros(xs))
        ratios["dense"].append((dense / warm, dense / fresh))
        ratios["nonzeros"].append((nonzeros / warm, nonzeros / fresh))
        line = (f"{path.stem:<15}{len(xs):>7}{warm * 1e3:>9.2f}{fresh * 1e3:>9.2f}{dense * 1e3:>9.2f}"
                f"{dense / warm:>7.2f}{dense / fresh:>7.2f}{nonzeros * 1e3:>9.2f}{nonzeros / warm:>7.2f}"
                f"{nonzeros / fresh:>7.2f}")
        if baseline:
            code = (f"import sys, pathlib; sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r}); "
                    f"import batch_and_builder as b; "
                    f"print(b.python_batch_seconds(pathlib.Path({str(path)!r}), {points})[0])")
            before = float(subprocess.run([baseline, "-c", code], capture_output=True, text=True, check=True,
                                          cwd="/").stdout)
            line += f"{before * 1e3:>10.2f}{before / dense:>8.2f}x"
        print(line, flush=True)
    for kind, pairs in ratios.items():
        warm, fresh = (np.array(r) for r in zip(*pairs))
        print(f"   {kind}: / warm geometric mean {np.exp(np.mean(np.log(warm))):.3f} (worst {warm.max():.2f}), "
              f"/ fresh geometric mean {np.exp(np.mean(np.log(fresh))):.3f} (worst {fresh.max():.2f})")


def rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def function_of_1000_nodes(k):
    """A function of 10 inputs and about 1,000 nodes, built from scratch."""
    import dstar

    xs = dstar.vector("x", 10)
    acc = xs[0]
    for i in range(330):
        acc = acc * xs[i % 10] + dstar.sin(acc + k)
    return dstar.Function(xs, acc)


def memory(count=10_000):
    sizes = []
    for k in range(count):
        f = function_of_1000_nodes(k)
        sizes.append(f.ops)
        del f
        if k + 1 == 100:
            first = rss_mb()
    last = rss_mb()
    return first, last, min(sizes), max(sizes)


def large_expression(n):
    """A chained Rosenbrock sum of `n` inputs (about 6n nodes), from symbols
    of its own."""
    import dstar

    xs = dstar.vector("x", n)
    acc = 0.0
    for i in range(n - 1):
        acc = acc + 100 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1 - xs[i]) ** 2
    return xs, acc


def threads(n):
    import dstar

    def operators(out, k):
        out[k] = large_expression(n)

    def function(out, k):
        xs, acc = out[k]
        out[k] = dstar.Function(xs, acc)

    def compiled(out, k):
        xs, acc = large_expression(n)
        f = dstar.Function(xs, acc)
        f.gradient(np.full(n, 0.5))
        out[k] = f

    def run(work, prepare=None, parallel=True):
        out = {k: prepare() if prepare else None for k in range(2)}
        start = time.perf_counter()
        if parallel:
            ts = [threading.Thread(target=work, args=(out, k)) for k in range(2)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        else:
            for k in range(2):
                work(out, k)
        return time.perf_counter() - start

    print(f"3. Two functions of {n} inputs built on two threads at once / one after the other")
    for name, work, prepare in [
        ("operators from Python (GIL-bound)", operators, None),
        ("dstar.Function (the copy, GIL released)", function, lambda: large_expression(n)),
        ("operators + Function + gradient compile", compiled, None),
    ]:
        sequential = min(run(work, prepare, parallel=False) for _ in range(3))
        parallel = min(run(work, prepare, parallel=True) for _ in range(3))
        print(f"   {name:<42} one after the other {sequential * 1e3:8.1f} ms, at once {parallel * 1e3:8.1f} ms, "
              f"ratio {parallel / sequential:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--baseline", help="a Python whose dstar is the package before issue 27")
    parser.add_argument("--memory-count", type=int, default=10_000)
    parser.add_argument("--thread-inputs", type=int, default=40_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    batches(args.points, args.baseline)
    first, last, low, high = memory(args.memory_count)
    print(f"2. {args.memory_count} functions of {low}-{high} operations built and dropped: resident "
          f"{first:.1f} MB after 100, {last:.1f} MB after all, {last / first:.3f}x (target <= 1.2x)")
    if args.baseline:
        code = (f"import sys; sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r}); "
                f"import batch_and_builder as b; print(*b.memory({args.memory_count}))")
        out = subprocess.run([args.baseline, "-c", code], capture_output=True, text=True, check=True, cwd="/")
        before_first, before_last = (float(v) for v in out.stdout.split()[:2])
        print(f"   before issue 27: {before_first:.1f} MB after 100, {before_last:.1f} MB after all, "
              f"{before_last / before_first:.3f}x")
    threads(args.thread_inputs)


if __name__ == "__main__":
    main()
