//! The Lagrangian Hessian by columns: `H·V` for [`plan::COLUMNS_PER_CALL`]
//! unit directions at a time, `⌈n / k⌉` calls of one kernel, each column's
//! entries on and below the diagonal kept. The linear method that always
//! exists (forward over reverse, as JAX's `jacfwd(grad)`): its kernel is
//! the size of the function's graph whatever the Hessian's, where a
//! straight-line Hessian costs an operation or more per nonzero to build
//! and to compile. The plan ([`columns`]) takes it for large, dense
//! Hessians only, where the calls cost no more than [`plan::COLUMNS_WORK_PER_NONZERO`]
//! operations per nonzero.
//!
//! ```
//! use factor::columns::Columns;
//! let f = frontend::parse_program("in x, y\nout x*x*y")?.kernel()?;
//! let columns = Columns::new(&f, 8);
//! // The lower triangle of [[2y, 2x], [2x, 0]] at (1, 2): 2y, then 2x (0 is no entry).
//! assert_eq!(columns.eval(&[1.0, 2.0, /* w */ 1.0]), [4.0, 2.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::directional::hvp;
use crate::plan;
use frontend::{Kernel, Op, SparsityPattern};
use std::sync::Arc;

/// A Lagrangian Hessian's lower triangle by `H·V` products over unit
/// directions, [`run`](Columns::run) by the interpreter or a compiled
/// `H·V` kernel alike.
#[derive(Clone, Debug)]
pub struct Columns {
    /// `H·V` for `k` directions ([`hvp`]): inputs `x`, `p`, `w`, then the
    /// directions, `k` rows of `n`.
    hvp: Kernel,
    k: usize,
    /// The lower triangle's pattern (CSR), the output's layout: the one
    /// table of the entries, 8 bytes a nonzero, shared with the layout.
    pattern: SparsityPattern,
    /// Each row's first column where its columns are one run (a dense or
    /// banded row: its entries found without reading the pattern), else
    /// `None`.
    intervals: Vec<Option<usize>>,
    /// The work building it took ([`crate::Stage::Columns`]).
    work: u64,
}

impl Columns {
    /// The Hessian of the Lagrangian of `f` by `H·V` for `k` directions a
    /// call (at least 1).
    pub fn new(f: &Kernel, k: usize) -> Columns {
        let single = hvp(f.clone(), 1);
        let (pattern, words) = lower_pattern(&single, f.num_variables());
        Columns::with_pattern(f, k, pattern, single.count_ops() as u64 + words)
    }

    /// With the lower triangle's `pattern`, found in `work`.
    fn with_pattern(f: &Kernel, k: usize, pattern: SparsityPattern, work: u64) -> Columns {
        let k = k.max(1);
        let hvp = hvp(f.clone(), k);
        let work = work + hvp.count_ops() as u64;
        let intervals = (0..pattern.num_rows()).map(|row| interval(&pattern, row)).collect();
        Columns { hvp, k, pattern, intervals, work }
    }

    /// The work building it took: the `H·V` kernels' operations and the
    /// words of the pattern's passes ([`crate::Stage::Columns`]).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// The `H·V` kernel the columns are computed by: inputs `x`, `p`, `w`
    /// and [`directions`](Self::directions) rows of `n`.
    pub fn hvp(&self) -> &Kernel {
        &self.hvp
    }

    /// Directions per call of the `H·V` kernel.
    pub fn directions(&self) -> usize {
        self.k
    }

    /// The nonzeros of the lower triangle: the output's length.
    pub fn nnz(&self) -> usize {
        self.pattern.nnz()
    }

    /// The pattern of the lower triangle (CSR): the output's layout.
    pub fn pattern(&self) -> &SparsityPattern {
        &self.pattern
    }

    /// Operations per Hessian: `⌈n / k⌉` calls of the `H·V` kernel.
    pub fn count_ops(&self) -> usize {
        self.pattern.num_rows().div_ceil(self.k) * self.hvp.count_ops()
    }

    /// The lower triangle into `out` (the pattern's nonzeros), by
    /// `hvp(directions, products)`: the `H·V` kernel at the caller's `x`,
    /// `p` and `w`, for `directions` (`k` rows of `n`, unit vectors here)
    /// into `products` (`k` rows of `n`). `directions` and `products` are
    /// the caller's buffers, of any length: every call of the kernel, and
    /// the order entries are written in, is the same for any caller.
    ///
    /// Columns come in ascending order, so each row's entries are written
    /// in its CSR order from a cursor per row: a call's `k` columns are
    /// the next entries of rows `first..n` below them, and no table but
    /// the pattern is needed (nor read, for rows that are one run).
    pub fn run(
        &self,
        directions: &mut Vec<f64>,
        products: &mut Vec<f64>,
        out: &mut [f64],
        mut hvp: impl FnMut(&[f64], &mut [f64]),
    ) {
        let (n, k) = (self.pattern.num_rows(), self.k);
        let (offsets, cols): (&[usize], &[usize]) = (&self.pattern.row_offsets, &self.pattern.cols);
        let mut next = offsets[..n].to_vec();
        directions.clear();
        directions.resize(k * n, 0.0);
        products.resize(k * n, 0.0);
        for first in (0..n).step_by(k) {
            let width = k.min(n - first);
            for d in 0..width {
                directions[d * n + first + d] = 1.0;
            }
            hvp(directions, products);
            for d in 0..width {
                directions[d * n + first + d] = 0.0;
            }
            // Rows above `first` hold no column from `first` on.
            let last = first + width;
            for (row, next) in next.iter_mut().enumerate().skip(first) {
                let (start, end) = (offsets[row], offsets[row + 1]);
                if let Some(lo) = self.intervals[row] {
                    // Column `c` at `start + c - lo`: no table read.
                    let (from, to) = (first.max(lo), last.min(lo + end - start));
                    for c in from..to {
                        out[start + c - lo] = products[(c - first) * n + row];
                    }
                    continue;
                }
                let mut at = *next;
                while at < end && cols[at] < last {
                    out[at] = products[(cols[at] - first) * n + row];
                    at += 1;
                }
                *next = at;
            }
        }
    }

    /// The lower triangle's nonzeros at `input` (`x`, `p`, `w` one after
    /// another), by the reference interpreter.
    pub fn eval(&self, input: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.nnz()];
        let mut full = input.to_vec();
        let given = input.len();
        self.run(&mut Vec::new(), &mut Vec::new(), &mut out, |directions, products| {
            full.truncate(given);
            full.extend_from_slice(directions);
            products.copy_from_slice(&self.hvp.eval(&full));
        });
        out
    }
}

/// The Hessian of the Lagrangian of `f` by columns, where the plan takes
/// them: a lower triangle of at least [`plan::COLUMNS_MIN_NONZEROS`]
/// nonzeros, computed in at most [`plan::COLUMNS_WORK_PER_NONZERO`]
/// operations per nonzero (`n` directions at the cost of one `H·V` call
/// each, an upper bound of the calls of `k`). Its work is the `H·V`
/// kernel's, linear in `f`, and the pattern's, `⌈n / 64⌉` passes over it;
/// neither is spent where the triangle could not be large enough.
pub fn columns(f: &Kernel) -> Option<Columns> {
    let n = f.num_variables();
    let most = n.saturating_mul(n + 1) / 2;
    // Past 2^32 places the pattern alone would take 32 GB: left to the
    // straight line's own guards.
    if most < plan::COLUMNS_MIN_NONZEROS || most > u32::MAX as usize {
        return None;
    }
    let single = hvp(f.clone(), 1);
    let work = n.saturating_mul(single.count_ops());
    if work > most.saturating_mul(plan::COLUMNS_WORK_PER_NONZERO) {
        return None;
    }
    let (pattern, words) = lower_pattern(&single, n);
    let nnz = pattern.nnz();
    if nnz < plan::COLUMNS_MIN_NONZEROS || work > nnz.saturating_mul(plan::COLUMNS_WORK_PER_NONZERO) {
        return None;
    }
    Some(Columns::with_pattern(f, plan::COLUMNS_PER_CALL, pattern, single.count_ops() as u64 + words))
}

/// The first column of `row` of `pattern` if its columns are one run.
fn interval(pattern: &SparsityPattern, row: usize) -> Option<usize> {
    let cols = &pattern.cols[pattern.row_offsets[row]..pattern.row_offsets[row + 1]];
    match (cols.first(), cols.last()) {
        (Some(&lo), Some(&hi)) => (hi - lo + 1 == cols.len()).then_some(lo),
        _ => Some(0),
    }
}

/// The lower triangle's structural pattern of the Hessian `H·v` computes
/// (`hvp`, one direction, `n` variables): entry `(row, col)` where product
/// `row` reads direction `col`, found 64 columns a pass (a word per node),
/// with the words the passes wrote. Counted first and then written, so
/// the pattern is its own size (8 bytes a nonzero), written in place.
/// A call's results read all of its arguments.
fn lower_pattern(hvp: &Kernel, n: usize) -> (SparsityPattern, u64) {
    let dag = hvp.dag();
    let first = hvp.num_inputs() - n;
    let mut words = vec![0u64; dag.len()];
    let mut entries = |visit: &mut dyn FnMut(usize, usize)| {
        for base in (0..n).step_by(64) {
            let directions = first + base..first + n.min(base + 64);
            for id in dag.ids() {
                words[id.index()] = match dag.op(id) {
                    Op::Input(k) if directions.contains(&(k as usize)) => {
                        1 << (k as usize - directions.start)
                    }
                    Op::Input(_) => 0,
                    _ => dag.args(id).iter().fold(0, |w, a| w | words[a.index()]),
                };
            }
            for (row, root) in hvp.roots().iter().enumerate() {
                let mut word = words[root.index()];
                while word != 0 {
                    let col = base + word.trailing_zeros() as usize;
                    if col <= row {
                        visit(row, col);
                    }
                    word &= word - 1;
                }
            }
        }
    };
    let mut row_offsets = vec![0; n + 1];
    entries(&mut |row, _| row_offsets[row + 1] += 1);
    for row in 0..n {
        row_offsets[row + 1] += row_offsets[row];
    }
    let mut next = row_offsets.clone();
    // Collected from a sized iterator, the shared array is allocated once
    // and filled where it lies (no copy of the nonzeros).
    let mut cols: Arc<[usize]> = std::iter::repeat_n(0, row_offsets[n]).collect();
    let place = Arc::get_mut(&mut cols).expect("a new array is not shared");
    entries(&mut |row, col| {
        place[next[row]] = col;
        next[row] += 1;
    });
    let pattern = SparsityPattern { row_offsets: row_offsets.into(), cols, num_cols: n };
    (pattern, 2 * (n.div_ceil(64) * dag.len()) as u64)
}
