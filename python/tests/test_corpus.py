"""Every problem of the repository's corpora against its reference values
(computed by CasADi; the Rust tests hold the compiled kernels to the same
references at 1e-9): values, Jacobians, Lagrangian Hessians."""

import numpy as np
import pytest

import dstar
from conftest import CORPUS, NLP, close, reference


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_values_and_jacobians(path):
    text, ref = reference(path)
    f = dstar.compile(text)
    x = np.array(ref["point"])
    close(f(x), ref["values"], 1e-9)
    close(f.jacobian(x), np.array(ref["jacobian"]), 1e-9)
    close(f.jacobian(x, sparse=True).toarray(), np.array(ref["jacobian"]), 1e-9)


@pytest.mark.parametrize("path", NLP, ids=lambda p: p.stem)
def test_nlp_lagrangian_hessians(path):
    text, ref = reference(path)
    f = dstar.compile(text)
    x, w = np.array(ref["point"]), np.array(ref["weights"])
    close(f(x), ref["values"], 1e-9)
    J = f.jacobian(x, sparse=True)
    close(J.toarray(), np.array(ref["jacobian"]), 1e-9)
    H = np.array(ref["lagrangian_hessian"])
    close(f.hessian(x, weights=w), H, 1e-9)
    lower = f.hessian(x, weights=w, sparse=True)
    close(lower.toarray(), np.tril(H), 1e-9)
    close(f.vjp(x, w), w @ np.array(ref["jacobian"]), 1e-9)
    v = np.linspace(-1, 1, f.n_in)
    close(f.hvp(x, v, weights=w), H @ v, 1e-9)
    close(f.jvp(x, v), np.array(ref["jacobian"]) @ v, 1e-9)
