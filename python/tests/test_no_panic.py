"""Issue 34, item 5: no call of the package lets a Rust panic through as
pyo3's ``PanicException``, a ``BaseException`` that ``except Exception``
misses. A panic below any entry point is a :class:`dstar.InternalError`
(a ``RuntimeError``).

Generated: the entry points are read from the type stubs (every function and
method that ``dstar/__init__.pyi`` exports, op-table functions included) and
from ``dstar.NLP``; each is called on programs with parameters (with and
without default values) and functions (called once, several times, nested),
as text and from the builder, with good and bad arguments. Every call must
return or raise an ordinary ``Exception``; a parameter name no recipe below
knows fails the test, so a new entry point is covered when it is added."""

import ast
import itertools
import math
import pathlib
import tempfile
import warnings

import numpy as np
import pytest

import dstar
import dstar._dstar

PACKAGE = pathlib.Path(dstar.__file__).parent

# -- the entry points, from the stubs ----------------------------------------


def _parameters(nodes):
    """(name, optional) of the parameters of one or more overloads, in
    order, each once; ``*args`` as "*args". A parameter is optional if it
    has a default or some overload goes without it."""
    order, optional, counts = [], set(), {}
    for node in nodes:
        args = node.args
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        named = [(a.arg, d) for a, d in zip(positional, defaults) if a.arg not in ("self", "cls")]
        named += [("*" + args.vararg.arg, True)] if args.vararg else []
        named += [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
        for name, default in named:
            if name not in counts:
                order.append(name)
            counts[name] = counts.get(name, 0) + 1
            if default is not None:
                optional.add(name)
    return [(name, name in optional or counts[name] < len(nodes)) for name in order]


def _defs(body):
    """Functions (overloads merged) and properties of a module or class body."""
    functions, properties = {}, set()
    for node in body:
        if isinstance(node, ast.FunctionDef):
            decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
            if "property" in decorators:
                properties.add(node.name)
            else:
                functions.setdefault(node.name, []).append(node)
    return {name: _parameters(nodes) for name, nodes in functions.items()}, properties


def entry_points():
    """``{"compile": params, "Function.jacobian": params, "Function.ops":
    None (a property), "NLP.solve": params, "sin": params, ...}``."""
    init = ast.parse((PACKAGE / "__init__.pyi").read_text())
    ext = ast.parse((PACKAGE / "_dstar.pyi").read_text())
    exported = {alias.name for node in init.body if isinstance(node, ast.ImportFrom)
                for alias in node.names if node.module == "_dstar"}
    points = {}
    functions, _ = _defs(init.body)  # the op table
    points.update(functions)
    functions, _ = _defs(ext.body)
    points.update({name: params for name, params in functions.items() if name in exported})
    classes = [node for node in ext.body if isinstance(node, ast.ClassDef) and node.name in exported]
    classes += [node for node in ast.parse((PACKAGE / "nlp.py").read_text()).body
                if isinstance(node, ast.ClassDef) and node.name == "NLP"]
    for cls in classes:
        methods, properties = _defs(cls.body)
        for name, params in methods.items():
            if name.startswith("_") and not name.endswith("__"):
                continue
            points[f"{cls.name}.{name}"] = params
        points.update({f"{cls.name}.{name}": None for name in properties})
        # What str() and repr() call, stubbed or not (the printer is Rust).
        for name in ("__repr__", "__str__"):
            points.setdefault(f"{cls.name}.{name}", [])
    return points


ENTRY_POINTS = entry_points()

# -- the programs -------------------------------------------------------------


# Removed when the interpreter exits (TemporaryDirectory's finalizer).
_SCRATCH = tempfile.TemporaryDirectory(prefix="dstar-no-panic-")


def nl_paths():
    """Paths for ``NLP.from_nl``: the reader's fixtures (Pyomo wrote them),
    the same truncated, with an unknown o-code, not UTF-8, a directory, a
    missing file, not a path."""
    fixtures = pathlib.Path(__file__).resolve().parents[2] / "frontend" / "tests" / "nl"
    good = sorted(fixtures.glob("*.nl"))
    broken = pathlib.Path(_SCRATCH.name)
    hs71 = (fixtures / "hs71.nl").read_bytes() if good else b"g3 1 1 0\n"
    variants = {"truncated.nl": hs71[: len(hs71) // 2], "opcode.nl": hs71.replace(b"o2", b"o74"),
                "latin1.nl": hs71.replace(b"#", b"\xe9"), "empty.nl": b""}
    for name, data in variants.items():
        (broken / name).write_bytes(data)
    return [*good, *(broken / name for name in variants), broken, broken / "absent.nl", 3]


NL_PATHS = nl_paths()

# Problem files: parameters with and without defaults; functions called
# once, several times, nested (a function calling a function).
TEXTS = {
    "params_defaults": "param a, b\nin x, y\nout f = a*sin(x*y) + b\nout g = x^2*b + y\n# @params 2 3",
    "params_no_defaults": "param k\nin x\nout y = k*x",
    "params_no_defaults_2": "param a, b\nin x, y\nout f = a*exp(x) + b*y^2\nout g = x*y",
    "function_once": "param k\nin x, y\nsq(z) = z*z\nout f = k*sq(x) + y\nout g = x - y\n# @params 1.5",
    "function_many": "in x, y\nsq(z) = z*z\nout f = sq(x) + sq(y) + sq(x*y)\nout g = sq(x - y)",
    "functions_nested": (
        "param k\nin x, y\nsq(z) = z*z\n"
        "function quad(u, v, c) -> (r, s)\n  r = sq(u) + c*sq(v)\n  s = sq(r)\nend\n"
        "a, b = quad(x, y, k)\nout f = a + b\nout g = sq(a) - y\n# @params 2"
    ),
    "no_params": "in x, y\nout f = (1 - x)^2 + 100*(y - x^2)^2\nout g = x^2 + y^2",
    "scalar": "param c\nin x\nout f = (x - c)^2 + log(1 + x^2)\n# @params 0.5",
}
EXPRESSIONS = ["sin(x*y) + x^2", "k*x", "x", "exp(x)/y"]
BROKEN = ["in x\nout f = x +", "", "param k\nin x\nout y = k*x\n# @params 1 2", "in x\nout f = sine(x)"]


def builder_functions():
    """Functions from the builder: parameters, calls once, several times, nested."""
    x, y, a = dstar.symbols("x y a")
    sq = dstar.Function([x], [x * x], name="sq")
    with_param = dstar.Function([x, y], [a * sq(x) + y, x - y], params=[a], name="with_param")
    s, t = dstar.symbols("s t")
    many = dstar.Function([s, t], [sq(s) + sq(t) + sq(s * t), sq(s - t)], name="many")
    u, v, c = dstar.symbols("u v c")
    r = sq(u) + c * sq(v)
    quad = dstar.Function([u, v], [r, sq(r)], params=[c], name="quad")
    p, q, k = dstar.symbols("p q k")
    qa, qb = quad(p, q, k)
    nested = dstar.Function([p, q], [qa + with_param(qb, p, k)[0], many(p, q)[1]], params=[k], name="nested")
    defaults = dstar.compile(TEXTS["params_defaults"], name="defaults")
    m, n = dstar.symbols("m n")
    # A text function with default parameters called without them.
    calls_defaults = dstar.Function([m, n], list(defaults(m, n)) + [dstar.ifelse(m < n, m, n)], name="calls_defaults")
    return {"sq": sq, "with_param": with_param, "many": many, "quad": quad, "nested": nested,
            "calls_defaults": calls_defaults}


def functions():
    compiled = {name: dstar.compile(text, name=name) for name, text in TEXTS.items()}
    compiled["expression"] = dstar.compile(EXPRESSIONS[0])
    return {**compiled, **builder_functions()}


# -- the arguments ------------------------------------------------------------

OMIT = object()  # an optional argument left out


class Context:
    """What recipes build arguments for: a Function ``f``, an NLP, expressions."""

    def __init__(self, f=None, nlp=None):
        self.f, self.nlp = f, nlp
        self.x, self.y, self.a = dstar.symbols("x y a")
        if f is not None:
            self.n, self.m, self.q = f.n_in, f.n_out, f.n_param
            self.p = f.param_values if f.param_values is not None else [1.0] * self.q
        if nlp is not None:
            self.n, self.m, self.q = nlp.n, nlp.m, nlp.n_param
            self.p = nlp.function.param_values or [1.0] * self.q

    def point(self, *shape):
        return np.linspace(0.2, 0.9, int(np.prod(shape)) or 1)[: int(np.prod(shape))].reshape(shape)


def _vectors(size, name_default=OMIT):
    """Good and bad values of a vector argument of ``size``."""
    return [name_default, np.ones(size), np.full(size, math.nan), np.ones(size + 1), np.ones((2, size)),
            [None] * size, "text", float("inf")]


# recipe(ctx) -> candidates; the first is the base every other varies from.
# Keys: "Owner.param" before "param".
RECIPES = {
    # dstar.compile and the text functions
    "text": lambda c: [TEXTS["params_defaults"], *TEXTS.values(), *EXPRESSIONS, *BROKEN, 3],
    "inputs": lambda c: [OMIT, None, ["y", "x"], ["x"], ["x", "x"], "xy"],
    "simplify": lambda c: [OMIT, False],
    "self_check": lambda c: [OMIT, False],
    "hessian_columns": lambda c: [OMIT, False],
    "compile.name": lambda c: [OMIT, "g2", "not a name", "sin"],
    "expr": lambda c: ["sin(x*y)", *EXPRESSIONS, "x^", "k*x + y", ""],
    "var": lambda c: ["x", "z", "", "1x"],
    "order": lambda c: [OMIT, 0, 2, 3],
    "set_num_threads.n": lambda c: [None, 1, 2, 0, -1],
    "vector.n": lambda c: [3, 0, -1, 10**9],
    "vector.name": lambda c: ["v", "not a name", ""],
    "names": lambda c: ["x y", "q0:3", "", "1bad", "x0:2000000000", "a,b"],
    "condition": lambda c: [c.x < c.y, c.x == c.y, True, "x < y"],
    "ifelse.p": lambda c: [c.x, 1.0, "p"],
    "ifelse.q": lambda c: [c.y * 2, 2.0, None],
    "a": lambda c: [c.x, 1.5, c.x * c.y, "a", None],
    "b": lambda c: [c.y, 0.5, c.x + 1, "b"],
    # Expr and Condition
    "other": lambda c: [c.y, 2.0, 0.0, -1.5, "s", None, np.float64(3.0)],
    "modulo": lambda c: [None, 3],
    # Function
    "x": lambda c: [c.point(c.n), c.point(3, c.n), np.zeros(c.n + 1), c.point(2, 2, c.n), [c.x] * c.n,
                    np.full(c.n, math.nan), np.zeros(0), "x", np.ones(c.n, dtype=complex)],
    "xs": lambda c: [c.point(4, c.n), c.point(c.n), np.zeros((4, c.n + 1))],
    "*args": lambda c: [(list(c.point(c.n)),), tuple(c.point(c.n)), tuple([c.x] * c.n),
                        tuple([c.x] * c.n + [1.0] * c.q), tuple(c.point(c.n + c.q)), (), (c.x, "s")],
    "p": lambda c: [OMIT, c.p, [1.0] * (c.q + 1), np.ones((3, c.q)), [math.nan] * c.q, [c.x] * c.q, None],
    "weights": lambda c: [OMIT, np.ones(c.m), np.ones(c.m + 1), None, np.ones((3, c.m))],
    "v": lambda c: [np.ones(c.n), np.eye(c.n), np.ones(c.n + 1), np.ones((3, 2, c.n)), np.ones((0, c.n))],
    "w": lambda c: [np.ones(c.m), np.eye(c.m), np.ones(c.m + 2), np.ones((3, 2, c.m))],
    "sparse": lambda c: [OMIT, True, False],
    "symmetric": lambda c: [OMIT, True],
    "kind": lambda c: ["values", "jacobian", "hessian"],
    "Function.n": lambda c: [3, 0, 1, -1, 2**70, 2.5, "3"],
    "sum": lambda c: [OMIT, True, "yes"],
    # Map (F.map(3)): per input one value shared by every call, or 3 of them
    "Map.*args": lambda c: [tuple([[c.x, c.y, 1.0]] * c.n), tuple([c.x] * c.n), tuple([[c.x] * 2] * c.n),
                            tuple([np.ones(3)] * c.n + [1.0] * c.q), (), tuple([None] * c.n),
                            tuple(["xyz"] * c.n), tuple([{1: 2, 3: 4, 5: 6}] * c.n)],
    "iters": lambda c: [1, 0, OMIT],
    # NLP
    "x0": lambda c: [c.point(c.n), *_vectors(c.n)[1:], None],
    "lbx": lambda c: _vectors(c.n),
    "ubx": lambda c: _vectors(c.n),
    "lbg": lambda c: _vectors(c.m),
    "ubg": lambda c: _vectors(c.m),
    "lam_g0": lambda c: _vectors(c.m),
    "lam_x0": lambda c: _vectors(c.n),
    "NLP.p": lambda c: [OMIT, c.p, [1.0] * (c.q + 1), np.ones((3, c.q)), [math.nan] * c.q, [math.inf] * c.q],
    "solver": lambda c: ["slsqp", "trust-constr", "ipopt", "newton"],
    "options": lambda c: [OMIT, {"no_such_option": 1}],
    "obj_factor": lambda c: [OMIT, 0.0, math.nan],
    "lam": lambda c: [OMIT, np.ones(c.m), np.ones(c.m + 1), np.ones((2, c.m))],
    # The constructors: dstar.Function(...) (the builder) and dstar.NLP(...)
    "Function().inputs": lambda c: [[c.x, c.y], c.x, [c.x, c.x], [c.x + 1], [], "x", [c.x, c.a]],
    "outputs": lambda c: [[c.x * c.y + c.a], c.x * c.y, [FUNCTIONS["sq"](c.x), *FUNCTIONS["quad"](c.x, c.y, c.a)],
                          1.0, [], ["s"], [dstar.symbols("z")]],
    "output_names": lambda c: [OMIT, ["o"], ["o", "o2"], ["1bad"], ["x"]],
    "Function().params": lambda c: [[c.a], OMIT, c.a, [c.x], [c.a + 1], []],
    "Function().name": lambda c: [OMIT, "g3", "not a name", "sin", "in"],
    "NLP().text": lambda c: [TEXTS["params_defaults"], FUNCTIONS["nested"], FUNCTIONS["sq"], *BROKEN, 3,
                             "in x\nout f = x^2\nout g = x\nout h = 1"],
    "NLP().x": lambda c: [OMIT, [c.x, c.y], c.x, [c.x + 1]],
    "NLP().f": lambda c: [OMIT, (c.x - c.a) ** 2 + c.y * c.y, 1.0, [c.x, c.y]],
    "NLP().g": lambda c: [OMIT, [c.x + c.y], c.x * c.y, [], [FUNCTIONS["sq"](c.x)]],
    "NLP().p": lambda c: [OMIT, [c.a], c.a, [c.x]],
    "NLP().sense": lambda c: [OMIT, "max", "maximize", None],
    "NLP.path": lambda c: NL_PATHS,
}

# More bases to vary from, where one argument at a time cannot reach a good
# call: NLP's builder form leaves the text out and gives x and f.
BASES = {
    "NLP()": lambda c: [{"text": OMIT, "x": [c.x, c.y], "f": (c.x - c.a) ** 2 + c.y * c.y,
                         "g": [c.x + c.y], "p": [c.a]}],
    "Function()": lambda c: [{"inputs": [c.x, c.y], "outputs": [FUNCTIONS["nested"](c.x, c.y, c.a)[0]],
                              "params": [c.a]}],
}


def recipe(owner, param):
    key = f"{owner}.{param}" if f"{owner}.{param}" in RECIPES else param
    return RECIPES[key]


def argument_lists(owner, params, ctx):
    """The base arguments (every optional parameter left out, each other at
    its recipe's first value), then each candidate of each parameter in turn
    with the others at their base: ``(args, kwargs)`` pairs."""
    candidates = []
    for name, optional in params:
        values = recipe(owner, name)(ctx)
        candidates.append((name, optional, [OMIT, *values] if optional and values[0] is not OMIT else values))
    bases = [{name: values[0] for name, _, values in candidates}]
    bases += [{**bases[0], **extra} for extra in BASES.get(owner, lambda c: [])(ctx)]
    variants = []
    for base in bases:
        variants.append(dict(base))
        for name, _, values in candidates:
            variants += [{**base, name: value} for value in values if value is not base[name]]
    for variant in variants:
        args, kwargs = (), {}
        for name, optional, _ in candidates:
            value = variant[name]
            if value is OMIT:
                continue
            if name.startswith("*"):
                args += tuple(value)
            elif optional or kwargs:
                kwargs[name] = value
            else:
                args += (value,)
        yield args, kwargs


# -- the calls ----------------------------------------------------------------


def outcome(call):
    """``None`` when ``call()`` returns, the exception it raised otherwise."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            call()
    except BaseException as e:  # noqa: B036: what this test looks for
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return e
    return None


def targets(entry):
    """(description, context, the object the entry point is called on)."""
    owner, _, method = entry.rpartition(".")
    if method == "__init__":
        yield "constructor", Context(), dstar
    elif owner == "Function":
        for name, f in FUNCTIONS.items():
            yield name, Context(f=f), f
    elif owner == "Map":
        for name, f in FUNCTIONS.items():
            yield name, Context(f=f), f.map(3)
    elif owner == "NLP":
        for name, nlp in NLPS.items():
            yield name, Context(nlp=nlp), nlp
    elif owner in ("Expr", "Condition"):
        ctx = Context()
        x, y = ctx.x, ctx.y
        f = FUNCTIONS["with_param"]
        exprs = {"symbol": x, "sum": x + 2 * y, "call": f(x, y, 1.5)[0], "constant": x * 0 + 3,
                 "nested": FUNCTIONS["nested"](x, y, x)[0] ** 2}
        if owner == "Condition":
            exprs = {name: e < y for name, e in exprs.items()} | {"equal": x == x}
        for name, e in exprs.items():
            yield name, ctx, e
    else:
        yield "module", Context(), dstar


def few_iterations(solve):
    """``NLP.solve`` stopped after a few iterations unless ``options=`` says
    otherwise: what matters here is how a call ends, not where."""

    def call(*args, **kwargs):
        few = {"max_iter": 10} if kwargs.get("solver", "ipopt") == "ipopt" else {"maxiter": 10}
        return solve(*args, **{"options": few, **kwargs})

    return call


def calls(entry):
    """Every call made for ``entry``: (description, outcome)."""
    owner, _, method = entry.rpartition(".")
    params = ENTRY_POINTS[entry]
    results = []
    for name, ctx, target in targets(entry):
        if params is None:  # a property
            results.append((f"{name}.{method}", outcome(lambda: getattr(target, method))))
            continue
        # A constructor is the class called; its recipes' owner is "Class()".
        key, method = (owner + "()", owner) if method == "__init__" else (owner or method, method)
        for args, kwargs in argument_lists(key, params, ctx):
            bound = few_iterations(target.solve) if entry == "NLP.solve" else getattr(target, method)
            results.append((f"{name}: {method}{args!r:.80}{kwargs!r:.80}", outcome(lambda: bound(*args, **kwargs))))
    if method == "set_num_threads":
        dstar.set_num_threads(None)
    return results


FUNCTIONS = functions()


def nlps():
    """NLPs of each kind: text with and without defaults, a Function with
    calls, the builder with parameters."""
    x, y, a = dstar.symbols("x y a")
    sq = FUNCTIONS["sq"]
    made = {name: dstar.NLP(TEXTS[name]) for name in ("params_defaults", "function_once", "functions_nested",
                                                        "no_params", "scalar")}
    made["from_function"] = dstar.NLP(FUNCTIONS["nested"])
    made["builder"] = dstar.NLP(x=[x, y], f=(a - x) ** 2 + sq(y), g=[sq(x) + y], p=[a])
    return made


NLPS = nlps()


@pytest.fixture(scope="module")
def outcomes():
    cache = {}

    def of(entry):
        if entry not in cache:
            cache[entry] = calls(entry)
        return cache[entry]

    return of


def test_every_parameter_has_a_recipe():
    def owner(entry):
        cls, _, method = entry.rpartition(".")
        return cls + "()" if method == "__init__" else cls or entry

    missing = {(entry, name) for entry, params in ENTRY_POINTS.items() for name, _ in params or []
               if f"{owner(entry)}.{name}" not in RECIPES and name not in RECIPES}
    assert not missing, f"entry points with parameters no recipe builds: {sorted(missing)}"
    # The stubs' entry points include the ones this issue names.
    for entry in ("compile", "jacobian_source", "Function.jacobian", "Function.__call__", "NLP.solve", "sin",
                  "Expr.__add__", "Condition.__bool__", "Function.param_values", "Function.__init__",
                  "NLP.__init__"):
        assert entry in ENTRY_POINTS, entry


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_issue_34_no_panic_escapes(entry, outcomes):
    escaped = [(what, e) for what, e in outcomes(entry) if e is not None and not isinstance(e, Exception)]
    assert not escaped, "\n".join(f"{what}: {type(e).__module__}.{type(e).__name__}: {e}" for what, e in escaped)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_issue_34_no_internal_error(entry, outcomes):
    """A panic that does surface is a bug to fix: listed here."""
    internal = [(what, e) for what, e in outcomes(entry) if isinstance(e, dstar.InternalError)]
    assert not internal, "\n".join(f"{what}: {e}" for what, e in internal)


def test_issue_34_a_panic_is_an_internal_error():
    with pytest.raises(dstar.InternalError, match=r"^internal error: boom \(please report it"):
        dstar._dstar._panic("boom")
    assert issubclass(dstar.InternalError, RuntimeError)
    # The extension works on after it.
    assert dstar.compile("x*y").jacobian([1.0, 2.0]).tolist() == [[2.0, 1.0]]
