"""Problem-format files (``in`` / ``out`` / bindings) read as plain Python:
the statements and their expressions, for building the same function in
another system (CasADi SX, JAX) to compare against in the same run.

Expressions are translated to Python syntax (``^`` is ``**``, right
associative and binding tighter than unary minus in both languages;
``ifelse(a < b, p, q)`` becomes ``_ifelse(a < b, p, q)``) and evaluated in a
namespace the caller provides.
"""

import re

_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")


def statements(text):
    """(inputs, [(name, expression, is_output)], point) of a problem file."""
    inputs, body, point = [], [], None
    for raw in text.splitlines():
        code, _, comment = raw.partition("#")
        if comment.strip().startswith("@point"):
            point = [float(v) for v in comment.strip()[len("@point"):].split()]
        for stmt in code.split(";"):
            stmt = stmt.strip()
            if not stmt:
                continue
            if re.match(r"in\s", stmt):
                inputs += [name.strip() for name in stmt[3:].split(",")]
            elif re.match(r"out\s", stmt):
                rest = stmt[4:]
                m = _NAME.match(rest)
                name = m.group(1) if m else f"out{sum(o for *_, o in body) + 1}"
                body.append((name, python_expression(rest[m.end():] if m else rest), True))
            else:
                name, expr = stmt.split("=", 1)
                body.append((name.strip(), python_expression(expr), False))
    return inputs, body, point


def python_expression(expr):
    expr = expr.replace("^", "**").replace("ifelse(", "_ifelse(")
    return expr.strip()


def build(text, namespace, inputs_value):
    """Evaluates the statements with input ``k`` bound to ``inputs_value[k]``
    in ``namespace`` (functions ``sin``, ``pow``, ..., ``_ifelse``, ``pi``,
    ``e``); returns the list of output values."""
    inputs, body, _ = statements(text)
    env = dict(namespace)
    env.update(zip(inputs, inputs_value))
    outputs = []
    for name, expr, is_output in body:
        value = eval(expr, {"__builtins__": {}}, env)  # noqa: S307 - our own problem files
        env[name] = value
        if is_output:
            outputs.append(value)
    return outputs
