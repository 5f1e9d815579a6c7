//! Central differences: the step-based oracle, first and second order.
//!
//! A central difference of step `h` has a truncation error of order `h²`
//! and a rounding error of order `eps·|f|/h` (first derivatives) or
//! `eps·|f|/h²` (second): [`step`] balances the two.
//!
//! ```
//! use testkit::{central_jacobian, close, Tol};
//! let f = |x: &[f64]| vec![x[0].sin() * x[1]];
//! let jacobian = central_jacobian(&f, &[0.3, 2.0]);
//! assert!(close(jacobian[0][0], 0.3f64.cos() * 2.0, Tol { rel: 1e-8, abs: 1e-10 }));
//! ```

/// The step for a central difference of `order` 1 (`∛eps`, about 6e-6) or
/// 2 (`∜eps`, about 1.2e-4) at the coordinate `x`, relative to `|x|` when
/// that exceeds 1.
pub fn step(x: f64, order: u32) -> f64 {
    let base = match order {
        1 => f64::EPSILON.cbrt(),
        2 => f64::EPSILON.sqrt().sqrt(),
        _ => panic!("central differences of order 1 or 2, not {order}"),
    };
    base * x.abs().max(1.0)
}

/// The central difference of `f` along input `k` at `x` with step `h`,
/// for each output with the rounding error its subtraction can make
/// (`4·eps·|f|` over the step actually taken).
pub fn central_difference(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], k: usize, h: f64) -> Vec<(f64, f64)> {
    let mut hi = x.to_vec();
    let mut lo = x.to_vec();
    hi[k] += h;
    lo[k] -= h;
    let (f_hi, f_lo) = (f(&hi), f(&lo));
    // The step as represented, not as asked for.
    let step = hi[k] - lo[k];
    f_hi.iter()
        .zip(&f_lo)
        .map(|(a, b)| ((a - b) / step, 4.0 * f64::EPSILON * a.abs().max(b.abs()) / step))
        .collect()
}

/// The dense Jacobian of `f` at `x` (one row per output) by central
/// differences of step [`step`]`(x[k], 1)`.
pub fn central_jacobian(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let columns: Vec<Vec<(f64, f64)>> =
        (0..x.len()).map(|k| central_difference(f, x, k, step(x[k], 1))).collect();
    let m = columns.first().map_or_else(|| f(x).len(), Vec::len);
    (0..m).map(|i| columns.iter().map(|c| c[i].0).collect()).collect()
}

/// The second central difference `∂²f/∂xi∂xj` of each output at `x` with
/// step `h`: `(f(+h,+h) - f(+h,-h) - f(-h,+h) + f(-h,-h)) / 4h²`, which for
/// `i == j` is `(f(x+2h) - 2f(x) + f(x-2h)) / 4h²`.
pub fn second_difference(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], i: usize, j: usize, h: f64) -> Vec<f64> {
    let at = |si: f64, sj: f64| {
        let mut y = x.to_vec();
        y[i] += si * h;
        y[j] += sj * h;
        f(&y)
    };
    let (pp, pm, mp, mm) = (at(1.0, 1.0), at(1.0, -1.0), at(-1.0, 1.0), at(-1.0, -1.0));
    (0..pp.len()).map(|r| (pp[r] - pm[r] - mp[r] + mm[r]) / (4.0 * h * h)).collect()
}

/// The Hessian of each output of `f` at `x` (`[r][i][j]`) by second
/// central differences of step [`step`]`(.., 2)`.
pub fn central_hessian(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<Vec<f64>>> {
    let n = x.len();
    let m = f(x).len();
    let mut hessians = vec![vec![vec![0.0; n]; n]; m];
    for i in 0..n {
        for j in i..n {
            let h = step(x[i].abs().max(x[j].abs()), 2);
            for (r, value) in second_difference(f, x, i, j, h).into_iter().enumerate() {
                hessians[r][i][j] = value;
                hessians[r][j][i] = value;
            }
        }
    }
    hessians
}
