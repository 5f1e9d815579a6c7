"""A problem-format file as CasADi SX expressions, for solving and timing the
same function with CasADi in the same run (cleaned from
tools/peer/dstar2casadi.py: the statements are read by problem_format)."""

import casadi as ca

from problem_format import build, statements


def _cbrt(a):
    return ca.sign(a) * ca.fabs(a) ** (1.0 / 3)


FUNCTIONS = {
    "sin": ca.sin, "cos": ca.cos, "tan": ca.tan, "asin": ca.asin, "acos": ca.acos, "atan": ca.atan,
    "sinh": ca.sinh, "cosh": ca.cosh, "tanh": ca.tanh, "asinh": ca.asinh, "acosh": ca.acosh,
    "atanh": ca.atanh, "exp": ca.exp, "log": ca.log, "log2": lambda a: ca.log(a) / ca.log(2),
    "log10": ca.log10, "sqrt": ca.sqrt, "cbrt": _cbrt, "abs": ca.fabs, "sign": ca.sign,
    "floor": ca.floor, "ceil": ca.ceil, "erf": ca.erf, "pow": lambda a, b: a**b,
    "atan2": ca.atan2, "hypot": lambda a, b: ca.sqrt(a * a + b * b), "min": ca.fmin,
    "max": ca.fmax, "expm1": lambda a: ca.exp(a) - 1, "log1p": lambda a: ca.log(1 + a),
    "exp2": lambda a: 2**a, "_ifelse": ca.if_else, "pi": ca.pi, "e": ca.exp(1),
}


def load(text):
    """(x: SX column of the inputs, [SX output, ...], point)."""
    inputs, _, point = statements(text)
    x = ca.SX.sym("x", len(inputs))
    outputs = build(text, FUNCTIONS, [x[k] for k in range(len(inputs))])
    return x, [ca.SX(o) for o in outputs], point
