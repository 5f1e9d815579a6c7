"""Issue 38's target: reading and compiling an .nl file of about 10^5
variables (a discretized optimal-control model written by Pyomo) against
the time Pyomo takes to write it.

    python3 examples/peers/nl_scale.py [INTERVALS] [DSTAR]   # pip install pyomo

The model: a cart-pole-like double integrator with a pendulum by explicit
trapezoidal collocation over INTERVALS intervals (4 states and a control
per interval: 5 (N+1) variables), objective the control effort. Prints
Pyomo's write time, then dstar's read + symbolic Jacobian (`stats`) and
read + compiled Jacobian and Lagrangian Hessian + timing runs (`bench
--hessian`, whose own set-up figures follow), each as a ratio to the
write. Where Debian's gjh-asl-json is installed, also the ASL's whole run
on the file (`gjh_asl_json`: read the .nl, set up and evaluate the
gradient, Jacobian and Lagrangian Hessian once, write them all as JSON) as
a ratio to dstar's `bench --hessian` run: two whole processes, not their
derivative evaluations alone.
"""

import json
import shutil
import subprocess
import sys
import time

import pyomo.environ as pe


def model(n):
    m = pe.ConcreteModel()
    m.T = pe.RangeSet(0, n)
    h = 2.0 / n
    m.p = pe.Var(m.T, initialize=0.0)
    m.th = pe.Var(m.T, initialize=lambda m, t: 3.14159 * t / n)
    m.v = pe.Var(m.T, initialize=0.0)
    m.om = pe.Var(m.T, initialize=0.0)
    m.u = pe.Var(m.T, bounds=(-20, 20), initialize=0.0)

    def dyn(m, t):
        st, ct = pe.sin(m.th[t]), pe.cos(m.th[t])
        den = 1.1 - 0.1 * ct * ct
        dv = (m.u[t] + 0.05 * m.om[t] ** 2 * st - 0.981 * st * ct) / den
        dom = (-m.u[t] * ct - 0.05 * m.om[t] ** 2 * st * ct + 10.791 * st) / (0.5 * den)
        return m.v[t], m.om[t], dv, dom

    m.f = pe.Expression(m.T, range(4), rule=lambda m, t, k: dyn(m, t)[k])
    states = [m.p, m.th, m.v, m.om]
    m.c = pe.Constraint(
        range(n), range(4), rule=lambda m, t, k: states[k][t + 1] - states[k][t] == 0.5 * h * (m.f[t, k] + m.f[t + 1, k])
    )
    m.obj = pe.Objective(expr=h * sum(m.u[t] ** 2 for t in m.T))
    return m


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    dstar = sys.argv[2] if len(sys.argv) > 2 else "target/release/dstar"
    m = model(n)
    start = time.perf_counter()
    m.write("/tmp/nl_scale.nl", io_options={"symbolic_solver_labels": False})
    write = time.perf_counter() - start
    print(f"{5 * (n + 1)} variables, {4 * n} constraints: Pyomo writes the .nl in {write:.2f} s")
    stats = timed([dstar, "stats", "/tmp/nl_scale.nl", "--json"])
    print(f"dstar stats (read, symbolic Jacobian):            {stats:.2f} s = {stats / write:.2f}x the write")
    start = time.perf_counter()
    out = subprocess.run([dstar, "bench", "/tmp/nl_scale.nl", "--hessian", "--json"], check=True, capture_output=True)
    bench = time.perf_counter() - start
    timings = json.loads(out.stdout)
    setup = {k: v for k, v in timings.items() if k.endswith("_ms") and "call" not in k}
    print(f"dstar bench --hessian (read, compile J and H, time them): {bench:.2f} s = {bench / write:.2f}x the write")
    print("  its set-up, ms:", json.dumps(setup))
    gjh = shutil.which("gjh_asl_json")
    if gjh is not None:
        asl = timed([gjh, "/tmp/nl_scale.nl"])
        print(
            f"ASL (gjh_asl_json: read, evaluate g, J, H once, write JSON): {asl:.2f} s"
            f" = {asl / bench:.2f}x dstar bench --hessian (whole processes, JSON included)"
        )


if __name__ == "__main__":
    main()
