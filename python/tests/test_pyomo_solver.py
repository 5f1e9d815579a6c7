"""``dstar-ipopt`` as Pyomo calls it (issue 38): ``SolverFactory(
"asl:dstar-ipopt", executable=...)`` solves Pyomo models through `.nl` and
`.sol` files, with the statuses, values and duals IPOPT's own AMPL driver
gives; checked against CasADi's IPOPT, closed-form optima and Pyomo's own
differentiation (the KKT residual)."""

import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

from nl_models import (
    HS71_F,
    MAXIMIZATION,
    RANGES,
    casadi_hs71,
    casadi_indexed,
    constraints_only,
    executable,
    hs71,
    indexed,
    infeasible,
    kkt_residual,
    maximization,
    pe,
    ranges,
    require_ipopt,
)
from dstar import ampl

TC = pe.TerminationCondition


def solve(model, **options):
    """``model`` solved by dstar-ipopt through Pyomo, duals and bound
    multipliers imported: the results."""
    require_ipopt()
    model.dual = pe.Suffix(direction=pe.Suffix.IMPORT)
    model.ipopt_zL_out = pe.Suffix(direction=pe.Suffix.IMPORT)
    model.ipopt_zU_out = pe.Suffix(direction=pe.Suffix.IMPORT)
    solver = pe.SolverFactory("asl:dstar-ipopt", executable=executable())
    solver.options.update({"tol": 1e-10, **options})
    return solver.solve(model, load_solutions=False)


def load(model, results):
    """Loads the solution and checks the KKT conditions by Pyomo's own
    differentiation."""
    model.solutions.load_from(results)
    residual = kkt_residual(model, model.dual, model.ipopt_zL_out, model.ipopt_zU_out)
    assert np.abs(residual).max() < 1e-6, residual


def test_version_is_printed_and_pyomo_accepts_it():
    out = subprocess.run([executable(), "-v"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("dstar-ipopt ") and "IPOPT" in out
    version = pe.SolverFactory("asl:dstar-ipopt", executable=executable()).version()
    assert version is not None and version[:3] == tuple(int(v) for v in ampl.version().split()[1].split("."))


def test_hs71_optimal_with_ipopts_duals():
    model = hs71()
    results = solve(model)
    assert results.solver.termination_condition == TC.optimal
    load(model, results)
    assert abs(pe.value(model.obj) - HS71_F) < 1e-6
    reference = casadi_hs71()
    np.testing.assert_allclose([model.x[i].value for i in model.I], reference["x"], atol=1e-7)
    # IPOPT's AMPL driver writes -lambda for a minimization.
    duals = [model.dual[model.product], model.dual[model.squares]]
    np.testing.assert_allclose(duals, -reference["lam_g"], atol=1e-6)
    z = [model.ipopt_zL_out.get(model.x[i], 0.0) + model.ipopt_zU_out.get(model.x[i], 0.0) for i in model.I]
    np.testing.assert_allclose(z, -reference["lam_x"], atol=1e-6)


def test_indexed_50_variables_optimal_with_ipopts_duals():
    model = indexed(50)
    results = solve(model)
    assert results.solver.termination_condition == TC.optimal
    load(model, results)
    reference = casadi_indexed(50)
    assert abs(pe.value(model.obj) - reference["f"][0]) < 1e-8
    np.testing.assert_allclose([model.x[i].value for i in model.I], reference["x"], atol=1e-6)
    duals = [model.dual[c] for c in (model.ball, model.total, model.growth)]
    np.testing.assert_allclose(duals, -reference["lam_g"], atol=1e-6)


def test_maximization_duals_and_ranges():
    model = maximization()
    results = solve(model)
    assert results.solver.termination_condition == TC.optimal
    load(model, results)
    np.testing.assert_allclose([model.x[i].value for i in model.x], MAXIMIZATION["x"], atol=1e-7)
    np.testing.assert_allclose([model.dual[model.total], model.dual[model.range]], MAXIMIZATION["duals"], atol=1e-6)
    model = ranges()
    load(model, solve(model))
    np.testing.assert_allclose([model.x.value, model.y.value, model.z.value], RANGES["x"], atol=1e-8)
    assert model.dual[model.band] == pytest.approx(RANGES["duals"]["band"], abs=1e-7)
    assert model.dual[model.link] == pytest.approx(RANGES["duals"]["link"], abs=1e-7)


def test_constraints_only_model_is_solved():
    model = constraints_only()
    results = solve(model)
    assert results.solver.termination_condition == TC.optimal
    model.solutions.load_from(results)
    for c in model.component_data_objects(pe.Constraint):
        assert abs(pe.value(c.body) - c.upper) < 1e-8


def test_infeasible_model_is_infeasible():
    results = solve(infeasible())
    assert results.solver.termination_condition == TC.infeasible


def test_max_iter_1_is_max_iterations():
    results = solve(hs71(), max_iter=1)
    assert results.solver.termination_condition == TC.maxIterations
    assert "Maximum Number of Iterations Exceeded" in results.solver.message


def test_sol_file_is_what_ipopts_driver_writes(tmp_path):
    """The .sol layout of the ASL's write_sol: message, Options with the
    header's options and the counts, duals, primal values, objno."""
    require_ipopt()
    path = tmp_path / "m.nl"
    hs71().write(str(path))
    command = [executable(), str(path), "-AMPL", "tol=1e-10", "print_level=0"]
    out = subprocess.run(command, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "m.sol").read_text().splitlines()
    assert lines[0].startswith("dstar-ipopt ") and lines[0].endswith(": Optimal Solution Found")
    options_at = lines.index("Options")
    assert lines[options_at : options_at + 9] == ["Options", "3", "1", "1", "0", "2", "2", "4", "4"]
    assert lines[options_at + 15] == "objno 0 0"


def test_options_from_the_environment_and_arguments(tmp_path, monkeypatch):
    """``key=value`` arguments win over the environment's options; numbers
    reach IPOPT with their registered type (tol=1 is a number)."""
    require_ipopt()
    path = tmp_path / "m.nl"
    hs71().write(str(path))
    monkeypatch.setenv("dstar-ipopt_options", "max_iter=1 print_level=0")
    subprocess.run([executable(), str(path.with_suffix("")), "-AMPL"], check=True, capture_output=True)
    assert "objno 0 400" in (tmp_path / "m.sol").read_text()
    subprocess.run([executable(), str(path), "-AMPL", "max_iter=100", "tol=1"], check=True, capture_output=True)
    assert "objno 0 0" in (tmp_path / "m.sol").read_text()


def test_bad_command_lines_and_files_fail_without_a_sol(tmp_path):
    assert subprocess.run([executable()], capture_output=True).returncode == 2
    out = subprocess.run([executable(), str(tmp_path / "absent"), "-AMPL"], capture_output=True, text=True)
    assert out.returncode == 1 and "absent.nl" in out.stderr
    assert not (tmp_path / "absent.sol").exists()


def test_readme_pyomo_snippet_runs_as_written(tmp_path, monkeypatch):
    """The README's Pyomo example, verbatim, with dstar-ipopt on PATH."""
    require_ipopt()
    readme = pathlib.Path(__file__).resolve().parents[2] / "README.md"
    section = readme.read_text().split("\n### Pyomo and AMPL models", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.setenv("PATH", os.path.dirname(executable()) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(readme), "exec"), {})
    assert (tmp_path / "hs71.nl").exists()
