//! Comparing floating-point results: tolerances and ulp distances.
//!
//! ```
//! use testkit::{close, ulps, Tol};
//! assert!(close(1.0, 1.0 + 1e-13, Tol::rel(1e-12)));
//! assert!(close(f64::NAN, f64::NAN, Tol::rel(0.0)));
//! assert!(!close(1e-20, 2e-20, Tol { rel: 1e-9, abs: 0.0 }));
//! assert_eq!(ulps(1.0, 1.0 + f64::EPSILON), 1);
//! ```

/// A tolerance: `|a - b| <= abs + rel · max(|a|, |b|)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tol {
    /// Relative to the larger magnitude.
    pub rel: f64,
    /// Absolute, for values that cancel down to about zero.
    pub abs: f64,
}

impl Tol {
    /// Relative `rel`, absolute `rel` too: `|a - b| <= rel · (1 + max(|a|, |b|))`,
    /// for values computed from terms of order 1.
    pub fn rel(rel: f64) -> Tol {
        Tol { rel, abs: rel }
    }
}

/// Whether `a` and `b` agree within `tol`; NaN agrees with NaN, and an
/// infinity only with itself.
pub fn close(a: f64, b: f64, tol: Tol) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    a == b || (a - b).abs() <= tol.abs + tol.rel * a.abs().max(b.abs())
}

/// Whether two slices have the same length and agree element by element.
pub fn all_close(a: &[f64], b: &[f64], tol: Tol) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y, tol))
}

/// Whether two matrices (rows of values) have the same shape and agree
/// element by element.
pub fn rows_close(a: &[Vec<f64>], b: &[Vec<f64>], tol: Tol) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(r, s)| all_close(r, s, tol))
}

/// Distance in units in the last place (adjacent doubles are 1 apart, `-0`
/// and `+0` are 0 apart); 0 when both are NaN, `u64::MAX` when one is.
pub fn ulps(a: f64, b: f64) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => {
            let ordered = |x: f64| {
                let bits = x.to_bits() as i64;
                if bits < 0 {
                    i64::MIN.wrapping_sub(bits)
                } else {
                    bits
                }
            };
            (ordered(a) as i128 - ordered(b) as i128).unsigned_abs() as u64
        }
        _ => u64::MAX,
    }
}

/// Bitwise equal, or both NaN.
pub fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Whether two slices are bitwise equal element by element (NaN matching NaN).
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(*x, *y))
}

/// Whether every node `roots` reach is finite and at most `bound` in
/// magnitude at `point`. Past such a bound, rounding differences are
/// amplified (`cos` of a large argument, a difference of large values)
/// beyond any fixed tolerance: such points are skipped, not loosened.
pub fn well_conditioned(
    dag: &frontend::ExprDag,
    roots: &[frontend::NodeId],
    point: &[f64],
    bound: f64,
) -> bool {
    let reach = dag.reachable(roots);
    let values = frontend::eval_nodes(dag, roots, point);
    values.iter().zip(&reach).filter(|(_, r)| **r).all(|(v, _)| v.is_finite() && v.abs() <= bound)
}
