"""The NLP example: dstar's derivatives drive IPOPT and SciPy's trust-constr
to CasADi's optimum from each file's point. Skipped unless casadi (and, for
IPOPT, cyipopt) is installed (CI installs neither)."""

import sys

import numpy as np
import pytest

from conftest import NLP, REPO

pytest.importorskip("casadi")
sys.path.insert(0, str(REPO / "examples" / "python"))
import solve_nlp  # noqa: E402


def assert_same_optimum(name, ours, theirs):
    assert theirs["status"] == "Solve_Succeeded"
    distance = solve_nlp.DISTANCE.get(name, lambda x, y: np.max(np.abs(x - y)))
    assert distance(ours["x"], theirs["x"]) < 1e-6
    assert abs(ours["f"] - theirs["f"]) < 1e-6 * (1 + abs(theirs["f"]))


def problem(name):
    text = (solve_nlp.NLP / f"{name}.dstar").read_text()
    return text, solve_nlp._point(text, None)


@pytest.mark.parametrize("name", ["hs071", "cartpole_20"])
def test_ipopt_with_dstar_matches_casadi(name):
    pytest.importorskip("cyipopt")
    text, x0 = problem(name)
    assert_same_optimum(name, solve_nlp.solve_dstar_ipopt(name, text, x0), solve_nlp.solve_casadi(name, text, x0))


@pytest.mark.parametrize("name", [p.stem for p in NLP])
def test_trust_constr_with_dstar_matches_casadi(name):
    text, x0 = problem(name)
    ours = solve_nlp.solve_dstar_trust_constr(name, text, x0)
    assert_same_optimum(name, ours, solve_nlp.solve_casadi(name, text, x0))
    assert ours["iterations"] < solve_nlp.TRUST_CONSTR_OPTIONS["maxiter"]


@pytest.mark.parametrize("name", [p.stem for p in NLP])
def test_scipy_matrices_are_the_dense_ones(name, rng):
    import dstar

    text, x0 = problem(name)
    f = dstar.compile(text)
    nlp = solve_nlp.DstarNLP(f, solve_nlp.Counted())
    for x in [x0, x0 + rng.normal(size=x0.size)]:
        v = rng.normal(size=f.n_out - 1)
        assert np.array_equal(nlp.sparse_jacobian(x).toarray(), f.jacobian(x)[1:])
        assert np.array_equal(nlp.lagrangian_hessian(x, v).toarray(), f.hessian(x, weights=np.r_[1.0, v]))
