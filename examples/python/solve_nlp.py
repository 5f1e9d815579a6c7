"""Solve the NLPs of tests/nlp with IPOPT (cyipopt) and SciPy's trust-constr,
fed by dstar's gradient, sparse constraint Jacobian and sparse Lagrangian
Hessian, beside CasADi's nlpsol("ipopt") on the same problem.

    python examples/python/solve_nlp.py [cartpole_20 hs071 ...]

Output 1 of each problem file is the objective, the others constraints;
bounds are below (all equalities but hs071's). Prints, per problem and solver:
the optimum, its distance to CasADi's, iterations, time spent in derivative
evaluation per iteration, and set-up time (text to a solver ready to run).
"""

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

# Bounds the problem files do not carry: (x lower, x upper, g lower, g upper),
# each a number (for every entry) or a list. `None` means all equalities g = 0.
BOUNDS = {
    "hs071": (1.0, 5.0, [25.0, 40.0], [INF, 40.0]),
}
TRUST_CONSTR_MAX_VARIABLES = 200  # trust-constr's dense linear algebra is slow beyond


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
    lbx, ubx, lbg, ubg = BOUNDS.get(name, (-INF, INF, 0.0, 0.0))
    full = lambda v, k: np.broadcast_to(np.asarray(v, dtype=float), (k,)).copy()  # noqa: E731
    return full(lbx, n), full(ubx, n), full(lbg, m), full(ubg, m)


class DstarNLP:
    """The callbacks IPOPT asks for, from one dstar Function whose output 0
    is the objective: values and Jacobian nonzeros once per point."""

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
        self._x, self._values, self._nonzeros = None, None, None
        self.timed = deriv_timer
        self.gradient = deriv_timer(self._gradient)
        self.jacobian = deriv_timer(self._jacobian)
        self.hessian = deriv_timer(self._hessian)
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


def solve_dstar_trust_constr(name, text, x0):
    start = time.perf_counter()
    f = dstar.compile(text)
    n, m = f.n_in, f.n_out - 1
    lbx, ubx, lbg, ubg = bounds(name, n, m)
    timer = Counted()
    nlp = DstarNLP(f, timer)
    f.jacobian_pattern, f.hessian_pattern
    zeros_m = np.zeros(m)

    def full(lower):  # the symmetric matrix from its lower triangle
        return (lower + lower.T - scipy.sparse.diags(lower.diagonal())).tocsr()

    objective_hess = timer(lambda x: full(f.hessian(x, weights=np.concatenate(([1.0], zeros_m)), sparse=True)))
    constraint_hess = timer(lambda x, v: full(f.hessian(x, weights=np.concatenate(([0.0], v)), sparse=True)))
    jac = timer(lambda x: scipy.sparse.csr_array((nlp._jacobian(x), (nlp.jac_rows, nlp.jac_cols)), shape=(m, n)))
    constraint = scipy.optimize.NonlinearConstraint(nlp.constraints, lbg, ubg, jac=jac, hess=constraint_hess)
    box = scipy.optimize.Bounds(lbx, ubx) if np.isfinite(lbx).any() or np.isfinite(ubx).any() else None
    setup = time.perf_counter() - start
    res = scipy.optimize.minimize(nlp.objective, x0, jac=nlp.gradient, hess=objective_hess, method="trust-constr",
                                  constraints=[constraint], bounds=box,
                                  options={"gtol": 1e-10, "xtol": 1e-14, "barrier_tol": 1e-12, "maxiter": 3000})
    return dict(solver="dstar + trust-constr", x=res.x, f=res.fun, status=res.message, iterations=res.nit,
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
        if solve is solve_dstar_trust_constr and f.n_in > TRUST_CONSTR_MAX_VARIABLES:
            continue
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
    reference = next((r for r in results if r["solver"].startswith("CasADi")), results[0])
    print(f"\n{name}")
    print(f"  {'solver':<22} {'f*':>16} {'|x - x_casadi|':>15} {'iters':>6} {'deriv/iter':>12} {'setup':>10}  status")
    for r in results:
        dist = np.max(np.abs(r["x"] - reference["x"]))
        per_iter = r["deriv"] / max(r["iterations"], 1)
        print(f"  {r['solver']:<22} {r['f']:>16.10g} {dist:>15.2e} {r['iterations']:>6} "
              f"{per_iter * 1e6:>9.1f} us {r['setup'] * 1e3:>7.1f} ms  {str(r['status'])[:48]}")
    return reference


def main(names):
    for name in names or ["hs071", "cartpole_20", "elec_20", "hanging_chain_100", "rosenbrock_chain_1000"]:
        report(name, run(name))


if __name__ == "__main__":
    main(sys.argv[1:])
