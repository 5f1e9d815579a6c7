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
