"""The README's Python section as a new user meets it: its install line and
its snippet, verbatim; the package's version."""

import pathlib
import re

import pytest

import dstar


README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def readme_python():
    """The install command and the code of the README's Python section."""
    section = README.read_text().split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    install = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    return install, code


@pytest.mark.skipif(not README.exists(), reason="run from a checkout")
def test_readme_python_snippet_runs_as_written():
    """Issue 31: the README's snippet, verbatim."""
    _, code = readme_python()
    try:
        exec(compile(code, str(README), "exec"), {})
    finally:
        dstar.set_num_threads(None)


@pytest.mark.skipif(not README.exists(), reason="run from a checkout")
def test_readme_install_line_installs_what_the_snippet_needs():
    """Issue 31: the snippet's sparse=True needs SciPy, which `pip install
    ./python` did not install: the install line's extras bring it."""
    tomllib = pytest.importorskip("tomllib")
    install, code = readme_python()
    project = tomllib.loads((README.parent / "python" / "pyproject.toml").read_text())["project"]
    command = next(line for line in install.splitlines() if line.startswith("pip install"))
    extras = re.search(r"python\[([^\]]*)\]", command)
    requirements = list(project["dependencies"])
    for extra in extras.group(1).split(",") if extras else []:
        requirements += project["optional-dependencies"][extra.strip()]
    names = {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requirements}
    assert "numpy" in names
    if "sparse=True" in code:
        assert "scipy" in names, f"{command!r} installs {sorted(names)}"


def test_version_is_the_package_version():
    """Issue 31: dstar.__version__ was missing."""
    from importlib.metadata import version

    assert dstar.__version__ == version("dstar")
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", dstar.__version__)
