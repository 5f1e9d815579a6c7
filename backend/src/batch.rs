//! The batch scheduler of a [`JitKernel`]: many points in parallel, each
//! input part per point or shared ([`Rows`]), in pieces of points per
//! thread, two points per call where the kernel has its two-point variant.

use crate::convention::{Parts, MAX_PARTS};
use crate::error::KernelError;
use crate::kernel::JitKernel;
use frontend::Stop;
use rayon::prelude::*;

/// Points a thread of a batch runs at a time, between asking its stop: an
/// even number, so that points pair up within a piece.
const PIECE: usize = 64;

/// The outputs a thread of [`JitKernel::eval_batch_parts_keep`] holds at a
/// time, at most (but two points): what a core's cache keeps, so that they
/// are still there when kept.
const KEPT_BYTES: usize = 1 << 18;

/// One input part of a batch ([`JitKernel::eval_batch_parts`]).
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a> {
    /// The same values for every point (the part's length).
    Shared(&'a [f64]),
    /// A row of the part's length per point, one after another.
    Each(&'a [f64]),
}

impl Rows<'_> {
    /// Where point `i`'s values of this part of length `len` start.
    fn at(&self, i: usize, len: usize) -> *const f64 {
        match *self {
            Rows::Shared(values) => values.as_ptr(),
            // In bounds, or one past the end for an empty part: checked by the caller.
            Rows::Each(values) => values[i * len..].as_ptr(),
        }
    }
}

impl JitKernel {
    /// Evaluates many points in parallel: row `i` of `xs` (`num_inputs`
    /// values, row-major) gives row `i` of `outs` (`num_outputs` values);
    /// [`eval_batch_parts`](Self::eval_batch_parts) for a kernel of one
    /// input array.
    ///
    /// # Errors
    /// As [`eval_batch_parts`](Self::eval_batch_parts).
    pub fn eval_batch(&self, xs: &[f64], outs: &mut [f64]) -> Result<(), KernelError> {
        self.eval_batch_parts(&[Rows::Each(xs)], outs)
    }

    /// Evaluates many points in parallel, each input part given per point
    /// or shared by all ([`Rows`]); point `i` gives row `i` of `outs`
    /// (`num_outputs` values each), bit for bit what [`eval`](Self::eval)
    /// gives. Each thread runs pieces of 64 points, two points per call
    /// where the kernel has its two-point variant
    /// ([`JitCompiler::compile_two_points`](crate::JitCompiler::compile_two_points)).
    ///
    /// # Errors
    /// [`KernelError::PartCount`] unless one [`Rows`] per part;
    /// [`KernelError::BatchShape`] unless `outs` and every per-point part
    /// hold whole rows of the same number of points, and every shared part
    /// its length; `outs` is then left untouched.
    pub fn eval_batch_parts(&self, parts: &[Rows<'_>], outs: &mut [f64]) -> Result<(), KernelError> {
        self.eval_batch_parts_until(parts, outs, &Stop::never())
    }

    /// [`eval_batch_parts`](Self::eval_batch_parts), asking `stop` before
    /// each piece of 64 points: once it is requested, the pieces not yet
    /// started are skipped.
    ///
    /// # Errors
    /// As [`eval_batch_parts`](Self::eval_batch_parts), and
    /// [`KernelError::Stopped`] if `stop` was requested; `outs` then holds
    /// the rows of the pieces that ran.
    pub fn eval_batch_parts_until(
        &self,
        parts: &[Rows<'_>],
        outs: &mut [f64],
        stop: &Stop,
    ) -> Result<(), KernelError> {
        let points = self.check_batch(parts, outs.len())?;
        let m = self.num_outputs();
        if m == 0 || points == 0 {
            return Ok(());
        }
        outs.par_chunks_mut(PIECE * m).enumerate().try_for_each(|(i, outs)| {
            if stop.requested() {
                return Err(KernelError::Stopped);
            }
            self.points(parts, i * PIECE, outs);
            Ok(())
        })
    }

    /// [`eval_batch_parts_until`](Self::eval_batch_parts_until) for a
    /// caller that keeps a function of each point's output: each piece of
    /// points is evaluated into a buffer of the thread that runs it, and
    /// `keep(output, row)` makes each point's row of `rows` (`row_len`
    /// values) from its output: a part of it, or a matrix laid out
    /// otherwise. No buffer holds the whole batch's outputs: a piece holds
    /// up to 256 KiB of them (and at least two points), so that they are
    /// still in cache when kept.
    ///
    /// # Errors
    /// As [`eval_batch_parts_until`](Self::eval_batch_parts_until), with
    /// `rows` in place of `outs`.
    pub fn eval_batch_parts_keep(
        &self,
        parts: &[Rows<'_>],
        rows: &mut [f64],
        row_len: usize,
        stop: &Stop,
        keep: &(dyn Fn(&[f64], &mut [f64]) + Sync),
    ) -> Result<(), KernelError> {
        let m = self.num_outputs();
        if row_len == 0 || m == 0 {
            return Ok(());
        }
        let points = rows.len() / row_len;
        if rows.len() != points * row_len {
            return Err(self.shape_error(parts, rows.len()));
        }
        self.check_batch(parts, points * m)?;
        if points == 0 {
            return Ok(());
        }
        // Pieces whose outputs fit in a core's cache, of an even number of points.
        let piece = (KEPT_BYTES / (8 * m) / 2 * 2).clamp(2, PIECE);
        rows.par_chunks_mut(piece * row_len).enumerate().try_for_each_init(Vec::new, |outs, (i, rows)| {
            if stop.requested() {
                return Err(KernelError::Stopped);
            }
            outs.resize(rows.len() / row_len * m, 0.0);
            self.points(parts, i * piece, outs);
            for (out, row) in outs.chunks_exact(m).zip(rows.chunks_exact_mut(row_len)) {
                keep(out, row);
            }
            Ok(())
        })
    }

    /// Evaluates many points on this thread, two at a time where the
    /// kernel has its two-point variant: row `i` of `xs` gives row `i` of
    /// `outs`, bit for bit what [`eval`](Self::eval) gives.
    ///
    /// # Errors
    /// As [`eval_batch_parts`](Self::eval_batch_parts).
    pub fn eval_points(&self, xs: &[f64], outs: &mut [f64]) -> Result<(), KernelError> {
        let parts = [Rows::Each(xs)];
        let points = self.check_batch(&parts, outs.len())?;
        if self.num_outputs() > 0 && points > 0 {
            self.points(&parts, 0, outs);
        }
        Ok(())
    }

    /// The error for batch buffers that are not whole rows of the same
    /// number of points.
    fn shape_error(&self, parts: &[Rows<'_>], outputs_len: usize) -> KernelError {
        KernelError::BatchShape {
            num_inputs: self.num_inputs(),
            num_outputs: self.num_outputs(),
            inputs_len: parts
                .iter()
                .map(|r| match r {
                    Rows::Shared(v) | Rows::Each(v) => v.len(),
                })
                .sum(),
            outputs_len,
        }
    }

    /// The number of points, if `parts` and outputs of `outs_len` values
    /// hold whole rows of the same number of points.
    fn check_batch(&self, parts: &[Rows<'_>], outs_len: usize) -> Result<usize, KernelError> {
        let (lengths, m) = (self.part_lengths(), self.num_outputs());
        if parts.len() != lengths.len() {
            return Err(KernelError::PartCount { expected: lengths.len(), found: parts.len() });
        }
        let shape_error = || self.shape_error(parts, outs_len);
        // The number of points: from the outputs, else from a per-point part.
        let counted = (m > 0).then(|| outs_len / m).or_else(|| {
            parts.iter().zip(lengths).find_map(|(r, &len)| match r {
                Rows::Each(v) if len > 0 => Some(v.len() / len),
                _ => None,
            })
        });
        let points = counted.unwrap_or(0);
        if outs_len != points * m {
            return Err(shape_error());
        }
        for (rows, &len) in parts.iter().zip(lengths) {
            let fits = match rows {
                Rows::Shared(v) => v.len() == len,
                Rows::Each(v) => v.len() == points * len,
            };
            if !fits {
                return Err(shape_error());
            }
        }
        Ok(points)
    }

    /// Point `i`'s input parts.
    fn point(&self, parts: &[Rows<'_>], i: usize) -> Parts {
        let mut x = [std::ptr::null(); MAX_PARTS];
        for (p, (rows, &len)) in parts.iter().zip(self.part_lengths()).enumerate() {
            x[p] = rows.at(i, len);
        }
        x
    }

    /// Points `first..` into `outs` (whole rows), on checked shapes.
    fn points(&self, parts: &[Rows<'_>], first: usize, outs: &mut [f64]) {
        let m = self.num_outputs();
        let mut i = first;
        let rest = match self.two_points() {
            Some(two) => {
                let mut pairs = outs.chunks_exact_mut(2 * m);
                for pair in &mut pairs {
                    let (out0, out1) = pair.split_at_mut(m);
                    two.eval(self.point(parts, i), self.point(parts, i + 1), out0, out1);
                    i += 2;
                }
                pairs.into_remainder()
            }
            None => outs,
        };
        for out in rest.chunks_exact_mut(m) {
            self.run(self.point(parts, i), out).expect("checked shapes");
            i += 1;
        }
    }
}

/// The error, if any, of input `parts` for a kernel of parts of `lengths`
/// and `num_outputs` outputs, written to an output of `out_len` values.
///
/// # Errors
/// [`KernelError::PartCount`], [`KernelError::PartLength`] or
/// [`KernelError::OutputLength`].
pub fn check_parts(
    lengths: &[usize],
    parts: &[&[f64]],
    num_outputs: usize,
    out_len: usize,
) -> Result<(), KernelError> {
    if parts.len() != lengths.len() {
        return Err(KernelError::PartCount { expected: lengths.len(), found: parts.len() });
    }
    for (p, (part, &len)) in parts.iter().zip(lengths).enumerate() {
        if part.len() != len {
            return Err(KernelError::PartLength { part: p, expected: len, found: part.len() });
        }
    }
    if out_len != num_outputs {
        return Err(KernelError::OutputLength { expected: num_outputs, found: out_len });
    }
    Ok(())
}

/// Evaluates many points in parallel by `eval(point, output)`, one point
/// at a time each, each point's output (`num_outputs` values) in a buffer
/// of its thread, kept by `keep(output, row)` into its row of `rows`
/// (`row_len` values): point `i` reads row `i` of each [`Rows::Each`] part
/// (of `lengths`). The batch of a kernel made of several (maps, columns).
///
/// # Errors
/// `eval`'s; [`KernelError::Stopped`] if `stop` was requested.
#[allow(clippy::too_many_arguments)]
pub fn eval_each_point(
    parts: &[Rows<'_>],
    lengths: &[usize],
    num_outputs: usize,
    rows: &mut [f64],
    row_len: usize,
    stop: &Stop,
    keep: &(dyn Fn(&[f64], &mut [f64]) + Sync),
    eval: impl Fn(&[&[f64]], &mut [f64]) -> Result<(), KernelError> + Sync,
) -> Result<(), KernelError> {
    if row_len == 0 {
        return Ok(());
    }
    rows.par_chunks_mut(row_len).enumerate().try_for_each_init(Vec::new, |out, (i, row)| {
        if stop.requested() {
            return Err(KernelError::Stopped);
        }
        let point: Vec<&[f64]> = parts
            .iter()
            .zip(lengths)
            .map(|(rows, &len)| match *rows {
                Rows::Shared(values) => values,
                Rows::Each(values) => values.get(i * len..(i + 1) * len).unwrap_or(&[]),
            })
            .collect();
        out.resize(num_outputs, 0.0);
        eval(&point, out)?;
        keep(out, row);
        Ok(())
    })
}
