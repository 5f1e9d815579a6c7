"""Nonlinear programs: ``min f(x, p)`` subject to ``lbg <= g(x, p) <= ubg``
and ``lbx <= x <= ubx``, solved by IPOPT (through cyipopt) or SciPy with
dstar's exact sparse derivatives.

>>> import dstar, numpy as np
>>> nlp = dstar.NLP("in x, y\\nout f = (1 - x)^2 + 100*(y - x^2)^2\\nout g = x^2 + y^2")
>>> sol = nlp.solve([0.5, 0.5], ubg=[1.0], solver="slsqp")
>>> sol["success"], np.round(sol["x"], 3)
(True, array([0.786, 0.618]))

:class:`NLP` compiles the kernels it needs once, when it is made (values,
the Jacobian of all outputs, the lower triangle of the Lagrangian's
Hessian), with fixed sparsity patterns; :meth:`NLP.solve` compiles nothing,
whatever ``p``, ``x0`` or the bounds.
"""

import math
import time

import numpy as np

from ._dstar import Function, compile as _compile, read_nl as _read_nl

__all__ = ["NLP", "IPOPT_STATUS"]

#: IPOPT's ``ApplicationReturnStatus`` by code: the ``status`` of an IPOPT
#: solve (the names CasADi's ``stats()["return_status"]`` uses).
IPOPT_STATUS = {
    0: "Solve_Succeeded",
    1: "Solved_To_Acceptable_Level",
    2: "Infeasible_Problem_Detected",
    3: "Search_Direction_Becomes_Too_Small",
    4: "Diverging_Iterates",
    5: "User_Requested_Stop",
    6: "Feasible_Point_Found",
    -1: "Maximum_Iterations_Exceeded",
    -2: "Restoration_Failed",
    -3: "Error_In_Step_Computation",
    -4: "Maximum_CpuTime_Exceeded",
    -5: "Maximum_WallTime_Exceeded",
    -10: "Not_Enough_Degrees_Of_Freedom",
    -11: "Invalid_Problem_Definition",
    -12: "Invalid_Option",
    -13: "Invalid_Number_Detected",
    -100: "Unrecoverable_Exception",
    -101: "NonIpopt_Exception_Thrown",
    -102: "Insufficient_Memory",
    -199: "Internal_Error",
}

#: IPOPT's options unless ``options=`` says otherwise: quiet.
IPOPT_DEFAULTS = {"print_level": 0, "sb": "yes"}

# IPOPT treats bounds beyond +-1e19 (its nlp_*_bound_inf) as infinite.
_IPOPT_INF = 2e19

SOLVERS = ("ipopt", "trust-constr", "slsqp")


class _Clock:
    """Seconds spent in dstar's kernels and in the Python around them."""

    def __init__(self):
        self.kernels = 0.0
        self.callbacks = 0.0
        self.calls = 0


class NLP:
    """``NLP(text)`` or ``NLP(x=..., f=..., g=..., p=...)``: a nonlinear
    program whose objective is output 1 of ``text`` (a problem file, or a
    :class:`dstar.Function`) and whose constraints are the other outputs;
    or built from the builder's expressions: ``x`` the variables (symbols),
    ``f`` the objective, ``g`` the constraints (an expression or a list,
    may be omitted), ``p`` the parameters (symbols, may be omitted).

    Attributes: ``n`` (variables), ``m`` (constraints), ``n_param``,
    ``function`` (the compiled :class:`dstar.Function`, outputs ``[f, *g]``),
    ``jacobian_structure`` and ``hessian_structure`` (``(rows, cols)`` of
    the constraint Jacobian's and the Lagrangian Hessian's lower triangle's
    nonzeros, the order of :meth:`jacobian_nonzeros` and
    :meth:`hessian_nonzeros`), ``t_setup`` (seconds to compile them),
    ``sense`` (``"min"``, or ``"max"``: :meth:`solve` maximizes ``f``), and
    what :meth:`solve` takes when it is not given: ``x0``, ``lbx``, ``ubx``,
    ``lbg``, ``ubg``, ``lam_g0`` (``None``: zeros for ``x0``, no bounds; an
    :meth:`from_nl` NLP has the file's).
    """

    def __init__(self, text=None, *, x=None, f=None, g=None, p=None, simplify=True, sense="min"):
        start = time.perf_counter()
        if sense not in ("min", "max"):
            raise ValueError(f"sense={sense!r}: 'min' or 'max'")
        self.sense = sense
        self.x0 = self.lbx = self.ubx = self.lbg = self.ubg = self.lam_g0 = None
        if text is not None:
            if x is not None or f is not None or g is not None or p is not None:
                raise TypeError("NLP(text) or NLP(x=..., f=..., g=..., p=...), not both")
            function = text if isinstance(text, Function) else _compile(text, simplify=simplify)
        else:
            if x is None or f is None:
                raise TypeError("NLP(x=..., f=...) needs the variables x and the objective f")
            constraints = [] if g is None else list(g) if isinstance(g, (list, tuple)) else [g]
            function = Function(x, [f, *constraints], params=p, simplify=simplify)
        self.function = function
        self.n, self.m, self.n_param = function.n_in, function.n_out - 1, function.n_param
        if self.m < 0:
            raise ValueError("the problem has no outputs: output 1 is the objective")
        # Compile every kernel now (set-up), each once: values, the Jacobian of
        # [f, *g] (the gradient is its row 0) and the Lagrangian's Hessian.
        indptr, indices = function.jacobian_pattern
        hptr, hidx = function.hessian_pattern
        zero_p = np.zeros(self.n_param) if self.n_param else None
        with np.errstate(all="ignore"):
            function(np.zeros(self.n), p=zero_p)
        self._grad_slice = slice(int(indptr[0]), int(indptr[1]))
        self._grad_cols = indices[self._grad_slice]
        self._jac_slice = slice(int(indptr[1]), int(indptr[-1]))
        rows = np.repeat(np.arange(function.n_out), np.diff(indptr))
        self.jacobian_structure = (rows[self._jac_slice] - 1, indices[self._jac_slice])
        self._jac_csr = (indices[self._jac_slice], indptr[1:] - indptr[1])
        self.hessian_structure = (np.repeat(np.arange(self.n), np.diff(hptr)), hidx)
        self._cache_x = None
        self._cache_p = None
        self._values = None
        self._nonzeros = None
        self.clock = _Clock()
        self.t_setup = time.perf_counter() - start

    @classmethod
    def from_nl(cls, path, simplify=True):
        """The NLP of the AMPL ``.nl`` file at ``path`` (as Pyomo, AMPL or
        JuMP write them; names from the ``.row`` and ``.col`` files beside
        it, when there are some), with everything :meth:`solve` needs from
        the file: its sense, starting point (``x`` segment, 0 for a variable
        without one, moved into its bounds as IPOPT's AMPL driver does),
        variable bounds (``b``), constraint ranges (``r``) and initial duals
        (``d``, as ``lam_g0`` in :meth:`solve`'s signs). A model without an
        objective minimizes 0. Attributes beside :class:`NLP`'s:
        ``var_names``, ``constraint_names``, ``objective_name`` (the files'
        names), ``path``.

        >>> nlp = dstar.NLP.from_nl("hs71.nl")  # doctest: +SKIP
        >>> nlp.solve()["f"]  # doctest: +SKIP
        17.014017...
        """
        start = time.perf_counter()
        function, data = _read_nl(str(path), simplify=simplify)
        nlp = cls(function, sense=data["sense"] or "min")
        nlp.lbx, nlp.ubx = np.array(data["lbx"]), np.array(data["ubx"])
        nlp.lbg, nlp.ubg = np.array(data["lbg"]), np.array(data["ubg"])
        nlp.x0 = np.clip(np.array(data["x0"]), nlp.lbx, nlp.ubx)
        # AMPL's duals are -lambda of IPOPT minimizing sign * f.
        nlp.lam_g0 = -nlp._sign * np.array(data["duals"])
        nlp.var_names, nlp.constraint_names = data["var_names"], data["constraint_names"]
        nlp.objective_name, nlp.path = data["objective_name"], str(path)
        nlp.t_setup = time.perf_counter() - start
        return nlp

    @property
    def _sign(self):
        """1 to minimize ``f``, -1 to maximize it (minimize ``-f``)."""
        return -1.0 if self.sense == "max" else 1.0

    def __repr__(self):
        return (
            f"NLP(n={self.n}, m={self.m}, n_param={self.n_param}, jacobian_nnz={self.jacobian_structure[0].size}, "
            f"hessian_lower_nnz={self.hessian_structure[0].size})"
        )

    # -- the kernels ----------------------------------------------------------

    def _kernel(self, method, *args, p=None, **kwargs):
        """``method(*args, p=p, **kwargs)``, timed; no ``p=None`` keyword
        when there is no ``p`` (it slows small calls)."""
        start = time.perf_counter()
        result = method(*args, **kwargs) if p is None else method(*args, p=p, **kwargs)
        self.clock.kernels += time.perf_counter() - start
        self.clock.calls += 1
        return result

    def _at(self, x, p):
        """Forget the cached values and Jacobian unless ``x`` and ``p`` hold
        the last call's numbers. The key is a copy compared bit for bit: the
        caller may change its arrays in place between calls, and ``-0.0 ==
        0.0`` although ``1/x`` tells them apart."""
        x = self._point(x)
        p = self._point_params(p)
        if not (_same(self._cache_x, x) and _same(self._cache_p, p)):
            self._cache_x, self._cache_p = x, p
            self._values = None
            self._nonzeros = None

    def _cached_values(self, x, p):
        """``[f(x), *g(x)]``, the cache's own array: callers copy what they return."""
        self._at(x, p)
        if self._values is None:
            self._values = self._kernel(self.function, self._cache_x, p=self._cache_p)
        return self._values

    def _jacobian_all(self, x, p):
        self._at(x, p)
        if self._nonzeros is None:
            self._nonzeros = self._kernel(self.function.jacobian_nonzeros, self._cache_x, p=self._cache_p)
        return self._nonzeros

    def values(self, x, p=None):
        """``[f(x), *g(x)]``, shape ``(1 + m,)``."""
        return self._cached_values(x, p).copy()

    def objective(self, x, p=None):
        """``f(x)``."""
        return float(self._cached_values(x, p)[0])

    def constraints(self, x, p=None):
        """``g(x)``, shape ``(m,)``."""
        return self._cached_values(x, p)[1:].copy()

    def gradient(self, x, p=None):
        """The objective's gradient, dense ``(n,)``."""
        grad = np.zeros(self.n)
        grad[self._grad_cols] = self._jacobian_all(x, p)[self._grad_slice]
        return grad

    def jacobian_nonzeros(self, x, p=None):
        """The constraint Jacobian's nonzeros, in the order of ``jacobian_structure``."""
        return self._jacobian_all(x, p)[self._jac_slice].copy()

    def jacobian(self, x, p=None):
        """The constraint Jacobian, a ``scipy.sparse.csr_array`` ``(m, n)`` with the fixed pattern."""
        import scipy.sparse

        return scipy.sparse.csr_array((self.jacobian_nonzeros(x, p), *self._jac_csr), shape=(self.m, self.n))

    def _point(self, x, name="x", size=None):
        """A copy of the vector ``x`` as floats; one point, never a batch."""
        size = self.n if size is None else size
        x = np.array(x, dtype=float)
        if x.shape != (size,):
            raise ValueError(f"{name} must be a vector of {size} entries; got shape {x.shape}")
        return x

    def _point_params(self, p):
        return None if p is None else self._point(p, "p", self.n_param)

    def _weights(self, obj_factor, lam):
        lam = np.zeros(self.m) if lam is None else self._point(lam, "lam", self.m)
        return np.concatenate(([float(obj_factor)], lam))

    def hessian_nonzeros(self, x, obj_factor=1.0, lam=None, p=None):
        """The lower triangle of ``obj_factor * H_f + sum lam[i] * H_g[i]``:
        its nonzeros in the order of ``hessian_structure`` (IPOPT's ``hessian``)."""
        x, w, p = self._point(x), self._weights(obj_factor, lam), self._point_params(p)
        return self._kernel(self.function.hessian_nonzeros, x, w, p=p)

    def hessian(self, x, obj_factor=1.0, lam=None, p=None, symmetric=False):
        """That Hessian as a ``scipy.sparse.csr_array``: the lower triangle, or
        with ``symmetric=True`` the whole symmetric matrix (what SciPy wants)."""
        x, w, p = self._point(x), self._weights(obj_factor, lam), self._point_params(p)
        return self._kernel(self.function.hessian, x, w, True, p=p, symmetric=symmetric)

    # -- solving --------------------------------------------------------------

    def _bounds(self, lbx, ubx, lbg, ubg):
        """The bounds as vectors; a ValueError for a bound no point meets:
        a lower bound of +inf, an upper bound of -inf, ``lb > ub``."""
        lbx = _vector("lbx", lbx, self.n, -math.inf)
        ubx = _vector("ubx", ubx, self.n, math.inf)
        lbg = _vector("lbg", lbg, self.m, -math.inf)
        ubg = _vector("ubg", ubg, self.m, math.inf)
        for lo, hi, v in ((lbx, ubx, "x"), (lbg, ubg, "g")):
            for bad, message in (
                (lo == math.inf, "lb{v}[{i}] = inf: a lower bound of +inf (no bound is None or -inf)"),
                (hi == -math.inf, "ub{v}[{i}] = -inf: an upper bound of -inf (no bound is None or inf)"),
                (lo > hi, "lb{v}[{i}] = {lo} > ub{v}[{i}] = {hi}"),
            ):
                bad = np.flatnonzero(bad)
                if bad.size:
                    i = bad[0]
                    more = f"; {bad.size - 1} more such" if bad.size > 1 else ""
                    raise ValueError(f"{message.format(v=v, i=i, lo=lo[i], hi=hi[i])}{more}")
        return lbx, ubx, lbg, ubg

    def solve(
        self,
        x0=None,
        lbx=None,
        ubx=None,
        lbg=None,
        ubg=None,
        p=None,
        solver="ipopt",
        options=None,
        lam_g0=None,
        lam_x0=None,
    ):
        """Solve from ``x0`` (by default the NLP's ``x0``, else zeros). Bounds
        are numbers (for every entry), arrays, or ``None`` (the NLP's bound,
        infinite unless it came from an ``.nl`` file; also ``None`` or
        ``inf`` entries); by default ``x`` is free and the constraints are
        ``g(x) <= inf``, so pass ``lbg`` and ``ubg`` (``lbg[i] == ubg[i]``
        for an equality). ``p``: the parameters,
        by default the problem's ``# @params``. ``solver``: ``"ipopt"``
        (cyipopt; ``options`` are IPOPT's options), ``"trust-constr"`` or
        ``"slsqp"`` (SciPy's ``minimize``; ``options`` its options).
        ``lam_g0``, ``lam_x0``: multipliers to start from (IPOPT; set
        ``options={"warm_start_init_point": "yes"}`` to use them; ``lam_g0``
        by default the NLP's). Each
        vector argument is a number or a vector of its length; NaN, another
        shape, a lower bound of +inf, an upper bound of -inf and ``lb > ub``
        raise ``ValueError`` naming the argument and the index.

        Returns a dict like CasADi's ``nlpsol``: ``x``, ``f``, ``g``,
        ``lam_g``, ``lam_x`` (CasADi's signs: ``grad f + J' lam_g + lam_x =
        0``; for ``sense="max"`` those of minimizing ``-f``, what IPOPT
        solves, while ``f`` is the objective's own value), ``status`` (IPOPT's return status name, or SciPy's message),
        ``message``, ``success``, ``iterations``, ``t_derivatives`` (seconds
        in dstar's kernels), ``t_callbacks`` (in the Python callbacks around
        them, kernels included), ``t_solver`` (the rest of the solve),
        ``kernel_calls``.
        """
        if solver not in SOLVERS:
            raise ValueError(f"solver={solver!r}: one of {', '.join(map(repr, SOLVERS))}")
        x0 = self.x0 if x0 is None else x0
        lbx, ubx = (self.lbx if lbx is None else lbx), (self.ubx if ubx is None else ubx)
        lbg, ubg = (self.lbg if lbg is None else lbg), (self.ubg if ubg is None else ubg)
        lam_g0 = self.lam_g0 if lam_g0 is None else lam_g0
        x0 = _vector("x0", x0, self.n, math.nan) if x0 is not None else np.zeros(self.n)
        if not np.isfinite(x0).all():
            raise ValueError(f"x0 is not finite at {np.flatnonzero(~np.isfinite(x0)).tolist()[:10]}")
        lbx, ubx, lbg, ubg = self._bounds(lbx, ubx, lbg, ubg)
        p = None if p is None else _vector("p", p, self.n_param, math.nan)
        if lam_g0 is not None:
            lam_g0 = _vector("lam_g0", lam_g0, self.m, 0.0)
        if lam_x0 is not None:
            lam_x0 = _vector("lam_x0", lam_x0, self.n, 0.0)
        with np.errstate(all="ignore"):
            start_values = np.asarray(self.function(x0, p=p))
        if not np.isfinite(start_values).all():
            bad = np.flatnonzero(~np.isfinite(start_values))
            names = ", ".join(self.function.output_names[i] for i in bad[:5])
            counts = f"({bad.size} of {start_values.size} outputs)"
            if p is not None and not np.isfinite(p).all():
                raise ValueError(
                    f"p is not finite at {np.flatnonzero(~np.isfinite(p)).tolist()[:10]}, "
                    f"and the problem's functions {names} {counts} are not finite at x0 with it"
                )
            raise ValueError(
                f"x0 is outside the domain of the problem's functions: {names} {counts} are not finite there"
            )
        self.clock = _Clock()
        start = time.perf_counter()
        if solver == "ipopt":
            result = self._solve_ipopt(x0, lbx, ubx, lbg, ubg, p, options, lam_g0, lam_x0)
        else:
            result = self._solve_scipy(solver, x0, lbx, ubx, lbg, ubg, p, options)
        wall = time.perf_counter() - start
        result["x"] = np.asarray(result["x"], dtype=float)
        values = np.asarray(self.function(result["x"], p=p))
        result["f"], result["g"] = float(values[0]), values[1:]
        result["t_derivatives"] = self.clock.kernels
        result["t_callbacks"] = self.clock.callbacks
        result["t_solver"] = wall - self.clock.callbacks
        result["t_wall"] = wall
        result["kernel_calls"] = self.clock.calls
        return result

    def _timed(self, method):
        def call(*args):
            start = time.perf_counter()
            try:
                return method(*args)
            finally:
                self.clock.callbacks += time.perf_counter() - start

        return call

    def _solve_ipopt(self, x0, lbx, ubx, lbg, ubg, p, options, lam_g0, lam_x0):
        try:
            import cyipopt
        except ImportError as e:
            raise ImportError(
                f"solver='ipopt' needs cyipopt ({e}): apt-get install coinor-libipopt-dev pkg-config "
                "liblapack-dev libblas-dev, then pip install cyipopt (or conda install -c conda-forge cyipopt)"
            ) from None
        problem = _IpoptCallbacks(self, p)
        clip = lambda v: np.clip(v, -_IPOPT_INF, _IPOPT_INF)  # noqa: E731
        ipopt = cyipopt.Problem(
            n=self.n, m=self.m, problem_obj=problem, lb=clip(lbx), ub=clip(ubx), cl=clip(lbg), cu=clip(ubg)
        )
        for key, value in {**IPOPT_DEFAULTS, **(options or {})}.items():
            try:
                ipopt.add_option(key, value)
            except (TypeError, ValueError) as e:
                raise ValueError(f"IPOPT rejects the option {key}={value!r} ({e}): see its message above") from None
        warm = {}
        if lam_g0 is not None:
            warm["lagrange"] = lam_g0
        if lam_x0 is not None:
            warm["zl"], warm["zu"] = np.maximum(-lam_x0, 0.0), np.maximum(lam_x0, 0.0)
        x, info = ipopt.solve(x0, **warm)
        message = info["status_msg"]
        if isinstance(message, bytes):
            message = message.decode()
        code = int(info["status"])
        return {
            "x": x,
            "lam_g": np.asarray(info["mult_g"], dtype=float),
            "lam_x": np.asarray(info["mult_x_U"], dtype=float) - np.asarray(info["mult_x_L"], dtype=float),
            "status": IPOPT_STATUS.get(code, str(code)),
            "message": message,
            "success": code in (0, 1),
            "iterations": problem.iterations,
        }

    def _solve_scipy(self, method, x0, lbx, ubx, lbg, ubg, p, options):
        import scipy.optimize
        import scipy.sparse

        sign = self._sign
        objective = self._timed(lambda x: sign * self.objective(x, p))
        gradient = self._timed(lambda x: sign * self.gradient(x, p))
        box = None
        if np.isfinite(lbx).any() or np.isfinite(ubx).any():
            box = scipy.optimize.Bounds(lbx, ubx)
        if method == "trust-constr":
            # The constraint's hess(x, v) is the whole Lagrangian's Hessian
            # f + v.g (one kernel call); SciPy adds the objective's, zero here.
            zero = scipy.sparse.csr_array((self.n, self.n))
            constraints = []
            if self.m:
                constraints.append(
                    scipy.optimize.NonlinearConstraint(
                        self._timed(lambda x: self.constraints(x, p)),
                        lbg,
                        ubg,
                        jac=self._timed(lambda x: self.jacobian(x, p)),
                        hess=self._timed(lambda x, v: self.hessian(x, sign, v, p, symmetric=True)),
                    )
                )
                hess = lambda x: zero  # noqa: E731
            else:
                hess = self._timed(lambda x: self.hessian(x, sign, None, p, symmetric=True))
            res = scipy.optimize.minimize(
                objective, x0, jac=gradient, hess=hess, method="trust-constr", constraints=constraints,
                bounds=box, options=options or {},
            )
            # SciPy's Lagrangian is f + v.c over every constraint, the bounds
            # (identity Jacobian) last: CasADi's signs for lam_g and lam_x alike.
            lam_g = np.asarray(res.v[0], dtype=float) if self.m else np.zeros(0)
            lam_x = np.asarray(res.v[-1], dtype=float) if box is not None else np.zeros(self.n)
            iterations = int(res.nit)
        else:
            constraints = self._slsqp_constraints(lbg, ubg, p)
            res = scipy.optimize.minimize(
                objective, x0, jac=gradient, method="SLSQP", constraints=constraints, bounds=box,
                options=options or {},
            )
            lam_g = self._slsqp_multipliers(res, lbg, ubg)
            lam_x = self._bound_multipliers(np.asarray(res.x, dtype=float), lam_g, lbx, ubx, p)
            iterations = int(res.nit)
        x = np.asarray(res.x, dtype=float)
        return {
            "x": x,
            "lam_g": lam_g,
            "lam_x": lam_x,
            "status": str(res.message),
            "message": str(res.message),
            "success": bool(res.success),
            "iterations": iterations,
        }

    def _slsqp_rows(self, lbg, ubg):
        eq = np.flatnonzero(lbg == ubg)
        lower = np.flatnonzero((lbg != ubg) & np.isfinite(lbg))
        upper = np.flatnonzero((lbg != ubg) & np.isfinite(ubg))
        return eq, lower, upper

    def _slsqp_constraints(self, lbg, ubg, p):
        """SLSQP's equality ``g[eq] - lbg[eq] = 0`` and inequality
        ``[g - lbg, ubg - g] >= 0`` rows, with dense Jacobians."""
        eq, lower, upper = self._slsqp_rows(lbg, ubg)
        dense = lambda x: self.jacobian(x, p).toarray()  # noqa: E731
        constraints = []
        if eq.size:
            constraints.append({
                "type": "eq",
                "fun": self._timed(lambda x: self.constraints(x, p)[eq] - lbg[eq]),
                "jac": self._timed(lambda x: dense(x)[eq]),
            })
        if lower.size or upper.size:
            constraints.append({
                "type": "ineq",
                "fun": self._timed(lambda x: np.concatenate(
                    (self.constraints(x, p)[lower] - lbg[lower], ubg[upper] - self.constraints(x, p)[upper]))),
                "jac": self._timed(lambda x: np.vstack((dense(x)[lower], -dense(x)[upper]))),
            })
        return constraints

    def _slsqp_multipliers(self, res, lbg, ubg):
        """CasADi-signed ``lam_g`` from SLSQP's ``multipliers`` (SciPy >= 1.15;
        NaN before)."""
        lam = np.zeros(self.m)
        multipliers = getattr(res, "multipliers", None)
        if multipliers is None:
            return np.full(self.m, np.nan)
        eq, lower, upper = self._slsqp_rows(lbg, ubg)
        multipliers = np.asarray(multipliers, dtype=float)  # the equality rows', then the inequality rows'
        mult_eq, mult_ineq = multipliers[: eq.size], multipliers[eq.size :]
        # SciPy: L = f - mu' c(x), so g - lbg >= 0 gives lam_g = -mu, ubg - g >= 0 gives +mu.
        lam[eq] = -mult_eq
        lam[lower] -= mult_ineq[: lower.size]
        lam[upper] += mult_ineq[lower.size :]
        return lam

    def _bound_multipliers(self, x, lam_g, lbx, ubx, p):
        """SLSQP's ``lam_x``, which SciPy does not return: from stationarity,
        ``-(grad f + J' lam_g)``, on the variables at a bound, with the
        bound's sign (``<= 0`` at a lower bound, ``>= 0`` at an upper one),
        zero elsewhere. SLSQP is an active-set method: its variables end on
        their bounds to rounding, not merely near them as an interior point's
        do (trust-constr and IPOPT return their multipliers)."""
        if not np.isfinite(lam_g).all():
            return np.full(self.n, np.nan)
        with np.errstate(all="ignore"):
            lam_x = -(self._sign * self.gradient(x, p) + (self.jacobian(x, p).T @ lam_g if self.m else 0.0))
        scale = 1e-8 * (1.0 + np.abs(x))
        at_lower, at_upper = np.abs(x - lbx) <= scale, np.abs(x - ubx) <= scale
        return np.where(at_lower, np.minimum(lam_x, 0.0), 0.0) + np.where(at_upper, np.maximum(lam_x, 0.0), 0.0)


def _vector(name, value, size, default):
    """A vector argument of ``solve`` as floats: ``value`` a number (for
    every entry) or a vector of ``size`` (``None`` entries are ``default``),
    ``None`` is ``default`` everywhere. A ValueError names ``name`` for any
    other shape and for NaN."""
    if value is None:
        return np.full(size, default, dtype=float)
    entries = np.asarray(value, dtype=object)
    if entries.ndim == 0:
        entries = np.full(size, entries.item(), dtype=object)
    if entries.ndim != 1:
        raise ValueError(f"{name} must be a number or a vector of {size} entries; got shape {entries.shape}")
    if entries.size != size:
        raise ValueError(f"{name} has {entries.size} entries, expected {size}")
    try:
        vector = np.array([default if v is None else v for v in entries], dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must hold numbers (or None): {e}") from None
    nan = np.flatnonzero(np.isnan(vector))
    if nan.size:
        raise ValueError(f"{name} has NaN at {nan.tolist()[:10]}")
    return vector


def _same(a, b):
    """Whether the float arrays (or ``None``) ``a`` and ``b`` hold the same
    bits: ``-0.0`` is not ``0.0``, a NaN is itself."""
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and a.tobytes() == b.tobytes()


class _IpoptCallbacks:
    """cyipopt's problem object: the kernels at the fixed ``p``, the
    objective's sign flipped for a maximization (IPOPT minimizes)."""

    def __init__(self, nlp, p):
        self.nlp, self.p = nlp, p
        self.iterations = 0
        timed, sign = nlp._timed, nlp._sign
        self.objective = timed(lambda x: sign * nlp.objective(x, p))
        self.gradient = timed(lambda x: sign * nlp.gradient(x, p))
        self.constraints = timed(lambda x: nlp.constraints(x, p))
        self.jacobian = timed(lambda x: nlp.jacobian_nonzeros(x, p))
        self.hessian = timed(lambda x, lam, obj_factor: nlp.hessian_nonzeros(x, sign * obj_factor, lam, p))

    def jacobianstructure(self):
        return self.nlp.jacobian_structure

    def hessianstructure(self):
        return self.nlp.hessian_structure

    def intermediate(self, alg_mod, iter_count, *args):
        self.iterations = int(iter_count)
