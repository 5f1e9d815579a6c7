"""Pyomo models for the `.nl` tests (test_nl.py, test_pyomo_solver.py), and
the references they are checked against, computed without dstar and
without Pyomo's writer: known optima (HS71), optima and multipliers by
hand (KKT conditions solved in closed form), CasADi's IPOPT on the same
model written in CasADi, and Pyomo's own differentiation (the KKT
residual at a solution).

Signs: Pyomo (and AMPL) duals ``y`` and bound multipliers ``zL >= 0 >=
zU`` satisfy ``grad f - J' y - zL - zU = 0`` whatever the sense; CasADi's
(and IPOPT's) ``grad f + J' lam_g + lam_x = 0`` for a minimization."""

import os
import shutil
import sys

import numpy as np
import pytest

if os.environ.get("DSTAR_REQUIRE_IPOPT"):
    import pyomo.environ as pe  # CI installs Pyomo (.ci/run): these tests must run there, not skip
else:
    pe = pytest.importorskip("pyomo.environ")

#: HS71's optimum (Hock and Schittkowski; IPOPT's documentation).
HS71_F = 17.0140173
HS71_X = [1.0, 4.74299963, 3.82114998, 1.37940829]


def require_ipopt():
    """cyipopt, or a skip (a failure under DSTAR_REQUIRE_IPOPT, as in CI)."""
    try:
        import cyipopt  # noqa: F401
    except ImportError as e:
        if os.environ.get("DSTAR_REQUIRE_IPOPT"):
            pytest.fail(f"DSTAR_REQUIRE_IPOPT is set but cyipopt does not import ({e})")
        pytest.skip(f"cyipopt is not installed ({e})")


def write_nl(model, path):
    """Writes ``model`` to ``path`` as Pyomo hands it to a solver, with the
    ``.row`` and ``.col`` names beside it."""
    model.write(str(path), io_options={"symbolic_solver_labels": True})
    return path


def executable():
    """The installed ``dstar-ipopt``: beside this Python (a venv's bin), else on PATH."""
    found = shutil.which("dstar-ipopt", path=os.path.dirname(sys.executable)) or shutil.which("dstar-ipopt")
    if found is None:
        message = "dstar-ipopt is not installed beside this Python nor on PATH: pip install ./python"
        if os.environ.get("DSTAR_REQUIRE_IPOPT"):
            pytest.fail(message)
        pytest.skip(message)
    return found


# -- models -------------------------------------------------------------------


def hs71():
    """Hock-Schittkowski problem 71."""
    m = pe.ConcreteModel()
    m.I = pe.RangeSet(1, 4)
    m.x = pe.Var(m.I, bounds=(1, 5), initialize={1: 1, 2: 5, 3: 5, 4: 1})
    m.obj = pe.Objective(expr=m.x[1] * m.x[4] * (m.x[1] + m.x[2] + m.x[3]) + m.x[3])
    m.product = pe.Constraint(expr=m.x[1] * m.x[2] * m.x[3] * m.x[4] >= 25)
    m.squares = pe.Constraint(expr=sum(m.x[i] ** 2 for i in m.I) == 40)
    return m


def indexed(n=50):
    """A convex model over an indexed set of ``n`` variables: ``exp(x[i])``
    an Expression shared by the objective and a constraint, a ball
    constraint and a linear equality that are active, lower bounds some
    variables end on."""
    m = pe.ConcreteModel()
    m.I = pe.RangeSet(0, n - 1)
    m.x = pe.Var(m.I, bounds=(-1, None), initialize=0.0)
    m.e = pe.Expression(m.I, rule=lambda m, i: pe.exp(0.5 * m.x[i]))
    m.obj = pe.Objective(expr=sum(m.e[i] - _target(i, n) * m.x[i] for i in m.I))
    m.ball = pe.Constraint(expr=sum(m.x[i] ** 2 for i in m.I) <= n / 4)
    m.total = pe.Constraint(expr=sum(m.x[i] for i in m.I) == n / 10)
    m.growth = pe.Constraint(expr=sum(m.e[i] for i in m.I) <= 2 * n)
    return m


def _target(i, n):
    return 1.5 * np.sin(6.0 * i / n)


def chain(nh=20):
    """COPS problem 'chain' (the hanging chain) by the trapezoidal rule,
    the arc-length integrand an Expression used by two constraints."""
    L, a, b, h = 4.0, 1.0, 3.0, 1.0 / nh
    m = pe.ConcreteModel()
    m.J = pe.RangeSet(0, nh)
    m.u = pe.Var(m.J, initialize=lambda m, j: 4 * (j * h - 0.25))
    m.x1 = pe.Var(m.J, initialize=lambda m, j: 4 * j * h * (0.5 * j * h - 0.25) + a)
    m.x2 = pe.Var(m.J, initialize=0.0)
    m.x3 = pe.Var(m.J, initialize=lambda m, j: 4 * j * h * (0.5 * j * h - 0.25) + a)
    m.s = pe.Expression(m.J, rule=lambda m, j: pe.sqrt(1 + m.u[j] ** 2))
    m.obj = pe.Objective(expr=m.x2[nh])
    intervals = range(nh)
    m.dx1 = pe.Constraint(intervals, rule=lambda m, j: m.x1[j + 1] - m.x1[j] == 0.5 * h * (m.u[j] + m.u[j + 1]))
    m.dx2 = pe.Constraint(
        intervals, rule=lambda m, j: m.x2[j + 1] - m.x2[j] == 0.5 * h * (m.x1[j] * m.s[j] + m.x1[j + 1] * m.s[j + 1])
    )
    m.dx3 = pe.Constraint(intervals, rule=lambda m, j: m.x3[j + 1] - m.x3[j] == 0.5 * h * (m.s[j] + m.s[j + 1]))
    m.ends = pe.ConstraintList()
    for expr in (m.x1[0] == a, m.x1[nh] == b, m.x2[0] == 0, m.x3[0] == 0, m.x3[nh] == L):
        m.ends.add(expr)
    return m


def maximization():
    """``max sum log x`` on ``x0 + x1 + x2 = 3`` with ``0.5 <= x0 <= 0.8``:
    ``x = (0.8, 1.1, 1.1)``; duals (Pyomo's signs) ``1/1.1`` for the sum
    and ``1/0.8 - 1/1.1`` for the range."""
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1, 2], bounds=(0.1, None), initialize=1.0)
    m.obj = pe.Objective(expr=sum(pe.log(m.x[i]) for i in m.x), sense=pe.maximize)
    m.total = pe.Constraint(expr=m.x[0] + m.x[1] + m.x[2] == 3)
    m.range = pe.Constraint(expr=pe.inequality(0.5, m.x[0], 0.8))
    return m


MAXIMIZATION = {"x": [0.8, 1.1, 1.1], "f": np.log(0.8) + 2 * np.log(1.1), "duals": [1 / 1.1, 1 / 0.8 - 1 / 1.1]}


def ranges():
    """The point of ``{x + y <= 1, x + y >= -1, z = x + 0.5}`` nearest to
    ``(1, 2, 3)``, written with constants Pyomo moves into the bounds and
    an equality with terms on both sides: ``(5/6, 1/6, 4/3)``, ``f =
    222/36``; duals ``-11/3`` on the range (its upper side) and ``-10/3``
    on the equality."""
    m = pe.ConcreteModel()
    m.x = pe.Var(initialize=0.0)
    m.y = pe.Var(initialize=0.0)
    m.z = pe.Var(initialize=0.0, bounds=(-10, 10))
    m.obj = pe.Objective(expr=(m.x - 1) ** 2 + (m.y - 2) ** 2 + (m.z - 3) ** 2)
    m.band = pe.Constraint(expr=pe.inequality(2, m.x + m.y + 3, 4))
    m.link = pe.Constraint(expr=m.z + 2 == m.x + 2.5)
    return m


RANGES = {"x": [5 / 6, 1 / 6, 4 / 3], "f": 222 / 36, "duals": {"band": -11 / 3, "link": -10 / 3}}


def constraints_only():
    """No objective: a point of a circle, a plane and a curve."""
    m = pe.ConcreteModel()
    m.x = pe.Var([1, 2, 3], initialize={1: 1.0, 2: 0.5, 3: 0.0})
    m.ring = pe.Constraint(expr=m.x[1] ** 2 + m.x[2] ** 2 == 2)
    m.plane = pe.Constraint(expr=m.x[1] + m.x[2] + m.x[3] == 1)
    m.curve = pe.Constraint(expr=m.x[3] == pe.log(m.x[1] + 3) * m.x[2])
    return m


def infeasible():
    """A disc and a half-plane that do not meet."""
    m = pe.ConcreteModel()
    m.x = pe.Var(initialize=0.0)
    m.y = pe.Var(initialize=0.0)
    m.obj = pe.Objective(expr=(m.x - 0.3) ** 2 + m.y**2)
    m.disc = pe.Constraint(expr=m.x**2 + m.y**2 <= 1)
    m.half = pe.Constraint(expr=m.x + m.y >= 3)
    return m


# -- references ---------------------------------------------------------------


def casadi_solve(x, f, g, x0, lbx, ubx, lbg, ubg):
    """CasADi's IPOPT on the model written in CasADi: ``x``, ``f``,
    ``lam_g``, ``lam_x`` (CasADi's signs)."""
    casadi = pytest.importorskip("casadi")  # .ci/run installs it

    options = {"print_time": 0, "ipopt": {"print_level": 0, "tol": 1e-10}}
    solver = casadi.nlpsol("s", "ipopt", {"x": x, "f": f, "g": g}, options)
    sol = solver(x0=x0, lbx=lbx, ubx=ubx, lbg=lbg, ubg=ubg)
    assert solver.stats()["success"], solver.stats()["return_status"]
    return {k: np.array(sol[k]).ravel() for k in ("x", "f", "lam_g", "lam_x")}


def casadi_hs71():
    """HS71 in CasADi: constraints ``product``, ``squares``."""
    casadi = pytest.importorskip("casadi")  # .ci/run installs it

    x = casadi.SX.sym("x", 4)
    f = x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]
    g = casadi.vertcat(x[0] * x[1] * x[2] * x[3], casadi.sumsqr(x))
    return casadi_solve(x, f, g, [1, 5, 5, 1], 1, 5, [25, 40], [np.inf, 40])


def casadi_indexed(n=50):
    """:func:`indexed` in CasADi: constraints ``ball``, ``total``, ``growth``."""
    casadi = pytest.importorskip("casadi")  # .ci/run installs it

    x = casadi.SX.sym("x", n)
    e = casadi.exp(0.5 * x)
    t = np.array([_target(i, n) for i in range(n)])
    f = casadi.sum1(e - t * x)
    g = casadi.vertcat(casadi.sumsqr(x), casadi.sum1(x), casadi.sum1(e))
    return casadi_solve(x, f, g, np.zeros(n), -1, np.inf, [-np.inf, n / 10, -np.inf], [n / 4, n / 10, 2 * n])


def casadi_chain(nh=20):
    """:func:`chain`'s optimum objective, from CasADi."""
    casadi = pytest.importorskip("casadi")  # .ci/run installs it

    L, a, b, h = 4.0, 1.0, 3.0, 1.0 / nh
    u, x1, x2, x3 = (casadi.SX.sym(name, nh + 1) for name in ("u", "x1", "x2", "x3"))
    s = casadi.sqrt(1 + u**2)
    g = []
    for j in range(nh):
        g.append(x1[j + 1] - x1[j] - 0.5 * h * (u[j] + u[j + 1]))
        g.append(x2[j + 1] - x2[j] - 0.5 * h * (x1[j] * s[j] + x1[j + 1] * s[j + 1]))
        g.append(x3[j + 1] - x3[j] - 0.5 * h * (s[j] + s[j + 1]))
    g += [x1[0] - a, x1[nh] - b, x2[0], x3[0], x3[nh] - L]
    t = np.arange(nh + 1) * h
    x0 = np.concatenate((4 * (t - 0.25), 4 * t * (0.5 * t - 0.25) + a, np.zeros(nh + 1), 4 * t * (0.5 * t - 0.25) + a))
    x = casadi.vertcat(u, x1, x2, x3)
    return casadi_solve(x, x2[nh], casadi.vertcat(*g), x0, -np.inf, np.inf, 0, 0)["f"][0]


def kkt_residual(model, duals, z_lower, z_upper):
    """``grad f - J' y - zL - zU`` at the model's variable values, by
    Pyomo's own differentiation: ``duals`` by constraint, ``z_*`` by
    variable (Pyomo Suffixes; missing entries are 0)."""
    from pyomo.core.expr.calculus.derivatives import Modes, differentiate

    variables = list(model.component_data_objects(pe.Var))
    residual = np.zeros(len(variables))

    def add(expr, weight):
        residual[:] += weight * np.array(differentiate(expr, wrt_list=variables, mode=Modes.reverse_numeric))

    for objective in model.component_data_objects(pe.Objective, active=True):
        add(objective.expr, 1.0)
    for constraint in model.component_data_objects(pe.Constraint, active=True):
        add(constraint.body, -duals.get(constraint, 0.0))
    residual -= [z_lower.get(v, 0.0) + z_upper.get(v, 0.0) for v in variables]
    return residual
