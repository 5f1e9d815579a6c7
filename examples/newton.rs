//! Newton's method on a nonlinear system, with the Jacobian from one JIT call.
//!
//! The system intersects a sphere, the hyperboloid `xyz = 6` and an
//! exponential surface; its root near the start is `(1, 2, 3)`. Each step
//! evaluates `F` and `J` together with the compiled kernel and solves
//! `J dx = -F` by Gaussian elimination with partial pivoting.
//!
//! ```text
//! cargo run --release --example newton
//! ```

/// The system `F(x, y, z) = 0`, in the problem format.
pub const SYSTEM: &str = "\
# A sphere, a hyperboloid and an exponential surface; one root is (1, 2, 3).
in x, y, z
out sphere = x^2 + y^2 + z^2 - 14
out hyperboloid = x*y*z - 6
out surface = exp(x - 1) + y*z - 7
";

/// The root Newton's method is started near.
pub const ROOT: [f64; 3] = [1.0, 2.0, 3.0];

/// Where the iteration starts.
pub const START: [f64; 3] = [1.4, 1.6, 2.7];

/// One Newton iterate.
#[derive(Clone, Debug)]
pub struct Iterate {
    /// The point `x_k`.
    pub x: Vec<f64>,
    /// `|F(x_k)|_inf`.
    pub residual: f64,
    /// `|x_k - root|_inf`.
    pub error: f64,
}

/// What a run of Newton's method did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Every iterate, the start first.
    pub iterates: Vec<Iterate>,
}

/// Runs Newton's method from [`START`] until `|F|_inf < 1e-14` and checks
/// that it converged quadratically to [`ROOT`].
pub fn run() -> Report {
    let options = dstar::Options::default();
    let kernel = dstar::compile(SYSTEM, dstar::Request::Jacobian, &options).expect("the system compiles");
    let mut x = START.to_vec();
    let mut iterates = vec![];
    for _ in 0..20 {
        // The values (one row), then the Jacobian.
        let dense = kernel.eval_dense(dstar::Args::x(&x)).expect("x has 3 values");
        let (f, jacobian) = (&dense[0][0], dense[1].clone());
        let residual = norm_inf(f);
        let error = x.iter().zip(ROOT).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        iterates.push(Iterate { x: x.clone(), residual, error });
        if residual < 1e-14 {
            break;
        }
        let step = solve(jacobian, f.iter().map(|v| -v).collect());
        for (xi, dx) in x.iter_mut().zip(&step) {
            *xi += dx;
        }
    }
    let report = Report { iterates };
    check(&report);
    report
}

/// Converged to the root, with the error squared (up to a constant) each
/// step once close.
fn check(report: &Report) {
    let last = report.iterates.last().expect("at least one iterate");
    assert!(last.residual < 1e-12, "no convergence: |F| = {:e}", last.residual);
    assert!(last.error < 1e-12, "converged to {:?}, not {ROOT:?}", last.x);
    // e_{k+1} <= C e_k^2 wherever e_k is small but e_{k+1} is above rounding.
    let mut quadratic_steps = 0;
    for pair in report.iterates.windows(2) {
        let (e0, e1) = (pair[0].error, pair[1].error);
        if e0 < 0.1 && e1 > 1e-13 {
            assert!(e1 <= 10.0 * e0 * e0, "not quadratic: {e0:e} -> {e1:e}");
            quadratic_steps += 1;
        }
    }
    assert!(quadratic_steps >= 2, "too few steps to see quadratic convergence");
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
pub fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for k in 0..n {
        let pivot = (k..n).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs())).expect("k < n");
        assert!(a[pivot][k] != 0.0, "singular matrix");
        a.swap(k, pivot);
        b.swap(k, pivot);
        for i in k + 1..n {
            let factor = a[i][k] / a[k][k];
            for j in k..n {
                a[i][j] -= factor * a[k][j];
            }
            b[i] -= factor * b[k];
        }
    }
    let mut x = vec![0.0; n];
    for k in (0..n).rev() {
        let tail: f64 = (k + 1..n).map(|j| a[k][j] * x[j]).sum();
        x[k] = (b[k] - tail) / a[k][k];
    }
    x
}

/// The largest absolute value in `v`.
fn norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn main() {
    let report = run();
    println!("{:>2}  {:>26}  {:>10}  {:>10}  {:>14}", "k", "x", "|F|", "|x - x*|", "e_k / e_k-1^2");
    let mut previous = None;
    for (k, it) in report.iterates.iter().enumerate() {
        let x: Vec<String> = it.x.iter().map(|v| format!("{v:.6}")).collect();
        let ratio = match previous {
            Some(e) if it.error > 0.0 => format!("{:.3}", it.error / (e * e)),
            _ => String::new(),
        };
        println!("{k:>2}  {:>26}  {:>10.3e}  {:>10.3e}  {ratio:>14}", x.join(" "), it.residual, it.error);
        previous = Some(it.error);
    }
    println!("converged quadratically to {ROOT:?}");
}
