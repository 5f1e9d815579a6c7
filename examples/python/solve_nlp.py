"""Solve the NLPs of tests/nlp with IPOPT (cyipopt) and SciPy's trust-constr,
fed by dstar's gradient, sparse constraint Jacobian and sparse Lagrangian
Hessian, beside CasADi's nlpsol("ipopt") on the same problem.

    python examples/python/solve_nlp.py [cartpole_20 hs071 ...]

Output 1 of each problem file is the objective, the others constraints,
within the bounds of ``NAME.bounds.json``. Every solver starts from the
file's ``@point``. Prints, per problem and solver: the optimum, its distance
to CasADi's in f and in x, iterations, time spent in derivative evaluation
per iteration, and set-up time (text to a solver ready to run).

trust-constr is given a feasible start first (``feasible_start``): its SQP
has no feasibility restoration, and from cartpole_20's point (constraint
violation 3.6) its merit penalty grows without bound (1 -> 7e7 in 300
iterations) while the iterates drift to huge controls (|u| > 300) where the
constraint Jacobian is nearly singular (smallest singular value 7e-6): after
3000 iterations f = 1.7e6 with the constraints still violated by 0.9.
IPOPT restores feasibility by itself; trust-constr gets a least-squares
solve of the equality constraints (SciPy's least_squares, the same sparse
Jacobian), started from the same point.
"""

import json
import math
import pathlib
import sys
import time

import numpy as np
import scipy.optimize
import scipy.sparse

import dstar

HERE = pathlib.Path(__file__).resolve().parent
NLP = HERE.parents[1] / "tests" / "nlp"
INF = math.inf



def point_cloud_distance(x, y):
    """Distance between two sets of 3-D points that ignores rotations,
    reflections and the order of the points: max difference of their sorted
    pairwise distances (the optimum of elec is unique only up to these)."""
    from scipy.spatial.distance import pdist

    return np.max(np.abs(np.sort(pdist(x.reshape(-1, 3))) - np.sort(pdist(y.reshape(-1, 3)))))


# How far two optima are apart: max |x - y|, or a distance modulo the
# problem's symmetries (marked * in the table).
DISTANCE = {"elec_20": point_cloud_distance}


class Counted:
    """Accumulates the time spent in derivative callbacks."""

    def __init__(self):
        self.seconds = 0.0

    def __call__(self, f):
        def timed(*args):
            start = time.perf_counter()
            try:
                return f(*args)
            finally:
                self.seconds += time.perf_counter() - start

        return timed


def bounds(name, n, m):
    """(lbx, ubx, lbg, ubg) of tests/nlp/NAME.bounds.json (null: infinite)."""
    given = json.loads((NLP / f"{name}.bounds.json").read_text())
    full = lambda key, k, inf: np.array([inf if v is None else v for v in given[key]], dtype=float)  # noqa: E731
    lbx, ubx, lbg, ubg = full("lbx", n, -INF), full("ubx", n, INF), full("lbg", m, -INF), full("ubg", m, INF)
    assert (lbx.size, lbg.size) == (n, m), f"{name}.bounds.json: {lbx.size} x bounds, {lbg.size} g bounds"
    return lbx, ubx, lbg, ubg


class DstarNLP:
    """The callbacks IPOPT asks for (and the SciPy sparse matrices
    trust-constr asks for), from one dstar Function whose output 0 is the
    objective: values and Jacobian nonzeros once per point."""

    def __init__(self, f, deriv_timer):
        self.f = f
        self.n, self.m = f.n_in, f.n_out - 1
        indptr, indices = f.jacobian_pattern
        self.row0 = slice(indptr[0], indptr[1])
        self.rest = slice(indptr[1], indptr[-1])
        rows = np.repeat(np.arange(f.n_out), np.diff(indptr))
        self.grad_cols = indices[self.row0]
        self.jac_rows, self.jac_cols = rows[self.rest] - 1, indices[self.rest]
        hptr, hidx = f.hessian_pattern
        self.hess_rows, self.hess_cols = np.repeat(np.arange(self.n), np.diff(hptr)), hidx
        # SciPy's CSR of the constraint rows and of the full symmetric Hessian,
        # whose nonzeros are the lower triangle's gathered through `mirror`.
        self.jac_csr = (indices[self.rest], indptr[1:] - indptr[1])
        lower = np.arange(1, hidx.size + 1, dtype=float)
        full = scipy.sparse.csr_array((lower, hidx, hptr), shape=(self.n, self.n))
        full = (full + scipy.sparse.triu(full.T, k=1)).tocsr()
        full.sort_indices()
        self.mirror = full.data.astype(np.int64) - 1
        self.hess_csr = (full.indices, full.indptr)
        self._x, self._values, self._nonzeros = None, None, None
        self.timed = deriv_timer
        self.gradient = deriv_timer(self._gradient)
        self.jacobian = deriv_timer(self._jacobian)
        self.hessian = deriv_timer(self._hessian)
        self.sparse_jacobian = deriv_timer(self._sparse_jacobian)
        self.lagrangian_hessian = deriv_timer(self._lagrangian_hessian)
        self.iterations = 0

    def _at(self, x):
        if self._x is None or not np.array_equal(self._x, x):
            self._x = np.array(x, dtype=float)
            self._values, self._nonzeros = None, None
        return self._x

    def values(self, x):
        self._at(x)
        if self._values is None:
            self._values = self.f(self._x)
        return self._values

    def nonzeros(self, x):
        self._at(x)
        if self._nonzeros is None:
            self._nonzeros = self.f.jacobian_nonzeros(self._x)
        return self._nonzeros

    # cyipopt's interface
    def objective(self, x):
        return self.values(x)[0]

    def constraints(self, x):
        return self.values(x)[1:]

    def _gradient(self, x):
        g = np.zeros(self.n)
        g[self.grad_cols] = self.nonzeros(x)[self.row0]
        return g

    def jacobianstructure(self):
        return self.jac_rows, self.jac_cols

    def _jacobian(self, x):
        return self.nonzeros(x)[self.rest]

    def hessianstructure(self):
        return self.hess_rows, self.hess_cols

    def _hessian(self, x, lagrange, obj_factor):
        return self.f.hessian_nonzeros(x, np.concatenate(([obj_factor], lagrange)))

    def intermediate(self, alg_mod, iter_count, *args):
        self.iterations = iter_count

    # SciPy's
    def _sparse_jacobian(self, x):
        """The constraints' Jacobian, a csr_array (m, n)."""
        return scipy.sparse.csr_array((self._jacobian(x), *self.jac_csr), shape=(self.m, self.n))

    def _lagrangian_hessian(self, x, v):
        """The Hessian of f + v . g, a symmetric csr_array (n, n)."""
        lower = self.f.hessian_nonzeros(x, np.concatenate(([1.0], v)))
        return scipy.sparse.csr_array((lower[self.mirror], *self.hess_csr), shape=(self.n, self.n))


IPOPT_OPTIONS = {"tol": 1e-10, "print_level": 0, "max_iter": 3000}


def solve_dstar_ipopt(name, text, x0):
    import cyipopt

    start = time.perf_counter()
    f = dstar.compile(text)
    f.jacobian_pattern, f.hessian_pattern  # compile the kernels (set-up, not solve)
    f(x0)
    timer = Counted()
    nlp = DstarNLP(f, timer)
    lbx, ubx, lbg, ubg = bounds(name, nlp.n, nlp.m)
    problem = cyipopt.Problem(n=nlp.n, m=nlp.m, problem_obj=nlp, lb=lbx, ub=ubx, cl=lbg, cu=ubg)
    for key, value in IPOPT_OPTIONS.items():
        problem.add_option(key, value)
    problem.add_option("sb", "yes")
    setup = time.perf_counter() - start
    x, info = problem.solve(x0)
    return dict(solver="dstar + cyipopt", x=x, f=info["obj_val"], status=info["status_msg"].decode()
                if isinstance(info["status_msg"], bytes) else info["status_msg"],
                iterations=nlp.iterations, deriv=timer.seconds, setup=setup)


def feasible_start(nlp, x0, lbx, ubx, lbg, ubg):
    """A point near `x0` that satisfies the equality constraints (in the
    least-squares sense, within the bounds) and the Jacobian evaluations it
    took: trust-constr's SQP has no restoration phase of its own (see the
    module's doc)."""
    equal = lbg == ubg
    if not equal.any():
        return x0, 0
    fit = scipy.optimize.least_squares(
        lambda x: nlp.constraints(x)[equal] - lbg[equal], np.clip(x0, lbx, ubx),
        jac=lambda x: nlp.sparse_jacobian(x)[equal], bounds=(lbx, ubx), method="trf",
        xtol=1e-15, ftol=1e-15, gtol=1e-15)
    return fit.x, fit.njev


# gtol: trust-constr's interior point stops on its subproblem's gradient alone,
# whatever the barrier parameter mu; at 1e-10 it stopped hs071 at mu = 6e-6,
# 9e-6 away from the optimum. At 1e-12 it stops at mu ~ 5e-8, 1e-7 away.
TRUST_CONSTR_OPTIONS = {"gtol": 1e-12, "xtol": 1e-14, "barrier_tol": 1e-12, "maxiter": 3000}


def solve_dstar_trust_constr(name, text, x0):
    start = time.perf_counter()
    f = dstar.compile(text)
    f.jacobian_pattern, f.hessian_pattern  # compile the kernels (set-up, not solve)
    f(x0)
    timer = Counted()
    nlp = DstarNLP(f, timer)
    n, m = nlp.n, nlp.m
    lbx, ubx, lbg, ubg = bounds(name, n, m)
    # The constraint's `hess(x, v)` returns the whole Lagrangian's Hessian
    # (one dstar call, objective weight 1): trust-constr only ever adds the
    # objective's Hessian to it, so the objective's is zero.
    constraint = scipy.optimize.NonlinearConstraint(nlp.constraints, lbg, ubg, jac=nlp.sparse_jacobian,
                                                    hess=nlp.lagrangian_hessian)
    zero = scipy.sparse.csr_array((n, n))
    box = scipy.optimize.Bounds(lbx, ubx) if np.isfinite(lbx).any() or np.isfinite(ubx).any() else None
    setup = time.perf_counter() - start
    x_start, restoration = feasible_start(nlp, x0, lbx, ubx, lbg, ubg)
    res = scipy.optimize.minimize(nlp.objective, x_start, jac=nlp.gradient, hess=lambda x: zero,
                                  method="trust-constr", constraints=[constraint], bounds=box,
                                  options=TRUST_CONSTR_OPTIONS)
    return dict(solver="dstar + trust-constr", x=res.x, f=res.fun, status=res.message,
                iterations=res.nit + restoration, iteration_text=f"{res.nit}+{restoration}",
                deriv=timer.seconds, setup=setup)


def solve_casadi(name, text, x0):
    import casadi as ca

    from dstar2casadi import load

    start = time.perf_counter()
    x, outputs, _ = load(text)
    n, m = x.shape[0], len(outputs) - 1
    nlp = {"x": x, "f": outputs[0], "g": ca.vertcat(*outputs[1:])}
    opts = {"print_time": 0, **{f"ipopt.{k}": v for k, v in IPOPT_OPTIONS.items()}, "ipopt.sb": "yes"}
    solver = ca.nlpsol("solver", "ipopt", nlp, opts)
    setup = time.perf_counter() - start
    lbx, ubx, lbg, ubg = bounds(name, n, m)
    sol = solver(x0=x0, lbx=lbx, ubx=ubx, lbg=lbg, ubg=ubg)
    stats = solver.stats()
    deriv = sum(stats.get(k, 0.0) for k in ("t_wall_nlp_grad_f", "t_wall_nlp_jac_g", "t_wall_nlp_hess_l"))
    return dict(solver="CasADi nlpsol(ipopt)", x=np.array(sol["x"]).ravel(), f=float(sol["f"]),
                status=stats["return_status"], iterations=stats["iter_count"], deriv=deriv, setup=setup)


SOLVERS = [solve_casadi, solve_dstar_ipopt, solve_dstar_trust_constr]


def run(name):
    text = (NLP / f"{name}.dstar").read_text()
    f = dstar.compile(text)
    x0 = _point(text, f.n_in)
    results = []
    for solve in SOLVERS:
        try:
            results.append(solve(name, text, x0))
        except ImportError as e:
            print(f"  ({solve.__name__} skipped: {e})")
    return results


def _point(text, n):
    for line in text.splitlines():
        if line.startswith("# @point"):
            return np.array(line.split()[2:], dtype=float)
    return np.zeros(n)


def report(name, results):
    reference = next((r for r in results if r["solver"].startswith("CasADi")), None)
    distance = DISTANCE.get(name, lambda x, y: np.max(np.abs(x - y)))
    mark = "*" if name in DISTANCE else " "
    print(f"\n{name}")
    if reference is None:
        print("  CasADi is missing (pip install casadi): the distances to its optimum are not computed")
        nan = {"f": np.nan, "x": np.full(results[0]["x"].size, np.nan)}
        reference, distance = nan, lambda x, y: np.nan
    print(f"  {'solver':<22} {'f*':>16} {'|f - f_casadi|':>14} {'|x - x_casadi|':>15} {'iters':>7} "
          f"{'deriv/iter':>12} {'setup':>10}  status")
    for r in results:
        r["df"] = abs(r["f"] - reference["f"])
        r["dx"] = distance(r["x"], reference["x"])
        per_iter = r["deriv"] / max(r["iterations"], 1)
        iterations = r.get("iteration_text", str(r["iterations"]))
        print(f"  {r['solver']:<22} {r['f']:>16.10g} {r['df']:>14.2e} {r['dx']:>14.2e}{mark} {iterations:>7} "
              f"{per_iter * 1e6:>9.1f} us {r['setup'] * 1e3:>7.1f} ms  {str(r['status'])[:48]}")
    return reference


def main(names):
    for name in names or ["hs071", "cartpole_20", "elec_20", "hanging_chain_100", "rosenbrock_chain_1000"]:
        report(name, run(name))
    print("\niters: trust-constr's as SQP+restoration (Jacobian evaluations of feasible_start);"
          "\n*: modulo rotations, reflections and relabelling of the points (point_cloud_distance)")


if __name__ == "__main__":
    main(sys.argv[1:])
