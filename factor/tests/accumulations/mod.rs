//! Every way dstar differentiates a kernel, side by side, as dense matrices
//! at one point: the default Jacobian (and its common-subchain rewrite), each
//! D* strategy, each full elimination, each scarcity remainder (applied
//! numerically and as its directions kernel), the `jvp` and `vjp` kernels;
//! and every output's Hessian by every method, in the Lagrangian, and with
//! the `hvp` kernel. The exact searches
//! (optimal vertex and edge orders) run on small kernels only.

use factor::{Elimination, HessianMethod, Strategy, Weights};
use frontend::Kernel;

/// Kernels of at most this many operations also run the exact vertex search.
const VERTEX_SEARCH_OPS: usize = 12;
/// Kernels of at most this many operations also run the exact edge search
/// (its metagraph takes about 0.1 s at 8 operations).
const EDGE_SEARCH_OPS: usize = 5;

/// How a dense matrix was obtained: entry by entry, or as products with
/// unit vectors. A product `J·e_k` is `Σ J[i][k']·e_k[k']`, so a non-finite
/// entry elsewhere in row `i` makes it NaN (`0 · NaN`) even where `J[i][k]`
/// is finite: oracles must look at the whole row (column for `eᵢᵀ·J`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extraction {
    /// Each entry computed on its own.
    Entries,
    /// Column `k` is the product with the unit vector `e_k`.
    Columns,
    /// Row `i` is the product of `e_iᵀ` with the matrix.
    Rows,
}

/// An accumulation's name, its dense matrix at the point, and how it was obtained.
pub type Accumulated = (String, Vec<Vec<f64>>, Extraction);

/// Dense Jacobians at `x` by every accumulation that runs on `function`
/// (the eliminations' size guards may skip some).
pub fn every_jacobian(function: &Kernel, x: &[f64]) -> Vec<Accumulated> {
    let (m, n) = (function.num_outputs(), function.num_inputs());
    let mut out = Vec::new();
    let default = factor::jacobian(function.clone());
    out.push(("default".to_string(), default.eval(x).1, Extraction::Entries));
    let mut simplified = default;
    simplified.simplify(&factor::plan::simplifier());
    out.push(("default, simplified".to_string(), simplified.eval(x).1, Extraction::Entries));
    for strategy in Strategy::ALL {
        let dense = factor::jacobian_with(function.clone(), strategy).eval(x).1;
        out.push((strategy.name().to_string(), dense, Extraction::Entries));
    }
    let units: Vec<Vec<f64>> =
        (0..n).map(|k| (0..n).map(|j| f64::from(u8::from(j == k))).collect()).collect();
    for elimination in Elimination::ALL {
        // The exact searches are exponential: on small kernels only (their
        // orders replay through the same products as the others').
        let limit = match elimination {
            Elimination::OptimalVertex => VERTEX_SEARCH_OPS,
            Elimination::OptimalEdge => EDGE_SEARCH_OPS,
            _ => usize::MAX,
        };
        if function.count_ops() > limit {
            continue;
        }
        if !elimination.is_partial() {
            if let Ok(accumulation) = eliminate::accumulate(function, elimination) {
                out.push((elimination.name().to_string(), accumulation.eval(x), Extraction::Entries));
            }
            continue;
        }
        let Some(remainder) = eliminate::scarcity_remainder(function, elimination) else { continue };
        // Column k of J is J·e_k.
        let (columns, _) = remainder.apply(x, &units);
        out.push((format!("{} applied", elimination.name()), transpose(&columns, m), Extraction::Columns));
        let kernel = remainder.directions_kernel(n);
        let mut inputs = x.to_vec();
        units.iter().for_each(|u| inputs.extend(u));
        let values = kernel.eval(&inputs);
        let columns: Vec<Vec<f64>> = values.chunks(m.max(1)).map(<[f64]>::to_vec).collect();
        out.push((format!("{} kernel", elimination.name()), transpose(&columns, m), Extraction::Columns));
    }
    let jvp = factor::jvp(function.clone(), 1);
    let columns: Vec<Vec<f64>> = units.iter().map(|u| jvp.eval(&[x, u].concat())).collect();
    out.push(("jvp".to_string(), transpose(&columns, m), Extraction::Columns));
    let vjp = factor::vjp(function.clone(), 1);
    let rows = (0..m)
        .map(|i| {
            let w: Vec<f64> = (0..m).map(|j| f64::from(u8::from(j == i))).collect();
            vjp.eval(&[x, &w].concat())
        })
        .collect();
    out.push(("vjp".to_string(), rows, Extraction::Rows));
    out
}

/// The dense Hessian at `x` of output `output` of `function`: by
/// [`factor::hessian`] (the cheapest method), by each method of
/// [`factor::hessian_with`] (edge pushing, D* on the gradient by every
/// strategy), by [`factor::lagrangian_hessian`] of that output with weight
/// 1, and by the `hvp` kernel applied to each unit vector.
pub fn every_hessian(function: &Kernel, output: usize, x: &[f64]) -> Vec<Accumulated> {
    let n = function.num_inputs();
    let hessian = factor::hessian(function.clone(), output);
    let mut out = vec![("hessian".to_string(), hessian.eval(x).2, Extraction::Entries)];
    let alone = function.clone().with_roots(vec![function.roots()[output]]).expect("an output");
    for method in hessian_methods() {
        let by_method = factor::hessian_with(alone.clone(), Weights::Unit, method);
        out.push((format!("hessian {method}"), by_method.eval(x).2, Extraction::Entries));
    }
    // Output `output` alone, weight 1: with the others weighted 0, a
    // non-finite Hessian of theirs would be 0 · inf in the sum.
    let lagrangian = factor::lagrangian_hessian(alone.clone());
    out.push(("lagrangian".to_string(), lagrangian.eval(&[x, &[1.0]].concat()).2, Extraction::Entries));
    let hvp = factor::hvp(alone, 1);
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|k| {
            let unit: Vec<f64> = (0..n).map(|j| f64::from(u8::from(j == k))).collect();
            hvp.eval(&[x, &[1.0], &unit].concat())
        })
        .collect();
    out.push(("hvp".to_string(), transpose(&columns, n), Extraction::Columns));
    out
}

/// Every method of [`factor::hessian_with`].
pub fn hessian_methods() -> Vec<HessianMethod> {
    std::iter::once(HessianMethod::EdgePushing)
        .chain(Strategy::ALL.into_iter().map(HessianMethod::DstarOnGradient))
        .collect()
}

/// The `rows × columns.len()` matrix whose columns are `columns`.
fn transpose(columns: &[Vec<f64>], rows: usize) -> Vec<Vec<f64>> {
    (0..rows).map(|i| columns.iter().map(|c| c[i]).collect()).collect()
}
