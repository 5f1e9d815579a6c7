"""Issue 34, item 9: NLP.solve and the NLP's kernels reject arguments that
make no sense, naming the argument and the index: NaN anywhere, a wrongly
shaped vector, bounds no point can meet (a lower bound of +inf, an upper
bound of -inf, lb > ub). Every solver, every vector argument."""

import math

import numpy as np
import pytest

import dstar
from test_nlp import require_ipopt

TEXT = "param a, b\nin x, y\nout f = (x - a)^2 + (y - b)^2\nout g = x + y\nout h = x*y\n# @params 1 2"
SOLVERS = ["ipopt", "trust-constr", "slsqp"]


@pytest.fixture(scope="module")
def nlp():
    return dstar.NLP(TEXT)


def good(nlp):
    """Arguments of solve that are all fine: n = 2 variables, m = 2
    constraints, 2 parameters."""
    return {"x0": [0.5, 0.5], "lbx": [-1, -1], "ubx": [3, 3], "lbg": [-5, -5], "ubg": [5, 5], "p": [1.0, 2.0],
            "lam_g0": [0.0, 0.0], "lam_x0": [0.0, 0.0]}


def solve(nlp, solver, **changes):
    args = {**good(nlp), **changes}
    options = {"max_iter": 5} if solver == "ipopt" else {"maxiter": 5}
    return nlp.solve(args.pop("x0"), solver=solver, options=options, **args)


VECTORS = ["x0", "lbx", "ubx", "lbg", "ubg", "p", "lam_g0", "lam_x0"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_issue_34_the_good_arguments_solve(nlp, solver):
    if solver == "ipopt":
        require_ipopt()
    solve(nlp, solver)


@pytest.mark.parametrize("name", VECTORS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_issue_34_nan_is_blamed_on_its_argument(nlp, solver, name):
    value = list(good(nlp)[name])
    value[1] = math.nan
    with pytest.raises(ValueError, match=rf"^{name} has NaN at \[1\]"):
        solve(nlp, solver, **{name: value})


@pytest.mark.parametrize("shape", [(2, 1), (1, 2), (2, 2), (1, 1, 2)])
@pytest.mark.parametrize("name", VECTORS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_issue_34_a_vector_of_another_shape_is_rejected(nlp, solver, name, shape):
    value = np.resize(np.asarray(good(nlp)[name], dtype=float), shape)
    with pytest.raises(ValueError, match=rf"^{name} must be a number or a vector of 2 entries; got shape"):
        solve(nlp, solver, **{name: value})


# (argument, value, the message's start): bounds that no x, or no g(x), meets.
IMPOSSIBLE = [
    ("lbx", [0.0, math.inf], r"lbx\[1\] = inf: a lower bound"),
    ("ubx", [-math.inf, 3.0], r"ubx\[0\] = -inf: an upper bound"),
    ("lbg", [math.inf, 0.0], r"lbg\[0\] = inf: a lower bound"),
    ("ubg", [5.0, -math.inf], r"ubg\[1\] = -inf: an upper bound"),
    ("lbx", math.inf, r"lbx\[0\] = inf: a lower bound"),
    ("lbx", [0.0, 4.0], r"lbx\[1\] = 4.0 > ubx\[1\] = 3.0"),
    ("ubg", [5.0, -6.0], r"lbg\[1\] = -5.0 > ubg\[1\] = -6.0"),
]


@pytest.mark.parametrize("name, value, message", IMPOSSIBLE)
@pytest.mark.parametrize("solver", SOLVERS)
def test_issue_34_bounds_no_point_meets_are_rejected(nlp, solver, name, value, message):
    with pytest.raises(ValueError, match="^" + message):
        solve(nlp, solver, **{name: value})


def test_issue_34_infinite_bounds_on_the_open_side_are_no_bounds(nlp):
    sol = solve(nlp, "slsqp", lbx=-math.inf, ubx=[math.inf, None], lbg=[None, -math.inf], ubg=math.inf)
    assert sol["x"].shape == (2,)


@pytest.mark.parametrize("solver", SOLVERS)
def test_issue_34_a_parameter_not_finite_is_blamed(nlp, solver):
    with pytest.raises(ValueError, match=r"^p is not finite at \[0\]"):
        solve(nlp, solver, p=[math.inf, 1.0])


@pytest.mark.parametrize("method", ["values", "objective", "constraints", "gradient", "jacobian", "jacobian_nonzeros",
                                    "hessian", "hessian_nonzeros"])
def test_issue_34_kernels_take_one_point(nlp, method):
    with pytest.raises(ValueError, match=r"^x must be a vector of 2 entries; got shape \(3, 2\)"):
        getattr(nlp, method)(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"^p must be a vector of 2 entries; got shape \(3, 2\)"):
        getattr(nlp, method)(np.zeros(2), p=np.zeros((3, 2)))
