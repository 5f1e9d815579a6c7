//! [`Layout`]: how a kernel's outputs form the arrays a user sees (values,
//! a sparse matrix in CSR order, the lower triangle of a symmetric matrix,
//! a dense matrix), so that scattering into dense arrays exists once.

use std::sync::Arc;

/// The structural sparsity pattern of a matrix in compressed sparse row
/// (CSR) form: the nonzeros of row `i` are at positions
/// `row_offsets[i]..row_offsets[i + 1]`, in columns `cols[k]`, ascending.
/// Its arrays are shared: a clone (into a [`Layout`], beside the kernel
/// that fills it) costs no memory, however many nonzeros it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparsityPattern {
    /// `rows + 1` offsets into `cols`.
    pub row_offsets: Arc<[usize]>,
    /// The column of each nonzero, row by row.
    pub cols: Arc<[usize]>,
    /// Number of columns.
    pub num_cols: usize,
}

impl SparsityPattern {
    /// The pattern of `num_rows × num_cols` with nonzeros at `positions`
    /// `(row, col)`, which must come in CSR order (row-major, columns
    /// ascending within a row).
    pub fn new(
        num_rows: usize,
        num_cols: usize,
        positions: impl IntoIterator<Item = (usize, usize)>,
    ) -> SparsityPattern {
        let mut row_offsets = vec![0; num_rows + 1];
        let mut cols = Vec::new();
        for (row, col) in positions {
            debug_assert!(row < num_rows && col < num_cols, "({row}, {col}) outside {num_rows}x{num_cols}");
            row_offsets[row + 1] += 1;
            cols.push(col);
        }
        for i in 0..num_rows {
            row_offsets[i + 1] += row_offsets[i];
        }
        SparsityPattern { row_offsets: row_offsets.into(), cols: cols.into(), num_cols }
    }

    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.row_offsets.len() - 1
    }

    /// Number of structural nonzeros.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// The nonzero positions `(row, col)`, in CSR order.
    pub fn positions(&self) -> impl ExactSizeIterator<Item = (usize, usize)> + '_ {
        let mut row = 0;
        self.cols.iter().enumerate().map(move |(k, &col)| {
            while self.row_offsets[row + 1] <= k {
                row += 1;
            }
            (row, col)
        })
    }

    /// The position of nonzero `(row, col)` in CSR order, if structural.
    pub fn find(&self, row: usize, col: usize) -> Option<usize> {
        let range = *self.row_offsets.get(row)?..*self.row_offsets.get(row + 1)?;
        let at = self.cols[range.clone()].binary_search(&col).ok()?;
        Some(range.start + at)
    }

    /// Scatters CSR `values` into a dense matrix (zeros elsewhere).
    pub fn to_dense(&self, values: &[f64]) -> Vec<Vec<f64>> {
        let mut dense = vec![vec![0.0; self.num_cols]; self.num_rows()];
        for ((row, col), &v) in self.positions().zip(values) {
            dense[row][col] = v;
        }
        dense
    }

    /// The whole symmetric matrix of the lower triangle this pattern holds
    /// (`row >= col`, a [`Block::Lower`]): its pattern, in CSR order, and for
    /// each of its nonzeros the lower triangle's nonzero it repeats, so
    /// `full[k] = lower[mirror[k]]`. Row `i` is row `i` of the triangle
    /// followed by column `i` below the diagonal, transposed.
    pub fn symmetric(&self) -> (SparsityPattern, Vec<usize>) {
        let n = self.num_rows();
        let mut transposed: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for (k, (row, col)) in self.positions().enumerate() {
            if col < row {
                transposed[col].push((row, k));
            }
        }
        let mut positions = Vec::with_capacity(2 * self.nnz());
        let mut mirror = Vec::with_capacity(2 * self.nnz());
        for (row, upper) in transposed.into_iter().enumerate() {
            let own = (self.row_offsets[row]..self.row_offsets[row + 1]).map(|k| (self.cols[k], k));
            for (col, k) in own.chain(upper) {
                positions.push((row, col));
                mirror.push(k);
            }
        }
        (SparsityPattern::new(n, self.num_cols, positions), mirror)
    }
}

/// One part of a kernel's output buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// Plain values: function outputs, a gradient, `J·v`.
    Values(usize),
    /// The nonzeros of a sparse matrix, in CSR order.
    Sparse(SparsityPattern),
    /// The nonzeros on or below the diagonal (`row >= col`) of a symmetric
    /// matrix, in CSR order: each symmetric pair stored once.
    Lower(SparsityPattern),
    /// A dense `rows × cols` matrix, row-major.
    Dense {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
}

impl Block {
    /// Number of values the block takes in the buffer.
    pub fn len(&self) -> usize {
        match self {
            Block::Values(n) => *n,
            Block::Sparse(p) | Block::Lower(p) => p.nnz(),
            Block::Dense { rows, cols } => rows * cols,
        }
    }

    /// Whether the block takes no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shape of the block as a dense matrix: `(1, n)` for values.
    pub fn dense_shape(&self) -> (usize, usize) {
        match self {
            Block::Values(n) => (1, *n),
            Block::Sparse(p) | Block::Lower(p) => (p.num_rows(), p.num_cols),
            Block::Dense { rows, cols } => (*rows, *cols),
        }
    }

    /// Writes the block's `values` into `out`, a dense row-major matrix of
    /// [`dense_shape`](Self::dense_shape): zeros where there is no
    /// nonzero, both triangles of a [`Block::Lower`]. The one scatter every
    /// caller (NumPy arrays, the command line) uses.
    pub fn scatter(&self, values: &[f64], out: &mut [f64]) {
        debug_assert_eq!(values.len(), self.len());
        match self {
            Block::Values(_) | Block::Dense { .. } => out.copy_from_slice(values),
            Block::Sparse(p) | Block::Lower(p) => {
                out.fill(0.0);
                let n = p.num_cols;
                for ((row, col), &v) in p.positions().zip(values) {
                    out[row * n + col] = v;
                    if matches!(self, Block::Lower(_)) {
                        out[col * n + row] = v;
                    }
                }
            }
        }
    }

    /// The block's `values` as a dense matrix: one row for [`Block::Values`],
    /// both triangles filled for [`Block::Lower`].
    pub fn to_dense(&self, values: &[f64]) -> Vec<Vec<f64>> {
        let (rows, cols) = self.dense_shape();
        let mut flat = vec![0.0; rows * cols];
        self.scatter(values, &mut flat);
        if cols == 0 {
            return vec![Vec::new(); rows];
        }
        flat.chunks(cols).map(<[f64]>::to_vec).collect()
    }
}

/// How a kernel's output buffer divides into [`Block`]s, in order.
///
/// ```
/// use frontend::{Block, Layout, SparsityPattern};
/// // Two function values, then a 2×3 Jacobian with three nonzeros.
/// let pattern = SparsityPattern::new(2, 3, [(0, 0), (0, 2), (1, 1)]);
/// let layout = Layout::new(vec![Block::Values(2), Block::Sparse(pattern)]);
/// let out = [1.0, 2.0, 10.0, 20.0, 30.0];
/// let parts = layout.split(&out);
/// assert_eq!(parts[0], [1.0, 2.0]);
/// assert_eq!(layout.blocks()[1].to_dense(parts[1]), vec![vec![10.0, 0.0, 20.0], vec![0.0, 30.0, 0.0]]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    blocks: Vec<Block>,
}

impl Layout {
    /// The layout of `blocks`, one after another.
    pub fn new(blocks: Vec<Block>) -> Layout {
        Layout { blocks }
    }

    /// The blocks, in buffer order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The pattern of the first sparse block (a Jacobian's, CSR, or a
    /// Hessian's lower triangle); `None` if every block is dense.
    pub fn pattern(&self) -> Option<&SparsityPattern> {
        self.blocks.iter().find_map(|b| match b {
            Block::Sparse(p) | Block::Lower(p) => Some(p),
            _ => None,
        })
    }

    /// Length of the whole buffer.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(Block::len).sum()
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `out` cut into one slice per block. Panics unless `out` has
    /// [`Layout::len`] values.
    pub fn split<'a>(&self, out: &'a [f64]) -> Vec<&'a [f64]> {
        assert_eq!(out.len(), self.len(), "the buffer matches the layout");
        let mut rest = out;
        self.blocks
            .iter()
            .map(|b| {
                let (head, tail) = rest.split_at(b.len());
                rest = tail;
                head
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_find_follow_csr_order() {
        let p = SparsityPattern::new(3, 3, [(0, 1), (2, 0), (2, 2)]);
        assert_eq!(*p.row_offsets, [0, 1, 1, 3]);
        assert_eq!(p.positions().collect::<Vec<_>>(), vec![(0, 1), (2, 0), (2, 2)]);
        assert_eq!((p.find(2, 2), p.find(1, 1), p.find(5, 0)), (Some(2), None, None));
    }

    #[test]
    fn symmetric_mirrors_the_lower_triangle() {
        let lower = SparsityPattern::new(3, 3, [(0, 0), (1, 0), (2, 0), (2, 2)]);
        let (full, mirror) = lower.symmetric();
        let positions = vec![(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (2, 2)];
        assert_eq!(full.positions().collect::<Vec<_>>(), positions);
        assert_eq!(mirror, vec![0, 1, 2, 1, 2, 3]);
        let values: Vec<f64> = mirror.iter().map(|&k| [1.0, 2.0, 3.0, 4.0][k]).collect();
        assert_eq!(full.to_dense(&values), Block::Lower(lower).to_dense(&[1.0, 2.0, 3.0, 4.0]));
    }

    #[test]
    fn lower_triangle_fills_both_sides() {
        let p = SparsityPattern::new(2, 2, [(0, 0), (1, 0)]);
        assert_eq!(Block::Lower(p).to_dense(&[1.0, 2.0]), vec![vec![1.0, 2.0], vec![2.0, 0.0]]);
        let dense = Block::Dense { rows: 2, cols: 2 };
        assert_eq!(dense.to_dense(&[1.0, 2.0, 3.0, 4.0]), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
    }
}
