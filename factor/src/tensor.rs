//! Full derivative tensors of any order `d` (issue 15 asks for `d ≤ 4`) as
//! sparse symmetric tensors: only the entries `∂^d f_i / ∂x_{j₁} … ∂x_{j_d}`
//! with `j₁ ≤ … ≤ j_d` that are not structurally zero, found symbolically.
//!
//! Built by nesting first-order Taylor passes, one level per order: at
//! level `l`, one pass along each input `j` differentiates, at once, every
//! entry of level `l - 1` whose last index is at most `j`. That is `d·n`
//! passes over the shared, hash-consed DAG, each entry built once (the
//! symmetric copies never are), and a structural zero (a node that does not
//! depend on `x_j`, or a product whose factor is zero) is never built, so
//! the pattern is what the passes leave: symbolic, not sampled.
//!
//! Interpolation from univariate Taylor coefficients (Griewank, Utke and
//! Walther 2000) needs `C(n + d - 1, d)` passes of degree `d`, one per
//! direction, each `O(d²)` per operation, plus the linear combinations:
//! for `n = 10, d = 3`, 220 passes of degree 3 against 30 of degree 1 here,
//! and it cannot skip a structurally zero entry without the pattern first.

use crate::higher::{Budget, HigherError};
use derivative::taylor::{Scale, Taylor};
use frontend::{ExprDag, Kernel, NodeId};

/// The nonzero entries of the derivative tensors of order `d` of every
/// output, and a kernel computing them.
#[derive(Clone, Debug)]
pub struct DerivativeTensor {
    kernel: Kernel,
    order: usize,
    /// Per entry, its output and `d` nondecreasing input indices, in the
    /// kernel's root order.
    entries: Vec<(usize, Vec<u32>)>,
}

impl DerivativeTensor {
    /// The kernel over the function's inputs whose root `k` is entry `k`.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The kernel, for compiling.
    pub fn into_kernel(self) -> Kernel {
        self.kernel
    }

    /// The order `d`.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Number of entries stored (structural nonzeros up to symmetry).
    pub fn nnz(&self) -> usize {
        self.entries.len()
    }

    /// Entry `k`: its output and its `d` input indices, nondecreasing. The
    /// entries of one output come together, in lexicographic order of the
    /// indices.
    pub fn entry(&self, k: usize) -> (usize, &[u32]) {
        let (output, index) = &self.entries[k];
        (*output, index)
    }

    /// The position of the entry for `output` and the indices `index` (in
    /// any order, by symmetry), or `None` for a structural zero.
    pub fn position(&self, output: usize, index: &[u32]) -> Option<usize> {
        let mut sorted = index.to_vec();
        sorted.sort_unstable();
        self.entries.binary_search_by(|(o, i)| (o, i.as_slice()).cmp(&(&output, sorted.as_slice()))).ok()
    }
}

/// The derivative tensors of order `order` of every output of `function`,
/// by nested first-order Taylor passes (see the module's notes), within
/// `budget`'s work (its operation limit is not applied: a tensor's entries
/// are as many as its pattern says).
///
/// ```
/// let program = frontend::parse_expr("x^2 * y + z")?;
/// let t = factor::derivative_tensor(program.kernel()?, 3, &factor::higher::Budget::default())?;
/// // ∂³/∂x∂x∂y = 2 is the only nonzero third derivative.
/// assert_eq!(t.nnz(), 1);
/// assert_eq!(t.entry(0), (0, &[0, 0, 1][..]));
/// assert_eq!(t.kernel().eval(&[1.0, 2.0, 3.0]), vec![2.0]);
/// assert_eq!(t.position(0, &[1, 0, 0]), Some(0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`HigherError::Work`] when the passes need more than `budget.max_work`.
pub fn derivative_tensor(
    function: Kernel,
    order: usize,
    budget: &Budget,
) -> Result<DerivativeTensor, HigherError> {
    let n = function.num_variables();
    // Taylor series run over calls written out.
    let (mut dag, roots) = function.inlined().into_parts();
    let one = dag.constant(1.0);
    // The entries of the current level: output, indices, node.
    let mut level: Vec<(usize, Vec<u32>, NodeId)> =
        roots.iter().enumerate().map(|(i, &root)| (i, vec![], root)).collect();
    let mut work = 0u64;
    for l in 1..=order {
        let mut next = vec![];
        for j in 0..n {
            // Entries whose indices stay nondecreasing with j appended.
            let from: Vec<usize> = (0..level.len())
                .filter(|&e| level[e].1.last().is_none_or(|&last| last as usize <= j))
                .collect();
            if from.is_empty() {
                continue;
            }
            let nodes: Vec<NodeId> = from.iter().map(|&e| level[e].2).collect();
            let mut direction = vec![None; j + 1];
            direction[j] = Some(one);
            let mut taylor = Taylor::new(&dag, &nodes, &direction, Scale::Derivatives);
            taylor.advance(&mut dag).map_err(|e| HigherError::constants(e, l as u64, 0))?;
            work += taylor.work() + nodes.len() as u64;
            if work > budget.max_work {
                let reached = l as u64 - 1;
                let limit = budget.max_work;
                return Err(HigherError::Work {
                    order: order as u64,
                    stage: 0,
                    reached,
                    within: reached,
                    work,
                    limit,
                });
            }
            for (&e, &node) in from.iter().zip(&nodes) {
                if let Some(d) = taylor.coefficient(node, 1).filter(|&d| !dag.is_const(d, 0.0)) {
                    let (output, index, _) = &level[e];
                    let mut index = index.clone();
                    index.push(j as u32);
                    next.push((*output, index, d));
                }
            }
        }
        level = next;
    }
    level.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut fresh = ExprDag::new();
    let nodes: Vec<NodeId> = level.iter().map(|e| e.2).collect();
    let roots = fresh.import(&dag, &nodes, None);
    let kernel = function.derived(fresh, roots, 0).expect("derivatives read the function's inputs");
    let entries = level.into_iter().map(|(o, i, _)| (o, i)).collect();
    Ok(DerivativeTensor { kernel, order, entries })
}
