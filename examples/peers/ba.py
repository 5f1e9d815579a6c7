#!/usr/bin/env python3
"""ADBench's bundle-adjustment objective as a dstar problem file.

    python3 ba.py N_CAMS N_PTS N_OBS            # the .dstar program
    python3 ba.py N_CAMS N_PTS N_OBS --json     # the same problem for jax_ba.py

The residuals are ADBench's (`ba.h`: `computeReprojError`,
`computeZachWeightError`): camera k has 11 values in ADBench's layout,
Rodrigues rotation r0..r2, centre c0..c2, focal length f, principal point
u0, v0, radial distortion k1, k2; point j has 3; observation i has a weight
w_i and a feature (two numbers, parameters). Observation i projects its
point through its camera: X - C rotated by Rodrigues' formula (ADBench's
small-angle branch `X + r x X` when |r|^2 == 0, kept with `ifelse`; the
data's angles are far from 0), divided by its third coordinate, radially
distorted by 1 + k1 r^2 + k2 r^4, scaled by f and shifted by (u0, v0); its
two residuals are w_i times the projection minus the feature. Then one
residual 1 - w_i^2 per observation.

Inputs, in ADBench's order: the cameras, the points, the weights. Outputs:
the 2 N_OBS reprojection residuals (observation by observation), then the
N_OBS weight residuals; a reprojection row has 15 nonzeros (11 camera, 3
point, 1 weight), a weight row 1.

Data (seeded, deterministic): angles of about 0.1 to 0.3 rad, centres near
the origin, points 4 to 6 in front, focal lengths near 500, small
distortion, features the projections plus noise. ADBench replicates one
observation read from a file (camera i mod n, point i mod m); here
observation i sees point i mod N_PTS (every point is seen) through a
camera drawn at random.
"""
import json
import random
import sys

BODY = """\
function reproject(r0, r1, r2, c0, c1, c2, f, u0, v0, k1, k2, x0, x1, x2, w, m0, m1) -> (e0, e1)
  y0 = x0 - c0
  y1 = x1 - c1
  y2 = x2 - c2
  sqtheta = r0*r0 + r1*r1 + r2*r2
  theta = sqrt(sqtheta)
  ct = cos(theta)
  st = sin(theta)
  w0 = r0 / theta
  w1 = r1 / theta
  w2 = r2 / theta
  tmp = (w0*y0 + w1*y1 + w2*y2) * (1 - ct)
  z0 = ifelse(sqtheta != 0, y0*ct + (w1*y2 - w2*y1)*st + w0*tmp, y0 + (r1*y2 - r2*y1))
  z1 = ifelse(sqtheta != 0, y1*ct + (w2*y0 - w0*y2)*st + w1*tmp, y1 + (r2*y0 - r0*y2))
  z2 = ifelse(sqtheta != 0, y2*ct + (w0*y1 - w1*y0)*st + w2*tmp, y2 + (r0*y1 - r1*y0))
  p0 = z0 / z2
  p1 = z1 / z2
  rsq = p0*p0 + p1*p1
  l = 1 + k1*rsq + k2*rsq*rsq
  e0 = w * (p0*l*f + u0 - m0)
  e1 = w * (p1*l*f + v0 - m1)
end
werr(w) = 1 - w*w"""


def num(v):
    return repr(float(v))


def problem(n_cams, n_pts, n_obs):
    """Cameras, points, weights, observations (camera, point) and features."""
    rng = random.Random(2036)
    cams = []
    for _ in range(n_cams):
        axis = [rng.gauss(0, 1) for _ in range(3)]
        norm = sum(a * a for a in axis) ** 0.5
        angle = rng.uniform(0.1, 0.3)
        cams.append([angle * a / norm for a in axis]
                    + [rng.uniform(-0.5, 0.5) for _ in range(3)]
                    + [rng.uniform(400, 600), rng.uniform(-1, 1), rng.uniform(-1, 1),
                       rng.uniform(-0.1, 0.1), rng.uniform(-0.02, 0.02)])
    pts = [[rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(4, 6)] for _ in range(n_pts)]
    weights = [rng.uniform(0.8, 1.2) for _ in range(n_obs)]
    obs = [(rng.randrange(n_cams), i % n_pts) for i in range(n_obs)]
    feats = []
    for cam, pt in obs:
        e0, e1 = reproject(cams[cam], pts[pt], 1.0, (0.0, 0.0))
        feats.append([e0 + rng.gauss(0, 1), e1 + rng.gauss(0, 1)])
    return cams, pts, weights, obs, feats


def reproject(cam, X, w, feat):
    """ADBench's reprojection error, in Python (for the features)."""
    import math
    r, c, f, u0, v0, k1, k2 = cam[0:3], cam[3:6], cam[6], cam[7], cam[8], cam[9], cam[10]
    y = [X[i] - c[i] for i in range(3)]
    theta = math.sqrt(sum(a * a for a in r))
    ct, st = math.cos(theta), math.sin(theta)
    k = [a / theta for a in r]
    cross = [k[1] * y[2] - k[2] * y[1], k[2] * y[0] - k[0] * y[2], k[0] * y[1] - k[1] * y[0]]
    tmp = sum(k[i] * y[i] for i in range(3)) * (1 - ct)
    z = [y[i] * ct + cross[i] * st + k[i] * tmp for i in range(3)]
    p = [z[0] / z[2], z[1] / z[2]]
    rsq = p[0] * p[0] + p[1] * p[1]
    el = 1 + k1 * rsq + k2 * rsq * rsq
    return w * (p[0] * el * f + u0 - feat[0]), w * (p[1] * el * f + v0 - feat[1])


CAM = ["r0", "r1", "r2", "c0", "c1", "c2", "f", "u", "v", "ka", "kb"]


def program(n_cams, n_pts, n_obs):
    cams, pts, weights, obs, feats = problem(n_cams, n_pts, n_obs)
    cam_names = [[f"{a}_{k}" for a in CAM] for k in range(n_cams)]
    pt_names = [[f"x{j}_{i}" for i in range(3)] for j in range(n_pts)]
    w_names = [f"w{i}" for i in range(n_obs)]
    lines = [f"# ADBench bundle adjustment: {n_cams} cameras, {n_pts} points, {n_obs} observations",
             "# @point " + " ".join(num(v) for v in [a for c in cams for a in c] + [a for p in pts for a in p] + weights),
             "# @params " + " ".join(num(v) for f in feats for v in f),
             "param " + ", ".join(f"m{i}_{k}" for i in range(n_obs) for k in range(2)),
             "in " + ", ".join(a for c in cam_names for a in c),
             "in " + ", ".join(a for p in pt_names for a in p),
             "in " + ", ".join(w_names),
             BODY]
    for i, (cam, pt) in enumerate(obs):
        args = cam_names[cam] + pt_names[pt] + [w_names[i], f"m{i}_0", f"m{i}_1"]
        lines.append(f"a{i}, b{i} = reproject({', '.join(args)})")
    for i in range(n_obs):
        lines.append(f"out ea{i} = a{i}")
        lines.append(f"out eb{i} = b{i}")
    for i in range(n_obs):
        lines.append(f"out ew{i} = werr(w{i})")
    return "\n".join(lines)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    n_cams, n_pts, n_obs = map(int, args)
    if "--json" in sys.argv:
        cams, pts, weights, obs, feats = problem(n_cams, n_pts, n_obs)
        print(json.dumps({"cams": cams, "pts": pts, "weights": weights, "obs": obs, "feats": feats}))
    else:
        print(program(n_cams, n_pts, n_obs))


if __name__ == "__main__":
    main()
