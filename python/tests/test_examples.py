"""The NLP example: dstar's derivatives drive IPOPT to CasADi's optimum.
Skipped unless cyipopt and casadi are installed (CI installs neither)."""

import sys

import numpy as np
import pytest

from conftest import REPO

pytest.importorskip("cyipopt")
pytest.importorskip("casadi")
sys.path.insert(0, str(REPO / "examples" / "python"))
import solve_nlp  # noqa: E402


@pytest.mark.parametrize("name", ["hs071", "cartpole_20"])
def test_ipopt_with_dstar_matches_casadi(name):
    text = (solve_nlp.NLP / f"{name}.dstar").read_text()
    x0 = solve_nlp._point(text, None)
    ours = solve_nlp.solve_dstar_ipopt(name, text, x0)
    theirs = solve_nlp.solve_casadi(name, text, x0)
    assert theirs["status"] == "Solve_Succeeded"
    assert np.max(np.abs(ours["x"] - theirs["x"])) < 1e-6
    assert abs(ours["f"] - theirs["f"]) < 1e-6 * (1 + abs(theirs["f"]))
