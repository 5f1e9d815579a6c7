"""dstar.NLP: every NLP of tests/nlp solved by IPOPT (cyipopt) to CasADi's
optimum (tests/nlp/*.optimum.json, written by
examples/python/nlp_vs_casadi.py --write-optima), SciPy's trust-constr and
SLSQP on some, the symmetric sparse Hessian, and the errors.

Without cyipopt the IPOPT tests skip, saying why; with DSTAR_REQUIRE_IPOPT=1
(set by .ci/run) they fail instead."""

import json
import os

import numpy as np
import pytest
import scipy.optimize

import dstar
from conftest import NLP

NAMES = [p.stem for p in NLP]
IPOPT_OPTIONS = {"tol": 1e-10, "max_iter": 3000}
INSTALL = "apt-get install coinor-libipopt-dev pkg-config liblapack-dev libblas-dev; pip install cyipopt"


def require_ipopt():
    try:
        import cyipopt  # noqa: F401
    except ImportError as e:
        if os.environ.get("DSTAR_REQUIRE_IPOPT"):
            pytest.fail(f"DSTAR_REQUIRE_IPOPT is set but cyipopt does not import ({e}); install: {INSTALL}")
        pytest.skip(f"cyipopt is not installed ({e}); IPOPT support: {INSTALL}")


def problem(name):
    """(text, x0, bounds with None for infinite, CasADi's optimum)."""
    path = NLP[NAMES.index(name)]
    text = path.read_text()
    bounds = json.loads(path.with_suffix(".bounds.json").read_text())
    optimum = json.loads(path.with_suffix(".optimum.json").read_text())
    x0 = next(np.array(line.split()[2:], dtype=float) for line in text.splitlines() if line.startswith("# @point"))
    return text, x0, {k: bounds[k] for k in ("lbx", "ubx", "lbg", "ubg")}, optimum


def point_cloud_distance(x, y):
    """elec's optimum is unique up to rotations, reflections and relabelling:
    compare sorted pairwise distances."""
    from scipy.spatial.distance import pdist

    return np.max(np.abs(np.sort(pdist(x.reshape(-1, 3))) - np.sort(pdist(y.reshape(-1, 3)))))


def distance(name, x, y):
    return point_cloud_distance(x, y) if name.startswith("elec") else np.max(np.abs(x - y))


def assert_optimum(name, sol, optimum, x_tol=1e-6):
    assert sol["success"], sol["status"]
    assert abs(sol["f"] - optimum["f"]) <= 1e-6 * max(1.0, abs(optimum["f"])), (sol["f"], optimum["f"])
    assert distance(name, sol["x"], np.array(optimum["x"])) < x_tol


@pytest.fixture(scope="module")
def nlps():
    """One NLP per problem, compiled once for the module."""
    return {}


def nlp_of(nlps, name, text):
    if name not in nlps:
        nlps[name] = dstar.NLP(text)
    return nlps[name]


@pytest.mark.parametrize("name", NAMES)
def test_ipopt_reaches_casadis_optimum(name, nlps):
    require_ipopt()
    text, x0, bounds, optimum = problem(name)
    nlp = nlp_of(nlps, name, text)
    sol = nlp.solve(x0, **bounds, options=IPOPT_OPTIONS)
    assert sol["status"] == optimum["status"] == "Solve_Succeeded"
    assert_optimum(name, sol, optimum)
    import cyipopt

    # With the same IPOPT, iteration counts agree within +-10% or +-2. Debian's
    # IPOPT 3.11.9 (cyipopt) and CasADi's 3.14.19 follow the same path on
    # cartpole_20 for 13 iterations, then part at a point where inf_pr is 1e15:
    # dstar 35 iterations, CasADi 28, CasADi's derivatives in cyipopt 32
    # (examples/python/nlp_vs_casadi.py). With another version: a factor 1.5.
    same = ".".join(map(str, cyipopt.IPOPT_VERSION)) == optimum["ipopt"]
    slack = max(2, 0.1 * optimum["iterations"]) if same else 0.5 * optimum["iterations"]
    assert abs(sol["iterations"] - optimum["iterations"]) <= slack
    assert sol["g"].shape == (nlp.m,) and sol["lam_g"].shape == (nlp.m,) and sol["lam_x"].shape == (nlp.n,)
    assert 0 < sol["t_derivatives"] <= sol["t_callbacks"] and sol["t_solver"] > 0
    # CasADi's signs: grad f + J' lam_g + lam_x = 0.
    kkt = nlp.gradient(sol["x"]) + nlp.jacobian(sol["x"]).T @ sol["lam_g"] + sol["lam_x"]
    assert np.max(np.abs(kkt)) < 1e-6 * (1 + np.max(np.abs(sol["lam_g"]), initial=0))


def test_ipopt_multipliers_have_casadis_signs(nlps):
    require_ipopt()
    text, x0, bounds, optimum = problem("hs071")
    sol = nlp_of(nlps, "hs071", text).solve(x0, **bounds, options=IPOPT_OPTIONS)
    assert np.allclose(sol["lam_g"], optimum["lam_g"], atol=1e-7)
    assert sol["lam_x"][0] < 0  # x1 at its lower bound 1


def test_ipopt_warm_start_from_the_solution(nlps):
    require_ipopt()
    text, x0, bounds, optimum = problem("cartpole_20")
    nlp = nlp_of(nlps, "cartpole_20", text)
    cold = nlp.solve(x0, **bounds, options=IPOPT_OPTIONS)
    warm_options = {**IPOPT_OPTIONS, "warm_start_init_point": "yes", "mu_init": 1e-9}
    warm = nlp.solve(cold["x"], **bounds, lam_g0=cold["lam_g"], lam_x0=cold["lam_x"], options=warm_options)
    assert warm["success"] and warm["iterations"] <= 3 < cold["iterations"]
    assert_optimum("cartpole_20", warm, optimum)


@pytest.mark.parametrize("solver", ["trust-constr", "slsqp"])
def test_scipy_on_hs071(solver, nlps):
    text, x0, bounds, optimum = problem("hs071")
    options = {"gtol": 1e-12, "xtol": 1e-14, "barrier_tol": 1e-12} if solver == "trust-constr" else {"ftol": 1e-10}
    sol = nlp_of(nlps, "hs071", text).solve(x0, **bounds, solver=solver, options=options)
    assert_optimum("hs071", sol, optimum, x_tol=1e-5)
    assert np.allclose(sol["lam_g"], optimum["lam_g"], atol=1e-4)
    assert sol["t_derivatives"] > 0 and sol["iterations"] > 0


@pytest.mark.parametrize("name", ["hanging_chain_100", "rosenbrock_chain_1000"])
def test_trust_constr_with_the_symmetric_hessian(name, nlps):
    text, x0, bounds, optimum = problem(name)
    options = {"gtol": 1e-12, "xtol": 1e-14, "maxiter": 3000}
    sol = nlp_of(nlps, name, text).solve(x0, **bounds, solver="trust-constr", options=options)
    assert_optimum(name, sol, optimum, x_tol=1e-4)


def test_slsqp_on_elec(nlps):
    text, x0, bounds, optimum = problem("elec_20")
    sol = nlp_of(nlps, "elec_20", text).solve(x0, **bounds, solver="slsqp", options={"ftol": 1e-12, "maxiter": 1000})
    assert_optimum("elec_20", sol, optimum, x_tol=1e-4)


@pytest.mark.parametrize("name", NAMES)
def test_symmetric_sparse_hessian_is_the_dense_one(name, rng):
    text, x0, _, _ = problem(name)
    f = dstar.compile(text)
    w = rng.normal(size=f.n_out)
    full = f.hessian(x0, w, sparse=True, symmetric=True)
    assert full.has_sorted_indices and full.nnz == 2 * f.hessian_pattern[1].size - np.count_nonzero(
        np.repeat(np.arange(f.n_in), np.diff(f.hessian_pattern[0])) == f.hessian_pattern[1])
    assert np.array_equal(full.toarray(), f.hessian(x0, w))
    batch = f.hessian(np.stack([x0, x0 + 0.1]), np.stack([w, w]), sparse=True, symmetric=True)
    assert np.array_equal(batch[1].toarray(), f.hessian(x0 + 0.1, w))


def test_scipy_minimize_with_gradient_and_symmetric_hessian():
    f = dstar.compile("in x, y\nout (1 - x)^2 + 100*(y - x^2)^2")
    res = scipy.optimize.minimize(
        lambda x: f(x)[0], [-1.2, 1.0], jac=f.gradient, method="trust-constr",
        hess=lambda x: f.hessian(x, sparse=True, symmetric=True), options={"gtol": 1e-10})
    assert res.success and np.allclose(res.x, [1.0, 1.0], atol=1e-6) and res.nit < 100


def test_nlp_from_the_builder_with_parameters():
    x, y = dstar.symbols("x y")
    a, r = dstar.symbols("a r")
    nlp = dstar.NLP(x=[x, y], f=(a - x) ** 2 + 100 * (y - x**2) ** 2, g=[x**2 + y**2], p=[a, r])
    assert (nlp.n, nlp.m, nlp.n_param) == (2, 1, 2)
    for solver, options in [("slsqp", {"ftol": 1e-12}), ("trust-constr", {"gtol": 1e-12, "xtol": 1e-14, "barrier_tol": 1e-12})]:
        sol = nlp.solve([0.0, 0.0], ubg=[2.0], p=[1.0, 0.0], solver=solver, options=options)
        assert sol["success"] and np.allclose(sol["x"], [1.0, 1.0], atol=1e-4), sol
        # The circle x^2 + y^2 <= 1 binds: the optimum of Rosenbrock on the unit disc.
        sol = nlp.solve([0.0, 0.0], ubg=1.0, p=[1.0, 0.0], solver=solver, options=options)
        assert np.allclose(sol["x"], [0.7864, 0.6177], atol=1e-3) and sol["lam_g"][0] > 0
    unconstrained = dstar.NLP(x=[x, y], f=(x - 3) ** 2 + (y + 1) ** 2)
    assert unconstrained.m == 0
    assert np.allclose(unconstrained.solve([0, 0], solver="trust-constr")["x"], [3, -1], atol=1e-6)


def test_nlp_kernels_are_the_functions():
    text, x0, _, _ = problem("hs071")
    nlp, f = dstar.NLP(text), dstar.compile(text)
    lam = np.array([0.5, -2.0])
    assert nlp.objective(x0) == f(x0)[0]
    assert np.array_equal(nlp.constraints(x0), f(x0)[1:])
    assert np.array_equal(nlp.gradient(x0), f.jacobian(x0)[0])
    assert np.array_equal(nlp.jacobian(x0).toarray(), f.jacobian(x0)[1:])
    rows, cols = nlp.jacobian_structure
    assert np.array_equal(nlp.jacobian_nonzeros(x0), f.jacobian(x0)[1:][rows, cols])
    rows, cols = nlp.hessian_structure
    assert np.all(rows >= cols)
    dense = f.hessian(x0, np.r_[2.0, lam])
    assert np.array_equal(nlp.hessian_nonzeros(x0, 2.0, lam), dense[rows, cols])
    assert np.array_equal(nlp.hessian(x0, 2.0, lam, symmetric=True).toarray(), dense)
    assert "n=4, m=2" in repr(nlp)


def test_infinite_and_equality_bounds():
    nlp = dstar.NLP("in x, y\nout f = x^2 + y^2\nout g = x + y\nout h = x - y")
    for solver in ["slsqp", "trust-constr"]:
        sol = nlp.solve([3.0, 1.0], lbx=[None, -np.inf], ubx=None, lbg=[1.0, None], ubg=[1.0, np.inf], solver=solver)
        assert sol["success"] and np.allclose(sol["x"], [0.5, 0.5], atol=1e-6), (solver, sol)


def test_ipopt_infinite_and_equality_bounds():
    require_ipopt()
    nlp = dstar.NLP("in x, y\nout f = x^2 + y^2\nout g = x + y\nout h = x - y")
    sol = nlp.solve([3.0, 1.0], lbx=[None, -np.inf], lbg=[1.0, 0.2], ubg=[1.0, None])
    assert sol["status"] == "Solve_Succeeded" and np.allclose(sol["x"], [0.6, 0.4], atol=1e-7)
    assert np.allclose(sol["lam_g"], [-1.0, -0.2], atol=1e-7)


def test_ipopt_reports_a_domain_it_cannot_leave():
    require_ipopt()
    # log(x) is undefined left of 0; IPOPT cuts its steps back, and a problem
    # whose optimum lies outside the domain ends with IPOPT's own status.
    nlp = dstar.NLP("in x\nout f = x - log(x)")
    assert np.isclose(nlp.solve([3.0])["x"][0], 1.0)
    sol = dstar.NLP("in x\nout f = log(x) + x^2 * 0").solve([3.0], options={"max_iter": 50})
    assert not sol["success"] and isinstance(sol["status"], str)


def test_ipopt_options_and_a_function():
    require_ipopt()
    nlp = dstar.NLP(dstar.compile("in x\nout f = (x - 1)^2"))
    assert np.allclose(nlp.solve([0.0])["x"], [1.0])
    with pytest.raises(ValueError, match="IPOPT rejects the option no_such_option=1"):
        nlp.solve([0.0], options={"no_such_option": 1})
    with pytest.raises(ValueError, match="max_iter='many'"):
        nlp.solve([0.0], options={"max_iter": "many"})


def test_errors():
    nlp = dstar.NLP("in x, y\nout f = log(x) + y^2\nout g = x + y")
    with pytest.raises(ValueError, match="lbx has 3 entries, expected 2"):
        nlp.solve([1.0, 1.0], lbx=[0, 0, 0], solver="slsqp")
    with pytest.raises(ValueError, match="ubg has 2 entries, expected 1"):
        nlp.solve([1.0, 1.0], ubg=[1, 2], solver="slsqp")
    with pytest.raises(ValueError, match=r"lbg\[0\] = 2.0 > ubg\[0\] = 1.0"):
        nlp.solve([1.0, 1.0], lbg=2.0, ubg=1.0, solver="slsqp")
    with pytest.raises(ValueError, match="lbx has NaN"):
        nlp.solve([1.0, 1.0], lbx=[np.nan, 0], solver="slsqp")
    with pytest.raises(ValueError, match="x0 has 1 entries, expected 2"):
        nlp.solve([1.0], solver="slsqp")
    with pytest.raises(ValueError, match="x0 is not finite"):
        nlp.solve([np.inf, 1.0], solver="slsqp")
    with pytest.raises(ValueError, match="outside the domain.*f"):
        nlp.solve([-1.0, 1.0], solver="slsqp")
    with pytest.raises(ValueError, match="outside the domain"):
        nlp.solve([-1.0, 1.0], solver="ipopt")
    with pytest.raises(ValueError, match="solver='newton'"):
        nlp.solve([1.0, 1.0], solver="newton")
    with pytest.raises(ValueError, match="p has 1 entries, expected 0"):
        nlp.solve([1.0, 1.0], p=[1.0], solver="slsqp")
    with pytest.raises(ValueError, match=r"lam must be a vector of 1 entries; got shape \(3,\)"):
        nlp.hessian_nonzeros([1.0, 1.0], 1.0, [1, 2, 3])
    with pytest.raises(TypeError, match="not both"):
        dstar.NLP("in x\nout x^2", x=dstar.symbols("x"))
    with pytest.raises(TypeError, match="needs the variables"):
        dstar.NLP(f=dstar.symbols("x"))
    with pytest.raises(dstar.ParseError):
        dstar.NLP("in x\nout f = x +")


def test_mpc_example_closes_the_loop():
    """examples/python/mpc.py, a few steps: every warm-started solve succeeds
    in a few iterations, with the kernels compiled once."""
    require_ipopt()
    import sys

    from conftest import REPO

    sys.path.insert(0, str(REPO / "examples" / "python"))
    import mpc

    lines = []
    run = mpc.main(steps=4, out=lines.append)
    assert all(r["success"] for r in run["rows"]), lines
    assert all(r["iterations"] < 30 for r in run["rows"]), lines
    assert "set-up" in lines[0] and len(lines) == 2 + 1 + 4 + 1
