"""AMPL `.nl` files in Python (issue 38): ``dstar.NLP.from_nl`` on files
Pyomo writes solves to the references of nl_models.py with no argument
but the path (bounds, ranges, starting point and sense from the file);
``dstar.compile`` takes an `.nl` file's text; bad files raise ParseError
at their line."""

import numpy as np
import pytest

import dstar
from nl_models import (
    HS71_F,
    HS71_X,
    MAXIMIZATION,
    RANGES,
    casadi_chain,
    casadi_hs71,
    casadi_indexed,
    chain,
    constraints_only,
    hs71,
    indexed,
    maximization,
    ranges,
    require_ipopt,
    write_nl,
)

TOL = {"tol": 1e-10}


def by_name(nlp, values, names):
    """``values`` (one per variable or constraint of ``nlp``) in the order of ``names``."""
    order = nlp.var_names if len(values) == nlp.n else nlp.constraint_names
    return np.array([values[order.index(name)] for name in names])


def test_from_nl_reads_bounds_ranges_start_and_names(tmp_path):
    nlp = dstar.NLP.from_nl(write_nl(hs71(), tmp_path / "hs71.nl"))
    assert (nlp.n, nlp.m, nlp.sense) == (4, 2, "min")
    assert sorted(nlp.var_names) == ["x[1]", "x[2]", "x[3]", "x[4]"]
    assert nlp.objective_name == "obj"
    np.testing.assert_array_equal(nlp.lbx, 1.0)
    np.testing.assert_array_equal(nlp.ubx, 5.0)
    np.testing.assert_array_equal(by_name(nlp, nlp.x0, ["x[1]", "x[2]", "x[3]", "x[4]"]), [1, 5, 5, 1])
    np.testing.assert_array_equal(by_name(nlp, nlp.lbg, ["product", "squares"]), [25, 40])
    np.testing.assert_array_equal(by_name(nlp, nlp.ubg, ["product", "squares"]), [np.inf, 40])
    assert nlp.function.input_names == [name.replace("[", "_").replace("]", "") for name in nlp.var_names]


def test_hs71_solves_with_no_arguments_to_the_known_optimum(tmp_path):
    require_ipopt()
    nlp = dstar.NLP.from_nl(write_nl(hs71(), tmp_path / "hs71.nl"))
    sol = nlp.solve(options=TOL)
    assert sol["status"] == "Solve_Succeeded"
    assert abs(sol["f"] - HS71_F) < 1e-6
    np.testing.assert_allclose(by_name(nlp, sol["x"], ["x[1]", "x[2]", "x[3]", "x[4]"]), HS71_X, atol=1e-7)
    reference = casadi_hs71()
    np.testing.assert_allclose(by_name(nlp, sol["lam_g"], ["product", "squares"]), reference["lam_g"], atol=1e-6)


def test_indexed_model_with_shared_expressions_matches_casadi(tmp_path):
    require_ipopt()
    nlp = dstar.NLP.from_nl(write_nl(indexed(50), tmp_path / "indexed.nl"))
    sol = nlp.solve(options=TOL)
    reference = casadi_indexed(50)
    assert sol["success"]
    assert abs(sol["f"] - reference["f"][0]) < 1e-8
    np.testing.assert_allclose(by_name(nlp, sol["x"], [f"x[{i}]" for i in range(50)]), reference["x"], atol=1e-6)
    names = ["ball", "total", "growth"]
    np.testing.assert_allclose(by_name(nlp, sol["lam_g"], names), reference["lam_g"], atol=1e-6)


def test_cops_chain_reaches_casadis_optimum(tmp_path):
    require_ipopt()
    nlp = dstar.NLP.from_nl(write_nl(chain(20), tmp_path / "chain.nl"))
    sol = nlp.solve(options=TOL)
    assert sol["success"]
    assert abs(sol["f"] - casadi_chain(20)) < 1e-8


def test_maximization_is_maximized_and_reports_its_own_objective(tmp_path):
    require_ipopt()
    nlp = dstar.NLP.from_nl(write_nl(maximization(), tmp_path / "max.nl"))
    assert nlp.sense == "max"
    sol = nlp.solve(options=TOL)
    assert sol["success"]
    np.testing.assert_allclose(by_name(nlp, sol["x"], ["x[0]", "x[1]", "x[2]"]), MAXIMIZATION["x"], atol=1e-7)
    assert abs(sol["f"] - MAXIMIZATION["f"]) < 1e-8
    # lam_g are those of minimizing -f: AMPL's duals (-lam_g of min) are +lam_g here.
    np.testing.assert_allclose(by_name(nlp, sol["lam_g"], ["total", "range"]), MAXIMIZATION["duals"], atol=1e-6)
    assert nlp.solve(solver="slsqp")["f"] == pytest.approx(MAXIMIZATION["f"], abs=1e-6)


def test_ranges_equalities_and_moved_constants(tmp_path):
    require_ipopt()
    nlp = dstar.NLP.from_nl(write_nl(ranges(), tmp_path / "ranges.nl"))
    np.testing.assert_array_equal(by_name(nlp, nlp.lbg, ["band", "link"]), [-1, 0.5])
    np.testing.assert_array_equal(by_name(nlp, nlp.ubg, ["band", "link"]), [1, 0.5])
    sol = nlp.solve(options=TOL)
    np.testing.assert_allclose(by_name(nlp, sol["x"], ["x", "y", "z"]), RANGES["x"], atol=1e-8)
    assert abs(sol["f"] - RANGES["f"]) < 1e-7
    duals = -by_name(nlp, sol["lam_g"], ["band", "link"])
    np.testing.assert_allclose(duals, [RANGES["duals"]["band"], RANGES["duals"]["link"]], atol=1e-7)


def test_constraints_only_model_finds_a_feasible_point(tmp_path):
    require_ipopt()
    nlp = dstar.NLP.from_nl(write_nl(constraints_only(), tmp_path / "feasible.nl"))
    assert (nlp.sense, nlp.objective_name, nlp.function.output_names[0]) == ("min", None, "obj")
    sol = nlp.solve(options=TOL)
    assert sol["success"] and sol["f"] == 0.0
    x1, x2, x3 = by_name(nlp, sol["x"], ["x[1]", "x[2]", "x[3]"])
    np.testing.assert_allclose([x1**2 + x2**2, x1 + x2 + x3, x3 - np.log(x1 + 3) * x2], [2, 1, 0], atol=1e-8)


def test_compile_takes_the_text_of_an_nl_file(tmp_path):
    path = write_nl(hs71(), tmp_path / "hs71.nl")
    f = dstar.compile(path.read_text())
    assert f.input_names == ["x0", "x1", "x2", "x3"]
    assert f.output_names == ["obj", "c0", "c1"]
    from_file = dstar.NLP.from_nl(path).function
    x = np.array([1.2, 4.6, 4.1, 1.5])
    np.testing.assert_array_equal(f(x), from_file(x))
    with pytest.raises(ValueError, match="inputs="):
        dstar.compile(path.read_text(), inputs=["a"])


def test_bad_files_raise_parse_errors_at_their_line(tmp_path):
    path = write_nl(hs71(), tmp_path / "hs71.nl")
    lines = path.read_text().splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("o2"))
    lines[at] = "o74"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(dstar.ParseError, match="o74") as e:
        dstar.NLP.from_nl(path)
    assert e.value.line == at + 1
    with pytest.raises(FileNotFoundError, match="absent.nl"):
        dstar.NLP.from_nl(tmp_path / "absent.nl")
