"""dstar: exact Jacobians, Hessians and derivative products, compiled to
native code.

Two ways in:

* text: ``dstar.compile("sin(x*y) + x^2")`` or a problem file
  (``in x, y`` / ``out f = ...``);
* a symbolic builder: ``x, y = dstar.symbols("x y")``, operators and
  ``dstar.sin`` ..., then ``dstar.Function([x, y], [expr, ...])``.

A :class:`Function` evaluates values, Jacobians (dense or
``scipy.sparse``), Hessians of the Lagrangian, ``J@v``, ``w@J`` and
``H@v`` (one direction or ``k`` per call) at one point ``(n,)`` or a batch
``(B, n)`` (all cores, or :func:`set_num_threads`; GIL released).
Parameters (``param`` lines of a file, ``params=`` of the builder) are
data given with each call as ``p=``, never differentiated. Errors are
ordinary exceptions: :class:`ParseError` (a ``ValueError``) for text that
does not parse, and :class:`InternalError` (a ``RuntimeError``) for a bug
of dstar, never pyo3's ``PanicException``.

>>> import dstar, numpy as np
>>> f = dstar.compile("sin(x*y) + x^2")
>>> f.jacobian(np.array([1.0, 2.0]))
array([[ 1.16770633, -0.41614684]])
>>> x, y = dstar.symbols("x y")
>>> g = dstar.Function([x, y], [dstar.sin(x * y) + x**2])
>>> g.source() == f.source().replace("out f", "out out1")
True
"""

from ._dstar import (
    Condition,
    Expr,
    Function,
    InternalError,
    Map,
    ParseError,
    __version__,
    compile,
    derivative,
    functions as _functions,
    hessian_source,
    ifelse,
    jacobian_source,
    num_threads,
    set_num_threads,
    symbols,
    vector,
)
from ._dstar import apply_function as _apply
from .nlp import NLP

__all__ = [
    "Condition",
    "Expr",
    "Function",
    "InternalError",
    "Map",
    "ParseError",
    "compile",
    "derivative",
    "hessian_source",
    "ifelse",
    "jacobian_source",
    "num_threads",
    "set_num_threads",
    "symbols",
    "vector",
    "NLP",
    "FUNCTIONS",
]


def _make(name, arity):
    if arity == 1:

        def function(a):
            return _apply(name, a)

    else:

        def function(a, b):
            return _apply(name, a, b)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"``{name}`` of the op table applied to {'an expression' if arity == 1 else 'two expressions'}"
        " or numbers; returns an :class:`Expr`."
    )
    return function


#: The functions of dstar's op table, ``(name, arity)`` in table order; each is
#: a module attribute (``dstar.sin``, ``dstar.atan2`` ...).
FUNCTIONS = tuple(_functions())

for _name, _arity in FUNCTIONS:
    globals()[_name] = _make(_name, _arity)
    __all__.append(_name)
del _name, _arity
