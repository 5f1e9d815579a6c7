"""Shared helpers: the repository's problem corpora and finite differences."""

import json
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
NLP = sorted((REPO / "tests" / "nlp").glob("*.dstar"))
CORPUS = sorted((REPO / "tests" / "corpus").glob("*.dstar"))


def reference(path):
    """The problem text and its `.ref.json` (values computed by another system)."""
    return path.read_text(), json.loads(path.with_suffix(".ref.json").read_text())


def central_jacobian(f, x, h=1e-6):
    """Central differences of the values: (m, n)."""
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h * max(1.0, abs(x[k]))
        cols.append((f(x + e) - f(x - e)) / (2 * e[k]))
    return np.stack(cols, axis=-1)


def close(a, b, tol):
    """|a - b| <= tol * (1 + |b|), elementwise."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    err = np.abs(a - b) / (1.0 + np.abs(b))
    assert np.all(err <= tol), f"max relative error {err.max():.3e} > {tol:.1e}"


@pytest.fixture
def rng():
    return np.random.default_rng(20261124)


# Random smooth functions, defined on all of R^n (no domain to leave), for
# tests over a class of functions rather than a few examples.
_UNARY = ["sin({})", "cos({})", "tanh({})", "atan({})", "sqrt(1 + {}^2)", "log(1 + {}^2)"]
_BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / (1 + {}^2)"]


def random_expression(rng, names, depth):
    """Expression text over `names`: a random tree `depth` deep, variables
    appearing in random order (so parsing creates them between operations)."""
    if depth == 0 or rng.random() < 0.2:
        return str(rng.choice(names)) if rng.random() < 0.85 else f"{rng.uniform(0.5, 2):.3f}"
    if rng.random() < 0.4:
        return "(" + str(rng.choice(_UNARY)).format(random_expression(rng, names, depth - 1)) + ")"
    a, b = (random_expression(rng, names, depth - 1) for _ in range(2))
    return "(" + str(rng.choice(_BINARY)).format(a, b) + ")"


def random_program(rng, n_in, n_out, n_temps=12):
    """Problem text: `n_in` inputs, `n_temps` shared temporaries over the
    inputs and earlier temporaries, `n_out` outputs over all of them (some
    outputs miss some inputs: sparse Jacobians and Hessians)."""
    names = [f"x{k}" for k in range(n_in)]
    lines = ["in " + ", ".join(names)]
    for t in range(n_temps):
        lines.append(f"t{t} = {random_expression(rng, names, 2)}")
        names.append(f"t{t}")
    for k in range(n_out):
        lines.append(f"out f{k} = {random_expression(rng, names, 3)} + {random_expression(rng, names, 3)}")
    return "\n".join(lines) + "\n"
