"""Issue 34, item 3: every solver's multipliers, ``lam_g`` and ``lam_x``, in
CasADi's signs (``grad f + J' lam_g + lam_x = 0``): the KKT residual of each
answer is small, and the multipliers are IPOPT's in sign and size, on the
shared NLPs each solver solves and on small problems with bounds that bind
from below and from above."""

import numpy as np
import pytest

import dstar
from test_nlp import IPOPT_OPTIONS, NAMES, problem, require_ipopt

SCIPY_OPTIONS = {
    "trust-constr": {"gtol": 1e-12, "xtol": 1e-14, "barrier_tol": 1e-12, "maxiter": 3000},
    "slsqp": {"ftol": 1e-11, "maxiter": 1000},
}
# The shared NLPs each SciPy solver solves to CasADi's optimum: trust-constr
# stalls on cartpole_20, SLSQP ends at another local optimum there, and
# rosenbrock_chain_1000 is too large for SLSQP's dense matrices.
SOLVES = {
    "trust-constr": [n for n in NAMES if n != "cartpole_20"],
    "slsqp": [n for n in NAMES if n not in ("cartpole_20", "rosenbrock_chain_1000")],
}
CASES = [(solver, name) for solver, names in SOLVES.items() for name in names]

# Small problems whose bounds bind from below and from above: (text, x0,
# bounds). The second's optimum is (2, -1, 0.5), lam_x = (2, -4, 0) and
# lam_g = 4/3.
BOUND = [
    ("in x, y\nout f = (x - 2)^2 + (y + 2)^2\nout g = x + y",
     [0.0, 0.0], {"lbx": [-5, -1], "ubx": [1, 5], "lbg": [-10], "ubg": [10]}),
    ("in x, y, z\nout f = (x - 3)^2 + (y + 3)^2 + (z - 1)^2\nout g = z^3",
     [0.5, 0.0, 0.0], {"lbx": [0, -1, -2], "ubx": [2, 1, 2], "lbg": [None], "ubg": [0.125]}),
]


def kkt_residual(nlp, sol):
    x = sol["x"]
    grad = nlp.gradient(x) + (nlp.jacobian(x).T @ sol["lam_g"] if nlp.m else 0.0)
    return np.max(np.abs(grad + sol["lam_x"]))


@pytest.fixture(scope="module")
def solved():
    """Solutions by (solver, name), each computed once for the module."""
    cache = {}

    def solve(solver, name):
        if (solver, name) not in cache:
            text, x0, bounds, _ = problem(name)
            options = IPOPT_OPTIONS if solver == "ipopt" else SCIPY_OPTIONS[solver]
            nlp = dstar.NLP(text)
            cache[solver, name] = nlp, nlp.solve(x0, **bounds, solver=solver, options=options)
        return cache[solver, name]

    return solve


def assert_like_ipopt(name, sol, ipopt, scale):
    """Multipliers within 1e-4 of IPOPT's relative to the largest one. elec's
    optimum is unique up to moving its points around, its multipliers up to
    their order."""
    order = np.sort if name.startswith("elec") else (lambda v: v)
    for key in ("lam_g", "lam_x"):
        got, want = order(sol[key]), order(ipopt[key])
        assert np.max(np.abs(got - want), initial=0.0) <= 1e-4 * scale, (key, got, want)


@pytest.mark.parametrize("solver, name", CASES)
def test_issue_34_multipliers_satisfy_kkt_and_match_ipopt(solver, name, solved):
    require_ipopt()
    nlp, sol = solved(solver, name)
    _, ipopt = solved("ipopt", name)
    assert sol["success"], sol["status"]
    scale = 1.0 + max(np.max(np.abs(ipopt["lam_g"]), initial=0.0), np.max(np.abs(ipopt["lam_x"])))
    assert kkt_residual(nlp, sol) <= 1e-6 * scale
    assert_like_ipopt(name, sol, ipopt, scale)


@pytest.mark.parametrize("case", range(len(BOUND)))
@pytest.mark.parametrize("solver", ["ipopt", *SOLVES])
def test_issue_34_bound_multipliers_from_below_and_above(solver, case):
    if solver == "ipopt":
        require_ipopt()
    text, x0, bounds = BOUND[case]
    nlp = dstar.NLP(text)
    options = {"tol": 1e-12} if solver == "ipopt" else SCIPY_OPTIONS[solver]
    sol = nlp.solve(x0, **bounds, solver=solver, options=options)
    assert sol["success"], sol["status"]
    assert kkt_residual(nlp, sol) <= 1e-7
    x, lbx, ubx = sol["x"], np.array(bounds["lbx"], float), np.array(bounds["ubx"], float)
    # (trust-constr's interior point ends 1e-5 inside its bounds.)
    lower, upper = np.isclose(x, lbx, atol=1e-4), np.isclose(x, ubx, atol=1e-4)
    assert lower.any() and upper.any(), x
    # A lower bound's multiplier is negative, an upper one's positive, an
    # inactive bound's zero (to the solver's tolerance).
    lam_x = sol["lam_x"]
    assert np.all(lam_x[lower] < -1e-3) and np.all(lam_x[upper] > 1e-3), lam_x
    assert np.all(np.abs(lam_x[~lower & ~upper]) < 1e-5), lam_x
