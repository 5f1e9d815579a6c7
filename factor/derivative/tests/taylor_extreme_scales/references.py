#!/usr/bin/env python3
"""Reference Taylor coefficients at extreme scales, for tests/taylor_extreme_scales.rs.

Issue 26: the coefficients 0..8 of f(x + t·v) (of f(x + t·v, y + t·w) for
atan2 and hypot) with x, y, v and w from 1e-300 to 1e300, each from a
textbook closed form evaluated with mpmath at 800 digits, where no power
overflows and the few cancellations (1 + x² at x = 1e-300) keep hundreds of
digits. Nothing here shares a formula with dstar's Taylor recurrences:

- x^c (sqrt, cbrt and 1/x too): C(c, k) x^(c-k) v^k;
- log, log2, log10, log1p: (-1)^(k-1)/k (v/q)^k / ln(base), q = x or 1 + x;
- atan: U_{k-1}(z) v^k / (k ρ^(k+1)), asinh: P_{k-1}(z) v^k / (k ρ^k), with
  ρ = sqrt(1 + x²), z = -x/ρ (Chebyshev U and Legendre P: the generating
  functions of 1/(1 - 2zs + s²) and its square root); acosh likewise with
  ρ = sqrt(x² - 1);
- hypot: h C_k^(-1/2)(z) (n/h)^k with h = |(x, y)|, n = |(v, w)|, z = -(x v
  + y w)/(h n) (Gegenbauer); atan2(x, y): (y v - x w)/k · U_{k-1}(z) n^(k-1)
  / h^(k+1), as its derivative's numerator is constant along the line;
- erf: (2/√π) (-1)^(k-1) H_{k-1}(x) e^(-x²) v^k / k! (Hermite).

The polynomials come from their three-term recurrences; `--check` compares
every formula with mpmath.taylor (numerical differentiation) at moderate
points first.

Each line is `class|source|point|direction|c0 ... c8|e0 ... e8`: the class
of issue 26 (`closed`: closed forms for an argument of degree 1;
`recurrence`: recurrences that square their argument), the expression in x
and y, the point and the direction (exact doubles), per coefficient the
double nearest the truth (`inf`/`-inf` past the range, a subnormal or 0
below it, `_` where the truth is exactly zero, a zero of the polynomial
factor), and per coefficient its natural size (`=`: the truth's magnitude):
the bound with the polynomial factor at its largest over [-1, 1] (|U_n| <=
n + 1, |P_n| <= 1, |C_n^(-1/2)| <= 1; for erf the Hermite polynomial with
every term positive, H_n(i|x|)/i^n), which the truth falls far below where
the direction is nearly along the point or the function is odd about it,
and which the terms of any recurrence reach. Regenerate with

    python3 factor/derivative/tests/taylor_extreme_scales/references.py \\
        > factor/derivative/tests/taylor_extreme_scales/references.txt
"""

import mpmath
from mpmath import mp, mpf

mp.dps = 800
ORDER = 8
# A factor below this is a zero of its polynomial: the true zeros come out
# near 1e-800, the smallest true values (odd polynomials at 1e-600) far above.
ZERO = mpf(10) ** -700

EXPONENTS = [-300, -200, -150, -100, -45, -10, 0, 10, 40, 100, 150, 200, 300]
SCALES = [10.0**e for e in EXPONENTS]


def grid(points):
    """Every point with every direction scale, the direction's sign alternating."""
    return [(x, (-1.0) ** (i + j) * v) for i, x in enumerate(points) for j, v in enumerate(SCALES)]


POSITIVE = SCALES
SIGNED = [(-1.0) ** i * s for i, s in enumerate(SCALES)]
# The issue's points: x = v at 1e40 and 1e-45 (and for the recurrences 1e200).
ISSUE = [(1e40, 1e40), (1e-45, 1e-45), (1e200, 1e200), (-1e200, 1e200), (1e-200, 1e-200)]


def falling(c, k):
    p = mpf(1)
    for i in range(k):
        p *= c - i
    return p


def power(c):
    def coefficients(x, v):
        return [falling(c, k) / mpmath.factorial(k) * x ** (c - k) * v**k for k in range(ORDER + 1)]

    return coefficients


def cbrt(x, v):
    y = mpmath.cbrt(x) if x >= 0 else -mpmath.cbrt(-x)
    third = mpf(1) / 3
    return [falling(third, k) / mpmath.factorial(k) * y * (v / x) ** k for k in range(ORDER + 1)]


def logarithm(base, shift):
    def coefficients(x, v):
        q = shift + x
        scale = 1 / mpmath.log(base)
        return [mpmath.log(q) * scale] + [
            (-1) ** (k - 1) / mpf(k) * (v / q) ** k * scale for k in range(1, ORDER + 1)
        ]

    return coefficients


def orthogonal(first, step, n):
    """Term n of a three-term recurrence: p_0 = 1, p_1 = first, p_m = step(m, p_{m-1}, p_{m-2})."""
    below, p = mpf(1), first
    if n == 0:
        return below
    for m in range(2, n + 1):
        below, p = p, step(m, p, below)
    return p


def chebyshev_u(n, z):
    return orthogonal(2 * z, lambda m, p, q: 2 * z * p - q, n)


def legendre(n, z):
    return orthogonal(z, lambda m, p, q: ((2 * m - 1) * z * p - (m - 1) * q) / m, n)


def gegenbauer(n, lam, z):
    return orthogonal(2 * lam * z, lambda m, p, q: (2 * z * (m + lam - 1) * p - (m + 2 * lam - 2) * q) / m, n)


def hermite(n, x):
    return orthogonal(2 * x, lambda m, p, q: 2 * x * p - 2 * (m - 1) * q, n)


def checked(factor):
    """A polynomial factor, or None at one of its zeros."""
    return None if abs(factor) < ZERO else factor


def atan(x, v):
    rho = mpmath.sqrt(1 + x * x)
    z = -x / rho
    out = [(mpmath.atan(x), None)]
    for k in range(1, ORDER + 1):
        u = checked(chebyshev_u(k - 1, z))
        size = abs(v) ** k / rho ** (k + 1)
        out.append((None if u is None else u * v**k / (k * rho ** (k + 1)), size))
    return out


def inverse_hyperbolic(value, rho_of, bounded):
    """asinh (|z| < 1: |P| <= 1) and acosh (|z| > 1: no zeros, no bound)."""

    def coefficients(x, v):
        rho = rho_of(x)
        z = -x / rho
        out = [(value(x), None)]
        for k in range(1, ORDER + 1):
            p = checked(legendre(k - 1, z))
            size = abs(v) ** k / (k * rho**k) if bounded else None
            out.append((None if p is None else p * v**k / (k * rho**k), size))
        return out

    return coefficients


def erf(x, v):
    gauss = 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x)
    out = [(mpmath.erf(x), None)]
    for k in range(1, ORDER + 1):
        h = checked(hermite(k - 1, x))
        positive = orthogonal(2 * abs(x), lambda m, p, q: 2 * abs(x) * p + 2 * (m - 1) * q, k - 1)
        scale = gauss * abs(v) ** k / mpmath.factorial(k)
        out.append((None if h is None else (-1) ** (k - 1) * h * gauss * v**k / mpmath.factorial(k), positive * scale))
    return out


def plane(x, y, v, w):
    h = mpmath.sqrt(x * x + y * y)
    n = mpmath.sqrt(v * v + w * w)
    return h, n, -(x * v + y * w) / (h * n)


def hypot(x, y, v, w):
    h, n, z = plane(x, y, v, w)
    out = [(h, None)]
    for k in range(1, ORDER + 1):
        c = checked(gegenbauer(k, mpf(-0.5), z))
        out.append((None if c is None else h * c * (n / h) ** k, h * (n / h) ** k))
    return out


def atan2(x, y, v, w):
    h, n, z = plane(x, y, v, w)
    numerator = y * v - x * w
    out = [(mpmath.atan2(x, y), None)]
    for k in range(1, ORDER + 1):
        u = checked(chebyshev_u(k - 1, z))
        value = None if u is None else numerator / k * u * n ** (k - 1) / h ** (k + 1)
        out.append((value, (n / h) ** k))
    return out


CLOSED = [
    ("sqrt(x)", grid(POSITIVE) + ISSUE[:2], power(mpf(1) / 2)),
    ("cbrt(x)", grid(SIGNED) + ISSUE[:2], cbrt),
    ("log(x)", grid(POSITIVE) + ISSUE[:2], logarithm(mpmath.e, 0)),
    ("log2(x)", grid(POSITIVE), logarithm(2, 0)),
    ("log10(x)", grid(POSITIVE), logarithm(10, 0)),
    ("log1p(x)", grid(POSITIVE + [-0.5, -1e-10, -(1.0 - 2.0**-20)]), logarithm(mpmath.e, 1)),
    ("1/x", grid(SIGNED) + ISSUE[:2], power(-1)),
    ("x^2.5", grid(POSITIVE), power(mpf(5) / 2)),
    ("x^7.5", grid(POSITIVE), power(mpf(15) / 2)),
    ("x^0.3", grid(POSITIVE), power(mpf(0.3))),  # the double nearest 0.3, as dstar reads it
    ("x^-0.5", grid(POSITIVE), power(-mpf(1) / 2)),
    ("x^-3", grid(SIGNED), power(-3)),
]

ABOVE_ONE = [1.0 + 2.0**-20, 1.5] + [s for s in SCALES if s > 1]
RECURRENCES = [
    ("atan(x)", grid(SIGNED) + ISSUE, atan),
    ("asinh(x)", grid(SIGNED) + ISSUE, inverse_hyperbolic(mpmath.asinh, lambda x: mpmath.sqrt(1 + x * x), True)),
    ("acosh(x)", grid(ABOVE_ONE) + ISSUE[2:3], inverse_hyperbolic(mpmath.acosh, lambda x: mpmath.sqrt(x * x - 1), False)),
    ("erf(x)", grid(SIGNED + [20.0, -26.0]), erf),
]

PLANE = [10.0**e for e in [-300, -150, -45, 0, 40, 150, 300]]
PLANE_POINTS = [((-1.0) ** i * x, y) for i, x in enumerate(PLANE) for y in PLANE]
# Along x alone, and along a direction of both.
PLANE_DIRECTIONS = [d for s in PLANE for d in [(s, 0.0), (0.6 * s, -0.8 * s)]]
BINARY = [
    ("atan2(x, y)", atan2),
    ("hypot(x, y)", hypot),
]


def literal(value):
    """The nearest double (inf past the range), `_` for an exact zero."""
    if value is None:
        return "_"
    if abs(value) > mpf(1.7976931348623157e308) * (1 + mpf(2) ** -54):
        return "inf" if value > 0 else "-inf"
    x = float(value)  # rounds to nearest, subnormals included
    if x == 0.0:
        return "-0.0" if value < 0 else "0.0"
    return repr(x)


def line(kind, source, point, direction, values):
    """`values`: plain truths (closed forms) or (truth, natural size or None)."""
    pairs = [v if isinstance(v, tuple) else (v, None) for v in values]
    cells = " ".join(literal(v) for v, _ in pairs)
    sizes = " ".join("=" if size is None else literal(size) for _, size in pairs)
    p = ",".join(repr(c) for c in point)
    d = ",".join(repr(c) for c in direction)
    return f"{kind}|{source}|{p}|{d}|{cells}|{sizes}"


def check():
    """Every formula against mpmath.taylor at moderate points, 40 digits."""
    worst = mpf(0)
    with mp.workdps(60):
        for source, points, coefficients in CLOSED + RECURRENCES:
            x, v = (mpf("1.7"), mpf("-0.45")) if source != "log1p(x)" else (mpf("-0.3"), mpf("0.45"))
            f = FUNCTIONS[source]
            want = mpmath.taylor(lambda t: f(x + v * t), 0, ORDER)
            got = [g[0] if isinstance(g, tuple) else g for g in coefficients(x, v)]
            worst = max(worst, max(abs(g - w) / abs(w) for g, w in zip(got, want) if g is not None))
        for source, coefficients in BINARY:
            x, y, v, w = mpf("0.9"), mpf("-1.3"), mpf("0.35"), mpf("0.7")
            f = FUNCTIONS[source]
            want = mpmath.taylor(lambda t: f(x + v * t, y + w * t), 0, ORDER)
            got = [g[0] for g in coefficients(x, y, v, w)]
            worst = max(worst, max(abs(g - w) / abs(w) for g, w in zip(got, want) if g is not None))
    assert worst < mpf(10) ** -40, worst
    print(f"largest relative difference from mpmath.taylor: {mpmath.nstr(worst, 3)}")


FUNCTIONS = {
    "sqrt(x)": mpmath.sqrt,
    "cbrt(x)": mpmath.cbrt,
    "log(x)": mpmath.log,
    "log2(x)": lambda x: mpmath.log(x, 2),
    "log10(x)": mpmath.log10,
    "log1p(x)": mpmath.log1p,
    "1/x": lambda x: 1 / x,
    "x^2.5": lambda x: x ** (mpf(5) / 2),
    "x^7.5": lambda x: x ** (mpf(15) / 2),
    "x^0.3": lambda x: x ** mpf(0.3),
    "x^-0.5": lambda x: x ** (-mpf(1) / 2),
    "x^-3": lambda x: x**-3,
    "atan(x)": mpmath.atan,
    "asinh(x)": mpmath.asinh,
    "acosh(x)": mpmath.acosh,
    "erf(x)": mpmath.erf,
    "atan2(x, y)": mpmath.atan2,
    "hypot(x, y)": lambda x, y: mpmath.sqrt(x * x + y * y),
}


def main():
    print("# Generated by references.py (mpmath, 800 digits): do not edit.")
    print("# class|source|point|direction|c0 c1 ... c8|natural sizes (=: the truth's magnitude)")
    for kind, table in [("closed", CLOSED), ("recurrence", RECURRENCES)]:
        for source, points, coefficients in table:
            for x, v in dict.fromkeys(points):  # once each, in order
                print(line(kind, source, [x], [v], coefficients(mpf(x), mpf(v))))
    for source, coefficients in BINARY:
        for x, y in PLANE_POINTS:
            for v, w in PLANE_DIRECTIONS:
                print(line("recurrence", source, [x, y], [v, w], coefficients(mpf(x), mpf(y), mpf(v), mpf(w))))


if __name__ == "__main__":
    import sys

    if "--check" in sys.argv:
        check()
    else:
        main()
