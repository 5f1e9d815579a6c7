//! Real spherical harmonics `Y_l^m(x, y, z)`, `0 <= l < order`, built by the
//! Cartesian recurrence of the corpus `sh_*.dstar` files: `S_m`/`C_m` for the
//! azimuthal part and the associated-Legendre recurrence in `z`.

use frontend::{ExprDag, NodeId};

/// The harmonics of every `l < order`, ordered `l = 0..order`, `m = -l..=l`,
/// as outputs of a DAG over the inputs `(x, y, z)`.
pub fn spherical_harmonics(order: usize) -> (ExprDag, Vec<NodeId>) {
    let mut dag = ExprDag::new();
    let x = dag.input(0);
    let y = dag.input(1);
    let z = dag.input(2);
    let zero = dag.constant(0.0);
    let one = dag.constant(1.0);
    // S_m = Im (x + iy)^m, C_m = Re (x + iy)^m.
    let mut s = vec![zero, y];
    let mut c = vec![one, x];
    for m in 2..order.max(2) {
        let (s1, c1) = (s[m - 1], c[m - 1]);
        let a = dag.mul(x, s1);
        let b = dag.mul(y, c1);
        s.push(dag.add(a, b));
        let a = dag.mul(x, c1);
        let b = dag.mul(y, s1);
        c.push(dag.sub(a, b));
    }
    // p[l][m]: the associated Legendre polynomial without the (1-z²)^(m/2)
    // factor, which S_m and C_m carry.
    let mut p: Vec<Vec<NodeId>> = Vec::new();
    let mut outputs = Vec::new();
    for l in 0..order {
        let mut row = Vec::new();
        for m in 0..=l {
            let node = if m == l {
                // (-1)^m (2m-1)!!
                let double_factorial: f64 = (1..=m).map(|k| (2 * k - 1) as f64).product();
                dag.constant(if m % 2 == 0 { double_factorial } else { -double_factorial })
            } else if m + 1 == l {
                let k = dag.constant((2 * m + 1) as f64);
                let kz = dag.mul(k, z);
                dag.mul(kz, p[l - 1][m])
            } else {
                let a = dag.constant((2 * l - 1) as f64 / (l - m) as f64);
                let b = dag.constant((l + m - 1) as f64 / (l - m) as f64);
                let az = dag.mul(a, z);
                let first = dag.mul(az, p[l - 1][m]);
                let second = dag.mul(b, p[l - 2][m]);
                dag.sub(first, second)
            };
            row.push(node);
        }
        for m in -(l as i64)..=(l as i64) {
            let am = m.unsigned_abs() as usize;
            let ratio: f64 = ((l - am + 1)..=(l + am)).map(|k| k as f64).product();
            let mut norm = ((2 * l + 1) as f64 / (4.0 * std::f64::consts::PI) / ratio).sqrt();
            if m != 0 {
                norm *= std::f64::consts::SQRT_2;
            }
            let k = dag.constant(norm);
            let kp = dag.mul(k, row[am]);
            outputs.push(match m {
                0 => kp,
                m if m < 0 => dag.mul(kp, s[am]),
                _ => dag.mul(kp, c[am]),
            });
        }
        p.push(row);
    }
    (dag, outputs)
}
