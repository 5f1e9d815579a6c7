"""``dstar-ipopt``: a solver AMPL and Pyomo call (the AMPL solver
convention), which solves an ``.nl`` file with IPOPT using dstar's
derivatives and writes the ``.sol`` file they read::

    dstar-ipopt STUB -AMPL [key=value ...]
    dstar-ipopt -v

``STUB`` is the ``.nl`` file with or without its suffix (Pyomo passes
``tmpXXXX.pyomo.nl``); the solution goes to ``STUB.sol``. IPOPT's options
come from the environment variable ``dstar_ipopt_options`` (or
``dstar-ipopt_options``, the one Pyomo's ``SolverFactory("asl:dstar-ipopt")``
sets), then from the ``key=value`` arguments, which win; ``outlev`` is
``print_level``, as with IPOPT's own AMPL driver. Statuses, messages and
the signs of the duals are those of IPOPT's AMPL driver (``ipopt``).
"""

import os
import shlex
import sys
import tempfile
from dataclasses import dataclass

import numpy as np

NAME = "dstar-ipopt"

#: ``solve_result_num`` and message by IPOPT status, as IPOPT's AMPL driver
#: writes them (0-99 solved, 200 infeasible, 300 unbounded, 400 a limit,
#: 500 a failure); any other status is 502.
AMPL_STATUS = {
    "Solve_Succeeded": (0, "Optimal Solution Found"),
    "Solved_To_Acceptable_Level": (1, "Solved To Acceptable Level."),
    "Feasible_Point_Found": (2, "Found feasible point for square problem."),
    "Infeasible_Problem_Detected": (200, "Converged to a locally infeasible point. Problem may be infeasible."),
    "Diverging_Iterates": (300, "Iterates diverging; problem might be unbounded."),
    "Maximum_Iterations_Exceeded": (400, "Maximum Number of Iterations Exceeded."),
    "Maximum_CpuTime_Exceeded": (401, "Maximum CPU Time Exceeded."),
    "Maximum_WallTime_Exceeded": (402, "Maximum Wallclock Time Exceeded."),
    "Search_Direction_Becomes_Too_Small": (500, "Search Direction becomes Too Small."),
    "Restoration_Failed": (501, "Restoration Phase Failed."),
}

#: Keywords of IPOPT's AMPL driver rather than of IPOPT: renamed, or
#: dropped (dstar evaluates the model, not the ASL).
_ASL_KEYWORDS = {"outlev": "print_level", "wantsol": None, "halt_on_ampl_error": None}

USAGE = f"""usage: {NAME} STUB[.nl] [-AMPL] [key=value ...]
       {NAME} -v
Solves STUB.nl with IPOPT using dstar's derivatives and writes STUB.sol.
key=value: IPOPT's options (also from ${NAME.replace('-', '_')}_options)."""


@dataclass
class Solution:
    """What the ``.sol`` file reports, in AMPL's signs."""

    message: str
    #: ``solve_result_num`` (:data:`AMPL_STATUS`).
    code: int
    #: Per constraint.
    duals: np.ndarray
    #: Per variable.
    x: np.ndarray
    #: ``(name, values per variable)``: real suffixes of the variables.
    suffixes: tuple = ()


def name_and_version():
    """``dstar-ipopt 0.1.0``: how messages start."""
    from . import __version__

    return f"{NAME} {__version__}"


def version():
    """``dstar-ipopt 0.1.0 (IPOPT 3.x.y), ...``: what ``-v`` prints; Pyomo
    reads the first dotted number as the solver's version."""
    try:
        import cyipopt

        ipopt = "IPOPT " + ".".join(map(str, cyipopt.IPOPT_VERSION))
    except ImportError:
        ipopt = "IPOPT not installed: pip install cyipopt"
    return f"{name_and_version()} ({ipopt}), AMPL solver with dstar's derivatives"


def stub_paths(stub):
    """The ``.nl`` file and the ``.sol`` file of ``stub`` (with or without ``.nl``)."""
    base = stub[:-3] if stub.endswith(".nl") else stub
    return base + ".nl", base + ".sol"


def parse_options(words):
    """IPOPT's options from ``key=value`` words (or ``key value`` pairs, as
    AMPL allows) as a dict of strings, AMPL's own keywords renamed or dropped."""
    options = {}
    words = list(words)
    while words:
        word = words.pop(0)
        if "=" in word:
            key, value = word.split("=", 1)
        elif words:
            key, value = word, words.pop(0)
        else:
            raise ValueError(f"option {word!r} has no value: key=value")
        key = _ASL_KEYWORDS.get(key, key)
        if key is not None:
            options[key] = value
    return options


def environment_options(environ):
    """The options in ``dstar_ipopt_options`` and ``dstar-ipopt_options``."""
    text = " ".join(environ.get(f"{name}_options", "") for name in ("dstar_ipopt", NAME))
    return parse_options(shlex.split(text))


def header_options(text):
    """The ``.nl`` header's AMPL options (``g3 1 1 0`` -> ``[1, 1, 0]``) and
    the variable bound tolerance that follows them when the second is 3
    (else ``None``): what the ``.sol`` file's ``Options`` block echoes."""
    words = text.split("#", 1)[0].split()
    count = int(words[0][1:]) if words and words[0][1:].isdigit() else 0
    options = [int(w) for w in words[1 : 1 + count]]
    vbtol = float(words[1 + count]) if len(options) > 1 and options[1] == 3 else None
    return options, vbtol


def write_sol(path, solution, header):
    """Writes the ``.sol`` file as the ASL's ``write_sol`` does in text:
    the message, ``Options`` with the ``.nl`` header's options (``header``,
    from :func:`header_options`) and the counts, the duals, the primal
    values, ``objno 0 CODE``, then each suffix (real, of the variables:
    kind 4; its nonzero entries)."""
    options, vbtol = header
    lines = [line or " " for line in solution.message.splitlines()] + [""]
    if options:
        lines += ["Options", str(len(options) + (2 if vbtol is not None else 0))]
        lines += [str(o) for o in options]
        # Constraints, duals given, variables, primal values given.
        lines += [str(len(solution.duals)), str(len(solution.duals)), str(len(solution.x)), str(len(solution.x))]
        if vbtol is not None:
            lines.append(repr(vbtol))
    lines += [repr(float(v)) for v in solution.duals] + [repr(float(v)) for v in solution.x]
    lines.append(f"objno 0 {solution.code}")
    for name, values in solution.suffixes:
        nonzero = np.flatnonzero(values)
        lines += [f"suffix 4 {nonzero.size} {len(name) + 1} 0 0", name]
        lines += [f"{i} {float(values[i])!r}" for i in nonzero]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def solve(nl_path, options):
    """Solves the ``.nl`` file with IPOPT (``options``: IPOPT's, as
    strings) into a :class:`Solution` in AMPL's signs, as IPOPT's AMPL
    driver writes them: duals ``-lambda`` when minimizing, ``lambda`` of
    ``-f`` when maximizing; ``ipopt_zL_out >= 0 >= ipopt_zU_out`` when
    minimizing, the other way round when maximizing."""
    from . import NLP

    nlp = NLP.from_nl(nl_path)
    ipopt_options = {"print_level": 5, "sb": "yes"}
    with tempfile.TemporaryDirectory() as tmp:
        if options:
            # IPOPT reads an options file by each option's registered type
            # (tol=1 is a number, max_iter=1 an integer); the file's values win.
            ipopt_options["option_file_name"] = os.path.join(tmp, "ipopt.opt")
            with open(ipopt_options["option_file_name"], "w") as f:
                f.writelines(f"{key} {value}\n" for key, value in options.items())
        try:
            sol = nlp.solve(options=ipopt_options)
        except ValueError as e:  # a starting point outside the functions' domain
            return Solution(f"{name_and_version()}: {e}", 502, np.zeros(nlp.m), nlp.x0)
    code, message = AMPL_STATUS.get(sol["status"], (502, f"Unknown Error: {sol['message']}"))
    sign = nlp._sign
    # IPOPT's z_L, z_U >= 0 from lam_x = z_U - z_L: at most one is not ~0.
    z_lower, z_upper = np.maximum(-sol["lam_x"], 0.0), np.maximum(sol["lam_x"], 0.0)
    suffixes = (("ipopt_zU_out", -sign * z_upper), ("ipopt_zL_out", sign * z_lower))
    return Solution(f"{name_and_version()}: {message}", code, -sign * sol["lam_g"], sol["x"], suffixes)


def main(argv=None):
    """The command: ``dstar-ipopt STUB -AMPL [key=value ...]`` or ``-v``.
    Exit status 0 when a ``.sol`` file was written, 1 when the ``.nl``
    file cannot be read, 2 for a bad command line."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in ("-v", "--version"):
        print(version())
        return 0
    if args and args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if not args or args[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    stub, rest = args[0], args[1:]
    ampl = "-AMPL" in rest
    try:
        options = {**environment_options(os.environ), **parse_options(w for w in rest if w != "-AMPL")}
    except ValueError as e:
        print(f"{NAME}: {e}", file=sys.stderr)
        return 2
    nl_path, sol_path = stub_paths(stub)
    try:
        with open(nl_path) as f:
            header = header_options(f.readline())
        solution = solve(nl_path, options)
    except (OSError, ValueError) as e:
        print(f"{NAME}: {e}", file=sys.stderr)
        return 1
    write_sol(sol_path, solution, header)
    if not ampl:
        print(solution.message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
