#!/usr/bin/env python3
"""Reference derivatives at extreme arguments, for tests/extreme_arguments.rs.

Every operation's derivatives up to third order (first and second for
two-argument operations), from textbook closed forms evaluated with mpmath at
50 significant digits, independent of dstar's rules. Each argument is an
exact double; each reference is the double nearest the true value (inf where
it overflows, a subnormal or 0 where it underflows); undefined ones are left
out. Regenerate with

    python3 factor/derivative/tests/extreme_arguments/references.py \
        > factor/derivative/tests/extreme_arguments/references.rs
"""

import mpmath
from mpmath import mp, mpf

mp.dps = 50

STANDARD = [1e-300, 1e-8, 1.0, 20.0, 400.0, 1e90, 1e150, 1e300]
SIGNED = [s * x for x in STANDARD for s in (1.0, -1.0)]
BELOW_ONE = 1.0 - 2.0**-53  # the largest double below 1
UNIT_INTERVAL = [s * x for x in [1e-300, 1e-8, 0.5, 0.99, 1.0 - 1e-10, BELOW_ONE] for s in (1.0, -1.0)]
POSITIVE = [5e-324, 1e-300, 1e-8, 1.0, 1.0 + 2.0**-52, 20.0, 400.0, 1e90, 1e150, 1e300]


def tan_derivatives(x):
    t = mpmath.tan(x)
    return [1 + t**2, 2 * t * (1 + t**2), 2 * (1 + t**2) * (1 + 3 * t**2)]


def tanh_derivatives(x):
    t = mpmath.tanh(x)
    s = 1 / mpmath.cosh(x) ** 2
    return [s, -2 * t * s, -2 * s**2 + 4 * t**2 * s]


def cbrt_derivatives(x):
    c = mpmath.cbrt(x) if x >= 0 else -mpmath.cbrt(-x)
    return [1 / (3 * c**2), -2 / (9 * c**5), 10 / (27 * c**8)]


def erf_derivatives(x):
    d = 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-(x**2))
    return [d, -2 * x * d, (4 * x**2 - 2) * d]


def exp2_derivatives(x):
    ln2 = mpmath.log(2)
    return [2**x * ln2, 2**x * ln2**2, 2**x * ln2**3]


def log1p_derivatives(x):
    u = 1 + x
    return [1 / u, -1 / u**2, 2 / u**3]


# log1p's domain edge is -1: the double next to it, -1 + 1e-10, then the
# usual tiny, moderate and huge arguments of both signs inside the domain.
LOG1P_POINTS = [-BELOW_ONE, -(1.0 - 1e-10), -0.5, -1e-8, -1e-300, -5e-324] + POSITIVE


def log_base(base):
    def derivatives(x):
        k = 1 / mpmath.log(base)
        return [k / x, -k / x**2, 2 * k / x**3]

    return derivatives


UNARY = {
    "sin": (SIGNED, lambda x: [mpmath.cos(x), -mpmath.sin(x), -mpmath.cos(x)]),
    "cos": (SIGNED, lambda x: [-mpmath.sin(x), -mpmath.cos(x), mpmath.sin(x)]),
    "tan": (SIGNED, tan_derivatives),
    "asin": (
        UNIT_INTERVAL,
        lambda x: [(1 - x**2) ** -0.5, x * (1 - x**2) ** -1.5, (1 + 2 * x**2) * (1 - x**2) ** -2.5],
    ),
    "acos": (
        UNIT_INTERVAL,
        lambda x: [-((1 - x**2) ** -0.5), -x * (1 - x**2) ** -1.5, -(1 + 2 * x**2) * (1 - x**2) ** -2.5],
    ),
    "atan": (SIGNED, lambda x: [1 / (1 + x**2), -2 * x / (1 + x**2) ** 2, (6 * x**2 - 2) / (1 + x**2) ** 3]),
    "sinh": (SIGNED, lambda x: [mpmath.cosh(x), mpmath.sinh(x), mpmath.cosh(x)]),
    "cosh": (SIGNED, lambda x: [mpmath.sinh(x), mpmath.cosh(x), mpmath.sinh(x)]),
    "tanh": (
        SIGNED
        + [
            s * x
            for x in [0.0, 0.5, 2.0, 5.0, 10.0, 15.0, 19.0, 19.999999999999996, 20.000000000000004, 30.0, 177.0,
                      200.0, 355.0, 356.0, 710.0, 800.0]
            for s in (1.0, -1.0)
        ],
        tanh_derivatives,
    ),
    "asinh": (
        SIGNED,
        lambda x: [(1 + x**2) ** -0.5, -x * (1 + x**2) ** -1.5, (2 * x**2 - 1) * (1 + x**2) ** -2.5],
    ),
    "acosh": (
        [1.0 + 2.0**-52, 1.0 + 1e-8, 1.5, 20.0, 400.0, 1e150, 1e300],
        lambda x: [(x**2 - 1) ** -0.5, -x * (x**2 - 1) ** -1.5, (2 * x**2 + 1) * (x**2 - 1) ** -2.5],
    ),
    "atanh": (
        UNIT_INTERVAL,
        lambda x: [1 / (1 - x**2), 2 * x / (1 - x**2) ** 2, (2 + 6 * x**2) / (1 - x**2) ** 3],
    ),
    "exp": (SIGNED, lambda x: [mpmath.exp(x)] * 3),
    "expm1": (SIGNED + [-40.0, 1e-20, 709.0, 709.782712893384], lambda x: [mpmath.exp(x)] * 3),
    # Up to where 2^a itself overflows (1024): the derivative reuses the
    # value, so on (1024, 1024.53), where 2^a·ln 2 is still finite, it is inf
    # as the function is.
    "exp2": (SIGNED + [-1074.0, -1022.5, 0.5, 1023.5, 1023.9999999999999], exp2_derivatives),
    "log": (POSITIVE, log_base(mpmath.e)),
    "log1p": (LOG1P_POINTS, log1p_derivatives),
    "log2": (POSITIVE, log_base(2)),
    "log10": (POSITIVE, log_base(10)),
    "sqrt": (POSITIVE, lambda x: [x**-0.5 / 2, -(x**-1.5) / 4, 3 * x**-2.5 / 8]),
    "cbrt": (SIGNED, cbrt_derivatives),
    "erf": (SIGNED, erf_derivatives),
}


def pow_derivatives(a, b):
    """[d/da, d/db, d2/da2, d2/dadb, d2/db2] of a^b; None where undefined."""
    if a == 0:
        # 0^b = 0 for b > 0: locally constant in b, so the b-derivatives vanish.
        da = b * a ** (b - 1)
        daa = b * (b - 1) * a ** (b - 2) if b != 2 else mpf(2)
        return [da, mpf(0), daa, mpf(0) if b > 1 else None, mpf(0)]
    if a < 0:
        # A negative base with an integer exponent: no derivative in b.
        return [b * a ** (b - 1), None, b * (b - 1) * a ** (b - 2), None, None]
    la = mpmath.log(a)
    return [
        b * a ** (b - 1),
        a**b * la,
        b * (b - 1) * a ** (b - 2),
        a ** (b - 1) * (1 + b * la),
        a**b * la**2,
    ]


def atan2_derivatives(a, b):
    r2 = a**2 + b**2
    mixed = (a**2 - b**2) / r2**2
    if a == b and r2 < mpf(1e-300):
        # 0 only on the diagonal, as the difference of two terms of 5e599
        # that overflow: any change of a or b makes it infinite. Left out.
        mixed = None
    return [b / r2, -a / r2, -2 * a * b / r2**2, mixed, 2 * a * b / r2**2]


def hypot_derivatives(a, b):
    h = mpmath.sqrt(a**2 + b**2)
    return [a / h, b / h, b**2 / h**3, -a * b / h**3, a**2 / h**3]


def div_derivatives(a, b):
    return [1 / b, -a / b**2, mpf(0), -1 / b**2, 2 * a / b**3]


BINARY = {
    "pow": (
        [(2.0, 0.5), (2.0, 3.0), (0.0, 2.0), (0.0, 3.5), (-2.0, 3.0), (1e-300, 2.0), (1e-300, 0.5), (1e300, 0.5),
         (1e-8, 1.5), (20.0, 200.0), (0.5, 1e-5), (400.0, -2.0), (1.0 + 2.0**-52, 1e300)],
        pow_derivatives,
        "pow(a, b)",
    ),
    "atan2": (
        [(1.0, 1.0), (1e-300, 1e-300), (1e300, 1e300), (1e150, 1.0), (1.0, 1e150), (-1.0, -1e-300), (0.0, 1.0),
         (1.0, 0.0), (-20.0, 400.0)],
        atan2_derivatives,
        "atan2(a, b)",
    ),
    "hypot": (
        [(3.0, 4.0), (1e300, 1e300), (1e-300, 1e-300), (0.0, 1.0), (1e-8, 1.0), (-20.0, 400.0), (1e150, 1e150)],
        hypot_derivatives,
        "hypot(a, b)",
    ),
    "div": (
        [(1.0, 3.0), (1.0, 1e-300), (1e-300, 1e-300), (1e300, 1e-8), (5e-324, 1e-310), (-20.0, 400.0), (1e300, 1e300)],
        div_derivatives,
        "a / b",
    ),
}


def rust_float(value):
    """The nearest double as a Rust literal (inf past the range)."""
    if value is None or mpmath.isnan(value):
        return None
    if mpmath.isinf(value) or abs(value) > mpf(1.7976931348623157e308) * (1 + mpf(2) ** -54):
        return "f64::INFINITY" if value > 0 else "f64::NEG_INFINITY"
    x = float(mpmath.mpf(value))  # rounds to nearest, subnormals included
    if x == 0.0:
        return "-0.0" if value < 0 else "0.0"
    return repr(x)


def main():
    print("// Generated by references.py (mpmath, 50 digits): do not edit.")
    print("// The references are digits, not named constants, on purpose.")
    print("#![allow(clippy::approx_constant)]")
    print()
    print("use super::Reference;")
    print()
    print("/// `(source expression, arguments, derivatives)`: derivatives by multi-index,")
    print("/// `[0]` = d/da, `[0, 1]` = d²/dadb, and so on.")
    print("#[rustfmt::skip]")
    print("pub const REFERENCES: &[Reference] = &[")
    for name, (points, derivatives) in UNARY.items():
        for x in points:
            values = derivatives(mpf(x))
            entries = []
            order = []
            for value in values:
                order.append(0)
                literal = rust_float(value)
                if literal is not None:
                    entries.append(f"(&{order!r}, {literal})".replace("'", ""))
            print(f'    Reference {{ source: "{name}(a)", args: &[{x!r}], derivatives: &[{", ".join(entries)}] }},')
    for name, (points, derivatives, source) in BINARY.items():
        for a, b in points:
            values = derivatives(mpf(a), mpf(b))
            indices = [[0], [1], [0, 0], [0, 1], [1, 1]]
            entries = []
            for index, value in zip(indices, values):
                literal = rust_float(value)
                if literal is not None:
                    entries.append(f"(&{index!r}, {literal})")
            print(f'    Reference {{ source: "{source}", args: &[{a!r}, {b!r}], derivatives: &[{", ".join(entries)}] }},')
    print("];")


if __name__ == "__main__":
    main()
