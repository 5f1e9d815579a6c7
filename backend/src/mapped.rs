//! Compiled map kernels ([`frontend::map::MapKernel`]): each body compiled
//! once and run in a loop over its instances (code size independent of
//! their number), its inputs gathered and its outputs added at the
//! positions of the map's tables, in the interpreter's order, so the
//! result equals [`MapKernel::eval`] bit for bit.

use crate::compiler::JitCompiler;
use crate::error::{CodegenError, KernelError};
use crate::kernel::{JitKernel, Rows};
use frontend::map::{Columns, MapKernel};
use frontend::Stop;
use rayon::prelude::*;
use std::cell::RefCell;

/// A compiled [`MapKernel`], callable from many threads at once.
#[derive(Debug)]
pub struct MappedKernel {
    rest: JitKernel,
    rest_places: Vec<u32>,
    pieces: Vec<CompiledPiece>,
    part_lengths: Vec<usize>,
    num_outputs: usize,
}

/// One map's body, compiled, with its tables.
#[derive(Debug)]
struct CompiledPiece {
    body: JitKernel,
    instances: usize,
    gather: Columns,
    places: Columns,
}

thread_local! {
    /// Per-thread buffers: the input in one array, the rest's output, a
    /// body's input and output.
    static BUFFERS: RefCell<[Vec<f64>; 4]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new(), Vec::new()]) };
}

impl JitCompiler {
    /// Compiles `kernel`, whose input comes in parts of `lengths`: the rest
    /// over the parts, each body over one array.
    ///
    /// # Errors
    /// As [`JitCompiler::compile_parts`].
    pub fn compile_mapped(
        &self,
        kernel: &MapKernel,
        lengths: &[usize],
    ) -> Result<MappedKernel, CodegenError> {
        let rest = self.compile_parts(&kernel.rest, lengths)?;
        let pieces = kernel
            .pieces
            .iter()
            .map(|piece| {
                assert_eq!(
                    piece.gather.columns.len(),
                    piece.body.num_inputs(),
                    "a gathered value per body input"
                );
                assert_eq!(piece.places.columns.len(), piece.body.num_outputs(), "a place per body output");
                let body = self.compile_parts(&piece.body, &[piece.body.num_inputs()])?;
                Ok(CompiledPiece {
                    body,
                    instances: piece.instances,
                    gather: piece.gather.clone(),
                    places: piece.places.clone(),
                })
            })
            .collect::<Result<_, CodegenError>>()?;
        Ok(MappedKernel {
            rest,
            rest_places: kernel.rest_places.clone(),
            pieces,
            part_lengths: lengths.to_vec(),
            num_outputs: kernel.num_outputs,
        })
    }
}

impl MappedKernel {
    /// The length of the output.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// The lengths of the input parts.
    pub fn part_lengths(&self) -> &[usize] {
        &self.part_lengths
    }

    /// Compiled bodies and the rest: how many kernels one call runs.
    pub fn num_kernels(&self) -> usize {
        1 + self.pieces.len()
    }

    /// Computes the output into `out` from the input parts.
    ///
    /// # Errors
    /// [`KernelError::PartCount`], [`KernelError::PartLength`] or
    /// [`KernelError::OutputLength`]; `out` is then left untouched.
    pub fn eval_parts(&self, parts: &[&[f64]], out: &mut [f64]) -> Result<(), KernelError> {
        let lengths = &self.part_lengths;
        if parts.len() != lengths.len() {
            return Err(KernelError::PartCount { expected: lengths.len(), found: parts.len() });
        }
        for (p, (part, &len)) in parts.iter().zip(lengths).enumerate() {
            if part.len() != len {
                return Err(KernelError::PartLength { part: p, expected: len, found: part.len() });
            }
        }
        if out.len() != self.num_outputs {
            return Err(KernelError::OutputLength { expected: self.num_outputs, found: out.len() });
        }
        BUFFERS.with(|buffers| {
            let [input, rest_out, body_in, body_out] = &mut *buffers.borrow_mut();
            input.clear();
            for part in parts {
                input.extend_from_slice(part);
            }
            out.fill(0.0);
            rest_out.resize(self.rest.num_outputs(), 0.0);
            self.rest.eval_parts(parts, rest_out).expect("checked lengths");
            for (&value, &at) in rest_out.iter().zip(&self.rest_places) {
                out[at as usize] += value;
            }
            for piece in &self.pieces {
                piece.run(input, body_in, body_out, out);
            }
        });
        Ok(())
    }
}

impl MappedKernel {
    /// Evaluates many points in parallel, one at a time each, each point's
    /// output in a buffer of its thread, kept by `keep(output, row)` into
    /// its row of `rows` (`row_len` values): point `i` reads row `i` of
    /// each [`Rows::Each`] part. Bit for bit what
    /// [`eval_parts`](Self::eval_parts) gives.
    ///
    /// # Errors
    /// As [`eval_parts`](Self::eval_parts); [`KernelError::Stopped`] if
    /// `stop` was requested.
    pub fn eval_batch_parts_keep(
        &self,
        parts: &[Rows<'_>],
        rows: &mut [f64],
        row_len: usize,
        stop: &Stop,
        keep: &(dyn Fn(&[f64], &mut [f64]) + Sync),
    ) -> Result<(), KernelError> {
        if row_len == 0 {
            return Ok(());
        }
        let lengths = &self.part_lengths;
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
            out.resize(self.num_outputs, 0.0);
            self.eval_parts(&point, out)?;
            keep(out, row);
            Ok(())
        })
    }
}

impl CompiledPiece {
    /// Every instance: gather, run the body, add its outputs in place.
    fn run(&self, input: &[f64], body_in: &mut Vec<f64>, body_out: &mut Vec<f64>, out: &mut [f64]) {
        let (width, results) = (self.body.num_inputs(), self.body.num_outputs());
        body_in.resize(width, 0.0);
        body_out.resize(results, 0.0);
        for i in 0..self.instances {
            for (j, value) in body_in.iter_mut().enumerate() {
                *value = input[self.gather.get(i, j)];
            }
            self.body.eval(body_in, body_out).expect("the body's own lengths");
            for (j, &value) in body_out.iter().enumerate() {
                out[self.places.get(i, j)] += value;
            }
        }
    }
}
