"""The type stubs list exactly the functions of the Rust op table."""

import ast
import pathlib

import dstar

STUB = pathlib.Path(dstar.__file__).with_name("__init__.pyi")


def test_stub_functions_are_the_op_table():
    tree = ast.parse(STUB.read_text())
    stubbed = {node.name: len(node.args.args) for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert stubbed == dict(dstar.FUNCTIONS)


def test_every_public_name_has_a_docstring():
    for name in dstar.__all__:
        obj = getattr(dstar, name)
        if callable(obj):
            assert obj.__doc__, name
