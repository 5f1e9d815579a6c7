"""The examples in the docstrings run and print what they say."""

import doctest

import numpy as np
import pytest

import dstar
import dstar._dstar
import dstar.nlp

pytest.importorskip("dask.array")
import dstar.dask  # noqa: E402


@pytest.mark.parametrize("module", [dstar, dstar._dstar, dstar.dask, dstar.nlp], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(module, globs={"dstar": dstar, "np": np, "numpy": np})
    examples = sum(len(t.examples) for t in tests)
    assert examples > 0
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed"
