"""Writes the .nl fixtures of frontend/tests/nl.rs with Pyomo, and beside
each MODEL.nl (with MODEL.row and MODEL.col) a MODEL.json of references
computed by Pyomo itself, independently of its writer: at a point, each
output's value (Pyomo's `value` of the objective, of each constraint's
body), gradient (Pyomo's reverse-mode differentiation) and the lower
triangle of its Hessian (symbolic, then numeric reverse mode), each
constraint's bounds as Pyomo states them, and the initial point.

Pyomo's writer moves a constraint body's additive constant into its
bounds (`x**2 + y + 3 <= 10` is written as body `x**2 + y` with upper
bound 7), so the .nl body is Pyomo's body minus a constant: the test
checks that `nl body + (pyomo bound - nl bound)` is Pyomo's body, with
the .nl bound as the reader read it. Objectives keep their constants.

Run from this directory: python3 make_fixtures.py (pip install pyomo).
"""

import json
import math

import pyomo.environ as pe
from pyomo.core.expr.calculus.derivatives import Modes, differentiate
from pyomo.core.expr.calculus.diff_with_pyomo import DifferentiationException


def hs71():
    """Hock-Schittkowski problem 71."""
    m = pe.ConcreteModel()
    m.I = pe.RangeSet(1, 4)
    m.x = pe.Var(m.I, bounds=(1, 5), initialize={1: 1, 2: 5, 3: 5, 4: 1})
    m.obj = pe.Objective(expr=m.x[1] * m.x[4] * (m.x[1] + m.x[2] + m.x[3]) + m.x[3])
    m.product = pe.Constraint(expr=m.x[1] * m.x[2] * m.x[3] * m.x[4] >= 25)
    m.squares = pe.Constraint(expr=sum(m.x[i] ** 2 for i in m.I) == 40)
    return m, [(m.x[i], v) for i, v in {1: 1.2, 2: 4.6, 3: 4.1, 4: 1.5}.items()]


def chain(nh=20):
    """COPS problem 'chain' (hanging chain), as an optimal-control
    transcription with the trapezoidal rule; the arc-length integrand is
    an Expression shared by two constraints of each interval."""
    L, a, b, tf = 4.0, 1.0, 3.0, 1.0
    h = tf / nh
    m = pe.ConcreteModel()
    m.J = pe.RangeSet(0, nh)
    tmin = 0.25 if b > a else 0.75
    m.u = pe.Var(m.J, initialize=lambda m, j: 4 * abs(b - a) * (j * h - tmin))
    m.x1 = pe.Var(m.J, initialize=lambda m, j: 4 * abs(b - a) * j * h * (0.5 * j * h - tmin) + a)
    m.x2 = pe.Var(m.J)
    m.x3 = pe.Var(m.J, initialize=lambda m, j: 4 * abs(b - a) * j * h * (0.5 * j * h - tmin) + a)
    m.s = pe.Expression(m.J, rule=lambda m, j: pe.sqrt(1 + m.u[j] ** 2))
    m.obj = pe.Objective(expr=m.x2[nh])
    I = range(nh)
    m.dx1 = pe.Constraint(I, rule=lambda m, j: m.x1[j + 1] - m.x1[j] - 0.5 * h * (m.u[j] + m.u[j + 1]) == 0)
    m.dx2 = pe.Constraint(
        I, rule=lambda m, j: m.x2[j + 1] - m.x2[j] - 0.5 * h * (m.x1[j] * m.s[j] + m.x1[j + 1] * m.s[j + 1]) == 0
    )
    m.dx3 = pe.Constraint(I, rule=lambda m, j: m.x3[j + 1] - m.x3[j] - 0.5 * h * (m.s[j] + m.s[j + 1]) == 0)
    m.x1_0 = pe.Constraint(expr=m.x1[0] == a)
    m.x1_t = pe.Constraint(expr=m.x1[nh] == b)
    m.x2_0 = pe.Constraint(expr=m.x2[0] == 0)
    m.x3_0 = pe.Constraint(expr=m.x3[0] == 0)
    m.x3_t = pe.Constraint(expr=m.x3[nh] == L)
    point = []
    for j in m.J:
        point.append((m.u[j], 0.3 * math.sin(j) + 0.1))
        point.append((m.x1[j], a + (b - a) * j / nh + 0.01 * j))
        point.append((m.x2[j], 0.2 * j))
        point.append((m.x3[j], L * j / nh))
    return m, point


def mixed():
    """A maximisation with Expressions reused in several constraints,
    ranges, equalities with expressions on both sides, constants moved
    into bounds, linear-only constraints and variables that appear only
    linearly."""
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1, 2], initialize=0.5, bounds=(-2, 2))
    m.y = pe.Var(initialize=1.0, bounds=(0, None))
    m.z = pe.Var()  # linear only, no initial value, free
    m.w = pe.Var(bounds=(None, 4), initialize=-1)
    m.e = pe.Expression(expr=m.x[0] * m.x[1] + pe.exp(m.x[2]))
    m.f = pe.Expression(expr=m.e ** 2 + 3 * m.y)  # an Expression using one, with a linear part
    m.obj = pe.Objective(expr=m.e + m.f - m.z + 5, sense=pe.maximize)
    m.c_range = pe.Constraint(expr=pe.inequality(-1, m.e + m.y + 2, 3))
    m.c_le = pe.Constraint(expr=pe.sin(m.e) + m.y + 3 <= 10)
    m.c_ge = pe.Constraint(expr=m.f * m.x[0] >= -7)
    m.c_eq = pe.Constraint(expr=m.x[0] + 2 * m.x[1] == m.x[2] ** 2 + m.y)
    m.c_lin = pe.Constraint(expr=3 * m.z - m.w + m.y == 4)
    m.c_lin2 = pe.Constraint(expr=pe.inequality(0, m.z + m.x[0] - 0.5 * m.w, 10))
    return m, [(m.x[0], 0.3), (m.x[1], -0.7), (m.x[2], 1.1), (m.y, 2.5), (m.z, -1.25), (m.w, 0.75)]


def constraints_only():
    """No objective: every output is a constraint."""
    m = pe.ConcreteModel()
    m.x = pe.Var([1, 2, 3], initialize={1: 1.0, 2: 2.0})
    m.ring = pe.Constraint(expr=m.x[1] ** 2 + m.x[2] ** 2 <= 4)
    m.plane = pe.Constraint(expr=m.x[1] + m.x[2] + m.x[3] == 1)
    m.curve = pe.Constraint(expr=m.x[3] == pe.log(m.x[1] + 3) * m.x[2])
    return m, [(m.x[1], 0.4), (m.x[2], -1.3), (m.x[3], 0.8)]


def functions():
    """Every function Pyomo writes: o-codes 13-16, 37-53, pow forms,
    division, if-then-else with comparisons and a range (and)."""
    m = pe.ConcreteModel()
    m.x = pe.Var(initialize=0.3)
    m.y = pe.Var(initialize=1.7)
    m.t = pe.Var(initialize=0.5)
    x, y, t = m.x, m.y, m.t
    bodies = {
        'sin': pe.sin(x * y), 'cos': pe.cos(x + t), 'tan': pe.tan(t), 'exp': pe.exp(x * t),
        'log': pe.log(y * 2), 'log10': pe.log10(y + t), 'sqrt': pe.sqrt(y + x * x),
        'asin': pe.asin(t * x), 'acos': pe.acos(x - t), 'atan': pe.atan(y * t),
        'sinh': pe.sinh(x * y), 'cosh': pe.cosh(t * y), 'tanh': pe.tanh(x + y),
        'asinh': pe.asinh(x * y), 'acosh': pe.acosh(y + t * t), 'atanh': pe.atanh(x * t),
        'abs': abs(x - y) * t, 'neg': -(x * y), 'div': x / (y + t * t),
        'pow_var': y ** (x * t), 'pow_const': (x * y) ** 2.5, 'pow_int': (x + t) ** 3,
        'const_pow': 2 ** (x * y), 'sqrt_pow': (y * t) ** 0.5,
        'floor': pe.floor(y * 2) * x * t, 'ceil': pe.ceil(y * t) + x * y,
        'if_le': pe.Expr_if(IF=x <= y, THEN=x * t, ELSE=y ** 2),
        'if_lt': pe.Expr_if(IF=x * t < y, THEN=pe.sin(x), ELSE=pe.cos(y)),
        'if_eq': pe.Expr_if(IF=x == y, THEN=x * x, ELSE=y * t),
        'if_range': pe.Expr_if(IF=pe.inequality(0, x * y, 1), THEN=t * t, ELSE=x + y * t),
    }
    m.c = pe.ConstraintList()
    names = []
    for name, body in bodies.items():
        m.c.add(body <= 100)
        names.append(name)
    m.obj = pe.Objective(expr=pe.exp(x) * y + t * t)
    return m, [(x, 0.35), (y, 1.6), (t, 0.45)]


def write(name, model, pairs):
    point = pe.ComponentMap(pairs)
    model.write(f"{name}.nl", io_options={"symbolic_solver_labels": True})
    cols = open(f"{name}.col").read().split()
    rows = open(f"{name}.row").read().split()
    variables = [model.find_component(c) for c in cols]
    initial = [v.value if v.value is not None else 0.0 for v in variables]
    for v in variables:
        v.set_value(point[v], skip_validation=True)
    objectives = list(model.component_data_objects(pe.Objective, active=True))
    outputs = []
    for obj in objectives[:1]:
        outputs.append(reference(obj.name, obj.expr, variables, None, None))
    for row in rows:
        con = model.find_component(row)
        if con is None or con.ctype is not pe.Constraint:
            continue
        outputs.append(reference(con.name, con.body, variables, con.lower, con.upper))
    doc = {
        "point": [point[v] for v in variables],
        "initial": initial,
        "sense": [("max" if o.sense == pe.maximize else "min") for o in objectives[:1]],
        "outputs": outputs,
    }
    with open(f"{name}.json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def reference(name, expr, variables, lower, upper):
    bound = lambda b: None if b is None else pe.value(b)
    try:
        gradient = differentiate(expr, wrt_list=variables, mode=Modes.reverse_numeric)
        exact = True
        hessian = lower_hessian(expr, variables)
    except DifferentiationException:
        # Pyomo does not differentiate floor, ceil and Expr_if: central
        # differences of its own evaluation, away from the kinks.
        gradient = [central_difference(expr, v) for v in variables]
        exact = False
        hessian = None
    return {
        "name": name,
        "value": pe.value(expr),
        "gradient": [float(g) for g in gradient],
        "exact_gradient": exact,
        "hessian": hessian,
        "lower": bound(lower),
        "upper": bound(upper),
    }


def lower_hessian(expr, variables):
    """The nonzero entries [row, col, value] (row >= col) of the Hessian of
    `expr` at the variables' values: Pyomo's symbolic reverse mode, then
    its numeric reverse mode on each derivative."""
    entries = []
    first = differentiate(expr, wrt_list=variables, mode=Modes.reverse_symbolic)
    for i, d in enumerate(first):
        if not hasattr(d, "is_constant") or d.is_constant():
            continue
        row = differentiate(d, wrt_list=variables[: i + 1], mode=Modes.reverse_numeric)
        entries.extend([i, j, float(v)] for j, v in enumerate(row) if v != 0)
    return entries


def central_difference(expr, var, h=1e-6):
    x = var.value
    var.set_value(x + h, skip_validation=True)
    up = pe.value(expr)
    var.set_value(x - h, skip_validation=True)
    down = pe.value(expr)
    var.set_value(x, skip_validation=True)
    return (up - down) / (2 * h)


if __name__ == "__main__":
    for name, make in [
        ("hs71", hs71),
        ("chain", chain),
        ("mixed", mixed),
        ("constraints_only", constraints_only),
        ("functions", functions),
    ]:
        model, point = make()
        write(name, model, point)
