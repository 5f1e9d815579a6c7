//! Oracle comparisons: a Jacobian against dual numbers and central
//! differences at one point.

use crate::dual::eval_dual;
use frontend::{ExprDag, NodeId};

/// What a comparison at one point found.
#[derive(Debug)]
pub enum Verdict {
    /// The Jacobian agrees with both oracles.
    Agrees,
    /// The point was skipped (or partly skipped): non-finite, near a kink
    /// or ill-conditioned; the reason says which.
    Skipped(&'static str),
    /// A disagreement, described.
    Wrong(String),
    /// A non-finite derivative where the dual number is finite, described:
    /// wrong unless the caller finds the overflow that explains it.
    NonFinite(String),
}

/// Central differences of `outputs` along input `k` at `x`, each with the
/// rounding error its subtraction can make (`eps·|f|/h`).
fn central_difference(dag: &ExprDag, outputs: &[NodeId], x: &[f64], k: usize, h: f64) -> Vec<(f64, f64)> {
    crate::diff::central_difference(&|y| frontend::eval(dag, outputs, y), x, k, h)
}

/// Compares `jacobian` (dense, one row per output) with dual numbers
/// (tight: 1e-9 relative plus the rounding room of the cancellation-free
/// magnitude) and with central differences (rel 1e-5, abs 1e-7).
pub fn compare(
    dag: &ExprDag,
    outputs: &[NodeId],
    x: &[f64],
    values: &[f64],
    jacobian: &[Vec<f64>],
) -> Verdict {
    let reference = frontend::eval(dag, outputs, x);
    if reference.iter().any(|v| !v.is_finite()) {
        return Verdict::Skipped("non-finite value");
    }
    for (i, (a, b)) in values.iter().zip(&reference).enumerate() {
        if a.to_bits() != b.to_bits() {
            return Verdict::Wrong(format!("value of output {i}: {a} vs {b}"));
        }
    }
    let mut skipped = None;
    for k in 0..x.len() {
        let dual = eval_dual(dag, outputs, x, k);
        let h = 1e-5 * x[k].abs().max(1.0);
        for (i, d) in dual.outputs.iter().enumerate() {
            let exact = jacobian[i][k];
            if !d.d.is_finite() || !d.m.is_finite() {
                skipped = Some("non-finite dual");
                continue;
            }
            let tolerance = 1e-9 * d.d.abs() + 1e-11 * d.m + 1e-13;
            // Written so that a NaN from D* counts as a disagreement.
            let agrees = (exact - d.d).abs() <= tolerance;
            if !agrees && !exact.is_finite() {
                return Verdict::NonFinite(format!(
                    "d out{i}/d x{k}: D* {exact} vs dual {} (magnitude {})",
                    d.d, d.m
                ));
            }
            if !agrees {
                return Verdict::Wrong(format!(
                    "d out{i}/d x{k}: D* {exact} vs dual {} (magnitude {})",
                    d.d, d.m
                ));
            }
        }
        // Central differences only where the steps cannot cross a kink.
        if dual.kink_margin < 100.0 * h {
            skipped = Some("near a kink");
            continue;
        }
        // The dual derivative's second difference over the step estimates
        // the central difference's truncation error (h² f'''/6).
        let shifted = |sign: f64| {
            let mut y = x.to_vec();
            y[k] += sign * h / 2.0;
            eval_dual(dag, outputs, &y, k).outputs
        };
        let (above, below) = (shifted(1.0), shifted(-1.0));
        let coarse = central_difference(dag, outputs, x, k, h);
        let fine = central_difference(dag, outputs, x, k, h / 2.0);
        for (i, ((c, c_noise), (f, f_noise))) in coarse.iter().zip(&fine).enumerate() {
            let exact = jacobian[i][k];
            let tolerance = |a: f64, b: f64| 1e-5 * a.abs().max(b.abs()) + 1e-7;
            let curvature = (above[i].d + below[i].d - 2.0 * dual.outputs[i].d).abs() / 6.0;
            let quantized = 2.0 * dual.outputs[i].e / h;
            let noisy = c_noise.max(*f_noise).max(curvature).max(quantized) > 0.1 * tolerance(*c, *f)
                || curvature.is_nan();
            if !c.is_finite() || !f.is_finite() || noisy || (c - f).abs() > 0.25 * tolerance(*c, *f) {
                skipped = Some("ill-conditioned"); // rounding noise, or the two steps disagree
                continue;
            }
            // The exact derivative itself is only as accurate as its
            // evaluation: eps times the cancellation-free magnitude.
            let rounding = 1e-11 * dual.outputs[i].m;
            if (exact - f).abs() > tolerance(exact, *f) + rounding {
                return Verdict::Wrong(format!("d out{i}/d x{k}: D* {exact} vs central difference {f}"));
            }
        }
    }
    match skipped {
        Some(reason) => Verdict::Skipped(reason),
        None => Verdict::Agrees,
    }
}
