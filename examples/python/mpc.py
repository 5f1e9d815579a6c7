"""Model predictive control of a cart-pole swing-up with dstar.NLP and IPOPT.

    python examples/python/mpc.py [STEPS]        # 60 by default

The problem is cartpole_50.dstar (``../shared/structured/gen.py cartpole 50``:
RK4 multiple shooting over 50 intervals of 0.04 s, the RK4 step and the
dynamics as functions), whose parameters p0..p3 are the initial state
(cart position, pole angle, their rates). Its cost is the control effort
and the final state's distance to position 0, angle pi, two seconds (the
horizon) ahead; in gen.py's dynamics angle pi is the stable equilibrium
and 0 the unstable one. Controls are bounded, |u| <= 20. From rest at
angle 0 the closed loop lets the pole swing through pi, steering each
plan's end to pi, and ends balancing it at 2 pi: the cost has no term
before the horizon's end (the loop's behaviour is the problem's, the
solves are right: each ends with IPOPT's Solve_Succeeded). The kernels compile once, in the set-up;
then every step of the closed loop

  1. solves the NLP with the measured state as the new parameter ``p``,
     warm-started (IPOPT's warm_start_init_point) from the previous solution
     shifted by one interval, and its multipliers;
  2. applies the first control to the plant (the same RK4 step, in NumPy)
     for one interval and measures the new state.

Prints the set-up once and, per step, the IPOPT iterations, the seconds in
dstar's kernels and the step's wall time.
"""

import math
import pathlib
import sys
import time

import numpy as np

import dstar

PROBLEM = pathlib.Path(__file__).resolve().parent / "cartpole_50.dstar"
N, DT, U_MAX = 50, 0.04, 20.0
STATES = 4 * (N + 1)
WARM = {"warm_start_init_point": "yes", "warm_start_bound_push": 1e-6, "warm_start_mult_bound_push": 1e-6,
        "mu_init": 1e-4}


def dynamics(s, u):
    """The cart-pole of gen.py's ``dyn``: d/dt (pos, th, v, om)."""
    pos, th, v, om = s
    st, ct = math.sin(th), math.cos(th)
    den = 1.1 - 0.1 * ct * ct
    dv = (u + 0.05 * om * om * st - 0.981 * st * ct) / den
    dom = (-u * ct - 0.05 * om * om * st * ct + 10.791 * st) / (0.5 * den)
    return np.array([v, om, dv, dom])


def plant(s, u):
    """One interval of the plant: RK4 with step DT, as gen.py's ``rk4``."""
    k1 = dynamics(s, u)
    k2 = dynamics(s + DT / 2 * k1, u)
    k3 = dynamics(s + DT / 2 * k2, u)
    k4 = dynamics(s + DT * k3, u)
    return s + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def shifted(v, block, count):
    """`count` blocks of `block` numbers moved one block earlier, the last repeated."""
    blocks = v.reshape(count, block)
    return np.concatenate((blocks[1:], blocks[-1:])).ravel()


def main(steps=60, initial=(0.0, 0.0, 0.0, 0.0), out=print):
    start = time.perf_counter()
    nlp = dstar.NLP(PROBLEM.read_text())
    setup = time.perf_counter() - start
    lbx = np.r_[np.full(STATES, -np.inf), np.full(N, -U_MAX)]
    ubx = np.r_[np.full(STATES, np.inf), np.full(N, U_MAX)]
    bounds = dict(lbx=lbx, ubx=ubx, lbg=0.0, ubg=0.0)  # every constraint an equality
    out(f"set-up: {nlp!r}, kernels compiled in {setup * 1e3:.0f} ms (once; no compilation after this)")

    state = np.array(initial, dtype=float)
    guess = np.r_[np.column_stack([np.zeros(N + 1), np.linspace(state[1], math.pi, N + 1), np.zeros(N + 1),
                                   np.zeros(N + 1)]).ravel(), np.zeros(N)]
    sol = nlp.solve(guess, **bounds, p=state, options={"max_iter": 500})
    out(f"first solve (cold): {sol['status']}, {sol['iterations']} iterations, "
        f"{sol['t_derivatives'] * 1e3:.1f} ms in kernels of {sol['t_wall'] * 1e3:.1f} ms")
    out(f"{'step':>4} {'angle':>7} {'pos':>7} {'u':>8} {'iters':>5} {'kernels ms':>10} {'wall ms':>8} "
        f"{'kernels %':>9}  status")
    rows = []
    for step in range(steps):
        wall = time.perf_counter()
        x0 = np.r_[shifted(sol["x"][:STATES], 4, N + 1), shifted(sol["x"][STATES:], 1, N)]
        x0[:4] = state
        lam_g = np.r_[shifted(sol["lam_g"][: 4 * N], 4, N), sol["lam_g"][4 * N :]]
        lam_x = np.r_[np.zeros(STATES), shifted(sol["lam_x"][STATES:], 1, N)]
        sol = nlp.solve(x0, **bounds, p=state, lam_g0=lam_g, lam_x0=lam_x, options=WARM)
        u = float(sol["x"][STATES])
        state = plant(state, u)
        wall = time.perf_counter() - wall
        rows.append(dict(success=sol["success"], iterations=sol["iterations"], kernels=sol["t_derivatives"],
                         wall=wall, angle=state[1], u=u))
        out(f"{step:>4} {state[1]:>7.3f} {state[0]:>7.3f} {u:>8.3f} {sol['iterations']:>5} "
            f"{sol['t_derivatives'] * 1e3:>10.2f} {wall * 1e3:>8.1f} {100 * sol['t_derivatives'] / wall:>8.1f}%  "
            f"{sol['status']}")
    fractions = [r["kernels"] / r["wall"] for r in rows]
    out(f"\n{steps} steps: all solved: {all(r['success'] for r in rows)}; compilations after set-up: none (solve() only calls the set-up's kernels); "
        f"iterations per step {np.mean([r['iterations'] for r in rows]):.1f} (max {max(r['iterations'] for r in rows)}); "
        f"kernels {np.mean([r['kernels'] for r in rows]) * 1e3:.2f} ms of {np.mean([r['wall'] for r in rows]) * 1e3:.1f} ms "
        f"per step: {100 * np.mean(fractions):.1f}% (median {100 * np.median(fractions):.1f}%, "
        f"steps above 20%: {sum(f > 0.2 for f in fractions)}, max {100 * max(fractions):.1f}%); "
        f"final angle {state[1]:.4f} (pi = {math.pi:.4f})")
    return {"setup": setup, "rows": rows, "state": state}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
