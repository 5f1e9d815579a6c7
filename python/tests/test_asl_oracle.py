"""dstar's derivatives of `.nl` models against AMPL's Solver Library (issue
38): ``gjh_asl_json`` (Debian's gjh-asl-json, a "solver" built on the ASL)
writes the objective's gradient, the constraints' Jacobian and the
Lagrangian's Hessian at the file's starting point to JSON. For each
Pyomo-written model of nl_models.py, in text and rewritten in binary
(frontend/tests/nl/to_binary.py), the ASL reads both alike, and dstar's
values, gradient, Jacobian and Hessian of either file match the ASL's to
1e-10 relative.

The test skips when ``gjh_asl_json`` is missing, unless ``CI`` is set
(.ci/run installs it, and there it must run)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import dstar
from nl_models import chain, hs71, indexed, infeasible, maximization, ranges, write_nl

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "frontend" / "tests" / "nl"))
from to_binary import to_binary  # noqa: E402

# constraints_only is left out: gjh_asl_json needs an objective.
MODELS = {"hs71": hs71, "indexed": indexed, "chain": chain, "maximization": maximization, "ranges": ranges}
MODELS["infeasible"] = infeasible
TOL = 1e-10


def gjh():
    """The ``gjh_asl_json`` executable, or a skip (a failure under CI)."""
    found = shutil.which("gjh_asl_json")
    if found is None:
        message = "gjh_asl_json is not installed (apt-get install gjh-asl-json)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def asl_evaluation(path):
    """What the ASL computes for the `.nl` file at ``path``: the point and
    multipliers it evaluates at and the JSON's ``initial evaluations``."""
    subprocess.run([gjh(), str(path)], check=True, capture_output=True, cwd=path.parent)
    with open(path.with_suffix(".json")) as f:
        report = json.load(f)
    n = report["problem statistics"]["total no. of variables"]
    m = report["problem statistics"]["total no. of constraints"]
    supplied, assumed = report["supplied starting points"], report["assumed starting points"]
    x = np.array([supplied["primal"].get(str(j), assumed["primal"]) for j in range(n)], dtype=float)
    y = np.array([supplied["dual"].get(str(i), assumed["dual"]) for i in range(m)], dtype=float)
    return x, y, report["initial evaluations"]


def dense(entries, shape):
    """A matrix from the JSON's ``{"i_j": value}``."""
    a = np.zeros(shape)
    for key, value in entries.items():
        i, j = map(int, key.split("_"))
        a[i, j] = value
    return a


def assert_close(got, want, what):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    scale = np.maximum(np.abs(want), 1.0)
    worst = np.max(np.abs(got - want) / scale, initial=0.0)
    assert worst <= TOL, f"{what}: relative difference {worst:.3g}"


def write_both(name, tmp_path):
    """The model's text `.nl` file and its binary rewriting."""
    text = write_nl(MODELS[name](), tmp_path / f"{name}.nl")
    binary = tmp_path / "binary" / f"{name}.nl"
    binary.parent.mkdir(exist_ok=True)
    binary.write_bytes(to_binary(text.read_text()))
    return text, binary


@pytest.mark.parametrize("name", sorted(MODELS))
def test_derivatives_match_the_asl(name, tmp_path):
    text, binary = write_both(name, tmp_path)
    x, y, asl = asl_evaluation(text)
    x_binary, y_binary, asl_binary = asl_evaluation(binary)
    assert asl_binary == asl and (x_binary == x).all() and (y_binary == y).all(), "the ASL reads the binary as the text"
    objective = asl["objective function"]["0"]
    for path in (text, binary):
        nlp = dstar.NLP.from_nl(path)
        label = f"{name} ({'binary' if path == binary else 'text'})"
        values = nlp.values(x)
        assert_close(values[0], objective["value"], f"{label}: objective")
        assert_close(values[1:], [asl["constraints"][str(i)] for i in range(nlp.m)], f"{label}: constraints")
        gradient = dense({f"0_{j}": v for j, v in objective["gradient"].items()}, (1, nlp.n))[0]
        assert_close(nlp.gradient(x), gradient, f"{label}: gradient")
        jacobian = dense(asl["constraints' jacobian"], (nlp.m, nlp.n))
        assert_close(nlp.jacobian(x).toarray(), jacobian, f"{label}: Jacobian")
        hessian = dense(objective["lagrangian hessian"], (nlp.n, nlp.n))
        got = nlp.hessian(x, obj_factor=1.0, lam=y, symmetric=True).toarray()
        assert_close(got, hessian, f"{label}: Lagrangian Hessian")
