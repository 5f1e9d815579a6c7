//! Calling compiled kernels on NumPy data. One point goes through
//! [`Compiled::eval`]; a batch through one [`Compiled::eval_batch_until`]
//! on the threads of [`crate::threads`] with the GIL released, stopped by
//! Ctrl-C from [`INTERRUPTIBLE`] points on. The part of each point's
//! output a method returns (a block as it is, or scattered into a dense
//! matrix by [`Block::scatter`]) is cut out as the points are evaluated
//! ([`Compiled::eval_batch_keep`]).

use crate::arrays::{filled, Directions};
use crate::errors::to_py_plain;
use dstar::{Batch, Block, Compiled, Stop};
use numpy::PyArrayDyn;
use pyo3::prelude::*;
use std::sync::Arc;

/// Batches of at least this many points can be stopped by Ctrl-C; the
/// thread that waits for them costs tens of microseconds, which smaller
/// batches of small kernels would feel.
const INTERRUPTIBLE: usize = 256;

/// Results of at least this many doubles are computed with the GIL released
/// also for one point.
const DETACH_LEN: usize = 4096;

/// The arguments of one call: one point (`points` is `None`) or a batch of
/// `points`, and the blocks; each block but `x` is one row for all the
/// points or a row per point ([`Compiled::eval_batch`] tells them apart by
/// length).
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    pub(crate) points: Option<usize>,
    pub(crate) blocks: Batch<'a>,
}

/// The block that holds a product's directions.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    /// Weight vectors (`wᵀJ`).
    W,
    /// Directions (`J·v`, `H·v`).
    V,
}

/// What a method returns of each point's output.
#[derive(Clone, Copy)]
pub(crate) enum Part {
    /// Block `b` of the layout, as it is.
    Block(usize),
    /// Block `b` (a sparse or lower-triangular matrix) scattered dense.
    Dense(usize),
}

impl<'a> Call<'a> {
    /// The same call with `data` in block `slot`.
    fn with(self, slot: Slot, data: &'a [f64]) -> Call<'a> {
        let blocks = match slot {
            Slot::W => self.blocks.w(data),
            Slot::V => self.blocks.v(data),
        };
        Call { blocks, ..self }
    }

    /// Evaluates `kernel` into `out`, a row of its output per point.
    fn eval(&self, kernel: &Compiled, out: &mut [f64], stop: &Stop) -> Result<(), dstar::Error> {
        match self.points {
            None => kernel.eval(self.blocks, out),
            Some(_) => kernel.eval_batch_until(self.blocks, out, stop),
        }
    }

    /// Evaluates `kernel`, `keep(output, row)` making each point's row of
    /// `rows` (`row_len` values) from its output
    /// ([`Compiled::eval_batch_keep`]).
    fn keep(
        &self,
        kernel: &Compiled,
        rows: &mut [f64],
        row_len: usize,
        stop: &Stop,
        keep: impl Fn(&[f64], &mut [f64]) + Sync,
    ) -> Result<(), dstar::Error> {
        match self.points {
            None => {
                let mut output = vec![0.0; kernel.out_len()];
                self.eval(kernel, &mut output, stop)?;
                keep(&output, rows);
                Ok(())
            }
            Some(_) => kernel.eval_batch_keep(self.blocks, rows, row_len, stop, keep),
        }
    }
}

/// Runs `work`, given the stop it must honour, as a call of `points` with
/// a result of `len` doubles warrants: a batch on the chosen threads with
/// the GIL released (interruptible from [`INTERRUPTIBLE`] points on), one
/// point with the GIL released if its result is large, else holding it
/// (releasing would cost more than the call).
fn released<T: Send>(
    py: Python<'_>,
    points: Option<usize>,
    len: usize,
    work: impl FnOnce(&Stop) -> Result<T, dstar::Error> + Send,
) -> PyResult<T> {
    let result = match points {
        None if len < DETACH_LEN => work(&Stop::never()),
        None => py.detach(|| work(&Stop::never())),
        Some(b) if b >= INTERRUPTIBLE => {
            crate::interrupt::interruptible(py, |stop| crate::threads::install(|| work(stop)))?
        }
        Some(_) => py.detach(|| crate::threads::install(|| work(&Stop::never()))),
    };
    result.map_err(|e| to_py_plain(py, e))
}

/// `part` of `kernel`'s output at each point of `call`: an array of the
/// part's shape, `(B, ...)` for a batch. A kernel whose output is the
/// part writes straight into the array; otherwise each point's output is
/// cut into its row ([`Call::keep`]).
pub(crate) fn eval_part<'py>(
    py: Python<'py>,
    kernel: &Compiled,
    call: Call<'_>,
    part: Part,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let blocks = kernel.layout().blocks();
    let (b, dense) = match part {
        Part::Block(b) => (b, false),
        Part::Dense(b) => (b, true),
    };
    let block = &blocks[b];
    let dims = if dense {
        let (rows, cols) = block.dense_shape();
        vec![rows, cols]
    } else {
        vec![block.len()]
    };
    let row_len: usize = dims.iter().product();
    let shape = call.points.into_iter().chain(dims).collect();
    let direct = blocks.len() == 1 && !(dense && matches!(block, Block::Sparse(_) | Block::Lower(_)));
    let start = blocks[..b].iter().map(Block::len).sum::<usize>();
    let values = start..start + block.len();
    filled(py, shape, |out| {
        released(py, call.points, out.len(), |stop| {
            if direct {
                return call.eval(kernel, out, stop);
            }
            call.keep(kernel, out, row_len, stop, |output, row| {
                if dense {
                    block.scatter(&output[values.clone()], row);
                } else {
                    row.copy_from_slice(&output[values.clone()]);
                }
            })
        })
    })
}

/// A product of `k` directions per point: the kernels `runs`, each
/// `(kernel, first, width)` taking directions `first..first + width` of
/// `dirs` in block `slot` and giving a row of `row_len` values for each.
/// One run takes the directions as they are; several take each point's
/// share, gathered into rows of their own, and put their results in place.
pub(crate) fn eval_products<'py>(
    py: Python<'py>,
    runs: &[(Arc<Compiled>, usize, usize)],
    call: Call<'_>,
    slot: Slot,
    (dirs, layout): (&[f64], Directions),
    row_len: usize,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let shape = call.points.into_iter().chain(layout.result_dims(row_len)).collect();
    let (k, n) = (layout.k, layout.len);
    filled(py, shape, |out| {
        released(py, call.points, out.len(), |stop| {
            for (kernel, first, width) in runs {
                let (first, width) = (*first, *width);
                let (d, o) = (first * n..(first + width) * n, first * row_len..(first + width) * row_len);
                match call.points {
                    None => call.with(slot, &dirs[d]).eval(kernel, &mut out[o], stop)?,
                    Some(_) if runs.len() == 1 => call.with(slot, dirs).eval(kernel, out, stop)?,
                    Some(points) => {
                        let gathered: Vec<f64> =
                            (0..points).flat_map(|i| &layout.of_point(dirs, i)[d.clone()]).copied().collect();
                        let put = |output: &[f64], row: &mut [f64]| row[o.clone()].copy_from_slice(output);
                        call.with(slot, &gathered).keep(kernel, out, k * row_len, stop, put)?;
                    }
                }
            }
            Ok(())
        })
    })
}
