//! Compiled map kernels ([`frontend::map::MapKernel`]): each body compiled
//! once and run in a loop over its instances (code size independent of
//! their number), its inputs gathered and its outputs added at the
//! positions of the map's tables, in the interpreter's order (the values
//! computed before the maps, the rest, the maps, the chain after them), so
//! the result equals [`MapKernel::eval`] bit for bit.
//!
//! A body of up to four chunks (4,000 operations) without calls is
//! compiled with its loop (`looped.rs`), two instances a step in the
//! SIMD lanes unless it is mostly library calls; a larger one is called for
//! each instance from the loop here, two instances at once where it has no
//! calls.

use crate::batch::{check_parts, eval_each_point, Rows};
use crate::compiler::JitCompiler;
use crate::error::{CodegenError, KernelError};
use crate::kernel::{JitKernel, TwoPoints};
use crate::looped::{LoopedBody, MapLoop};
use frontend::map::{Column, Columns, MapKernel};
use frontend::{Kernel, Stop};
use std::cell::RefCell;

/// A compiled [`MapKernel`], callable from many threads at once.
#[derive(Debug)]
pub struct MappedKernel {
    pre: Option<Box<JitKernel>>,
    constants: Vec<f64>,
    /// The rest's outputs that are not constants, compiled.
    rest: JitKernel,
    /// Each output of the rest in order: where it is added, and its
    /// value (a constant, or an output of `rest`).
    rest_values: Vec<(u32, RestValue)>,
    pieces: Vec<CompiledPiece>,
    scratch: usize,
    post: Option<Box<(JitKernel, Vec<u32>)>>,
    part_lengths: Vec<usize>,
    num_outputs: usize,
}

/// An output of a map kernel's rest: a constant (the linear terms of a
/// model's constraints give their Jacobian hundreds of thousands of them,
/// which compiled as stores took Cranelift 0.23 s and 3.6 MB of code at
/// 10^5 cart-pole intervals), or output `k` of the compiled rest.
#[derive(Clone, Copy, Debug)]
enum RestValue {
    Constant(f64),
    Computed(u32),
}

/// One map's body, compiled, with its tables.
#[derive(Debug)]
enum CompiledPiece {
    /// The body compiled with its loop over the instances (a body of one
    /// chunk without calls): a few instructions an instance.
    Looped(Box<LoopedBody>),
    /// The body called for each instance, or for two at a time.
    EachInstance(Box<EachInstance>),
}

/// A map's body called for each instance.
#[derive(Debug)]
struct EachInstance {
    body: JitKernel,
    /// The body's two-point variant, adding its outputs at fixed places
    /// to a sum per lane ([`JitCompiler::compile_map_pairs`]), if it
    /// has one.
    pairs: Option<TwoPoints>,
    instances: usize,
    gather: Walk,
    places: Walk,
}

/// A [`Columns`] table walked instance by instance: columns the same for
/// every instance (shared arguments, summed results) apart, affine columns
/// by their step, the others read from their table.
#[derive(Debug)]
struct Walk {
    /// Columns the same for every instance: position and entry.
    fixed: Vec<(usize, usize)>,
    /// Affine columns that move: position, entry at instance 0, step.
    strided: Vec<(usize, i64, i64)>,
    /// Tabled columns: position and entries.
    tables: Vec<(usize, Vec<u32>)>,
    /// Where the positions of `fixed` are `j0, j0 + 1, ...`: `j0`.
    fixed_from: Option<usize>,
}

impl Walk {
    fn new(columns: &Columns) -> Walk {
        let mut walk = Walk { fixed: Vec::new(), strided: Vec::new(), tables: Vec::new(), fixed_from: None };
        for (j, column) in columns.columns.iter().enumerate() {
            match column {
                Column::Affine { base, step: 0 } => walk.fixed.push((j, *base as usize)),
                Column::Affine { base, step } => walk.strided.push((j, i64::from(*base), *step)),
                Column::Table(t) => walk.tables.push((j, t.clone())),
            }
        }
        let j0 = walk.fixed.first().map_or(0, |&(j, _)| j);
        walk.fixed_from = walk.fixed.iter().enumerate().all(|(s, &(j, _))| j == j0 + s).then_some(j0);
        walk
    }

    /// Adds the values at the fixed positions into `sums`, one per fixed
    /// column: `sums[s] += values[fixed[s].0]`.
    #[inline]
    fn add_fixed(&self, sums: &mut [f64], values: &[f64]) {
        match self.fixed_from {
            Some(j0) => {
                let values = &values[j0..j0 + sums.len()];
                sums.iter_mut().zip(values).for_each(|(sum, v)| *sum += v);
            }
            None => sums.iter_mut().zip(&self.fixed).for_each(|(sum, &(j, _))| *sum += values[j]),
        }
    }

    /// Per column: `Some(r)` for the `r`-th fixed one.
    fn fixed_ranks(&self, columns: usize) -> Vec<Option<u32>> {
        let mut ranks = vec![None; columns];
        for (r, &(j, _)) in self.fixed.iter().enumerate() {
            ranks[j] = Some(u32::try_from(r).expect("fewer than 2^32 columns"));
        }
        ranks
    }

    /// Calls `each(j, entry)` for every column that moves, at instance `i`.
    #[inline]
    fn moving(&self, i: usize, mut each: impl FnMut(usize, usize)) {
        for &(j, base, step) in &self.strided {
            each(j, (base + step * i as i64) as usize);
        }
        for (j, table) in &self.tables {
            each(*j, table[i] as usize);
        }
    }
}

thread_local! {
    /// Per-thread buffers: the input in one array (and the computed values
    /// after it), a kernel's output, a body's input and output, the output
    /// with its scratch slots.
    static BUFFERS: RefCell<[Vec<f64>; 5]> =
        const { RefCell::new([Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()]) };

    /// Per-thread buffers of a body run on two instances at once: the
    /// second instance's input and output.
    static SECOND: RefCell<[Vec<f64>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

/// Bodies of maps of at least this many instances, called for each
/// instance (not compiled with their loop: several chunks, or calls), get
/// their two-point variant: two instances at once, one per SIMD lane
/// (bodies without calls only: a call runs each lane alone, and with them
/// the pairs were slower, gmm 1000's Jacobian 0.58 -> 0.75 ms, where
/// without calls they are faster, the same model written out 1.2 -> 0.62
/// ms), and of at least [`TWO_POINT_OPS`] operations (smaller ones gained
/// nothing: a 500-interval collocation `.nl`'s Jacobian 53 -> 56 µs).
const TWO_POINT_INSTANCES: usize = 8;

/// See [`TWO_POINT_INSTANCES`].
const TWO_POINT_OPS: usize = 128;

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
        let pre =
            kernel.pre.as_ref().map(|pre| self.compile_parts(pre, lengths).map(Box::new)).transpose()?;
        let (computed, rest_values) = split_constants(&kernel.rest, &kernel.rest_places);
        let rest = self.compile_parts(&computed, lengths)?;
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
                let columns = MapLoop { gather: piece.gather.clone(), places: piece.places.clone() };
                if let Some(looped) = self.compile_map_loop(&piece.body, &columns, piece.instances)? {
                    return Ok(CompiledPiece::Looped(Box::new(looped)));
                }
                let worth_pairs = piece.instances >= TWO_POINT_INSTANCES
                    && !piece.body.has_calls()
                    && piece.body.count_ops() >= TWO_POINT_OPS;
                let body = self.compile_parts(&piece.body, &[piece.body.num_inputs()])?;
                let (gather, places) = (Walk::new(&piece.gather), Walk::new(&piece.places));
                let shared: Vec<bool> = piece.gather.columns.iter().map(|c| c.constant().is_some()).collect();
                let summed = places.fixed_ranks(piece.places.columns.len());
                let pairs =
                    match worth_pairs.then(|| self.compile_map_pairs(&piece.body, &body, &shared, &summed)) {
                        Some(Err(e @ (CodegenError::SelfCheck(_) | CodegenError::Stopped))) => return Err(e),
                        // Cranelift's own failure leaves every instance to run alone.
                        Some(Err(_)) | None => None,
                        Some(Ok(pairs)) => Some(pairs),
                    };
                let each = EachInstance { body, pairs, instances: piece.instances, gather, places };
                Ok(CompiledPiece::EachInstance(Box::new(each)))
            })
            .collect::<Result<_, CodegenError>>()?;
        let post = kernel
            .post
            .as_ref()
            .map(|post| {
                let compiled = self.compile_parts(&post.kernel, &[post.kernel.num_inputs()])?;
                Ok::<_, CodegenError>(Box::new((compiled, post.places.clone())))
            })
            .transpose()?;
        Ok(MappedKernel {
            pre,
            constants: kernel.constants.clone(),
            rest,
            rest_values,
            pieces,
            scratch: kernel.scratch,
            post,
            part_lengths: lengths.to_vec(),
            num_outputs: kernel.num_outputs,
        })
    }
}

/// `rest` without its constant outputs, and every output's place and
/// value in order ([`RestValue`]).
fn split_constants(rest: &Kernel, places: &[u32]) -> (Kernel, Vec<(u32, RestValue)>) {
    let mut computed = Vec::new();
    let values = rest
        .roots()
        .iter()
        .zip(places)
        .map(|(&root, &at)| match rest.dag().as_const(root) {
            Some(c) => (at, RestValue::Constant(c)),
            None => {
                computed.push(root);
                (at, RestValue::Computed(computed.len() as u32 - 1))
            }
        })
        .collect();
    (rest.clone().with_roots(computed).expect("the rest's own nodes"), values)
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

    /// Maps whose body runs in its compiled loop over the instances
    /// (`looped.rs`); the others run an instance at a time.
    pub fn looped_maps(&self) -> usize {
        self.pieces.iter().filter(|p| matches!(p, CompiledPiece::Looped(_))).count()
    }

    /// Maps whose compiled loop runs two instances a step, in the SIMD lanes.
    pub fn loops_in_pairs(&self) -> usize {
        self.pieces.iter().filter(|p| matches!(p, CompiledPiece::Looped(l) if l.in_pairs())).count()
    }

    /// Compiled bodies, the rest and the steps before and after the maps:
    /// how many kernels one call runs.
    pub fn num_kernels(&self) -> usize {
        1 + self.pieces.len() + usize::from(self.pre.is_some()) + usize::from(self.post.is_some())
    }

    /// Computes the output into `out` from the input parts.
    ///
    /// # Errors
    /// [`KernelError::PartCount`], [`KernelError::PartLength`] or
    /// [`KernelError::OutputLength`]; `out` is then left untouched.
    pub fn eval_parts(&self, parts: &[&[f64]], out: &mut [f64]) -> Result<(), KernelError> {
        check_parts(&self.part_lengths, parts, self.num_outputs, out.len())?;
        BUFFERS.with(|buffers| {
            let [input, kernel_out, body_in, body_out, full] = &mut *buffers.borrow_mut();
            input.clear();
            for part in parts {
                input.extend_from_slice(part);
            }
            if let Some(pre) = &self.pre {
                kernel_out.resize(pre.num_outputs(), 0.0);
                pre.eval_parts(parts, kernel_out).expect("checked lengths");
                input.extend_from_slice(kernel_out);
            }
            let computed = input.len();
            input.extend_from_slice(&self.constants);
            // Pieces add into the output and, past it, the scratch slots.
            let with_scratch = if self.scratch == 0 {
                out.fill(0.0);
                &mut *out
            } else {
                full.clear();
                full.resize(self.num_outputs + self.scratch, 0.0);
                &mut full[..]
            };
            kernel_out.resize(self.rest.num_outputs(), 0.0);
            self.rest.eval_parts(parts, kernel_out).expect("checked lengths");
            for &(at, value) in &self.rest_values {
                with_scratch[at as usize] += match value {
                    RestValue::Constant(c) => c,
                    RestValue::Computed(k) => kernel_out[k as usize],
                };
            }
            for piece in &self.pieces {
                match piece {
                    CompiledPiece::Looped(looped) => looped.run_all(input, with_scratch, kernel_out),
                    CompiledPiece::EachInstance(each) => {
                        each.run(input, body_in, body_out, kernel_out, with_scratch)
                    }
                }
            }
            if let Some(post_and_places) = &self.post {
                let (post, places) = &**post_and_places;
                input.truncate(computed);
                input.extend_from_slice(&with_scratch[self.num_outputs..]);
                kernel_out.resize(post.num_outputs(), 0.0);
                post.eval(input, kernel_out).expect("the chain's own lengths");
                for (&value, &at) in kernel_out.iter().zip(places) {
                    with_scratch[at as usize] += value;
                }
            }
            if self.scratch > 0 {
                out.copy_from_slice(&full[..self.num_outputs]);
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
        let eval = |point: &[&[f64]], out: &mut [f64]| self.eval_parts(point, out);
        eval_each_point(parts, &self.part_lengths, self.num_outputs, rows, row_len, stop, keep, eval)
    }
}

impl EachInstance {
    /// Every instance: gather (shared arguments once), run the body (two
    /// instances at once where it has its two-point variant), add its
    /// outputs in place, instance by instance; outputs at a place the same
    /// for every instance summed over the even and over the odd instances
    /// first, then added, as [`MapKernel::eval`] does. The pairs add to
    /// their sums themselves, lane by lane side by side after the body's
    /// outputs in `body_out`; the instances run alone add to `sums`, the
    /// even instances' and then the odd ones'.
    fn run(
        &self,
        input: &[f64],
        body_in: &mut Vec<f64>,
        body_out: &mut Vec<f64>,
        sums: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        let (inputs, outputs) = (self.body.num_inputs(), self.body.num_outputs());
        let places = &self.places;
        let fixed = places.fixed.len();
        body_in.resize(inputs, 0.0);
        body_out.clear();
        body_out.resize(outputs + 2 * fixed, 0.0);
        for &(j, k) in &self.gather.fixed {
            body_in[j] = input[k];
        }
        let mut i = 0;
        if let Some(two) = &self.pairs {
            SECOND.with(|second| {
                let [in1, out1] = &mut *second.borrow_mut();
                in1.clone_from(body_in);
                out1.resize(outputs, 0.0);
                let parts = &self.body.parts;
                while i + 1 < self.instances {
                    self.gather.moving(i, |j, k| body_in[j] = input[k]);
                    self.gather.moving(i + 1, |j, k| in1[j] = input[k]);
                    two.eval(parts.split(body_in), parts.split(in1), body_out, out1);
                    places.moving(i, |j, k| out[k] += body_out[j]);
                    places.moving(i + 1, |j, k| out[k] += out1[j]);
                    i += 2;
                }
            });
        }
        let (values, lanes) = body_out.split_at_mut(outputs);
        sums.clear();
        sums.extend(lanes.iter().step_by(2));
        sums.extend(lanes.iter().skip(1).step_by(2));
        let (even, odd) = sums.split_at_mut(fixed);
        for i in i..self.instances {
            self.gather.moving(i, |j, k| body_in[j] = input[k]);
            self.body.eval(body_in, values).expect("the body's own lengths");
            places.add_fixed(if i % 2 == 0 { even } else { odd }, values);
            places.moving(i, |j, k| out[k] += values[j]);
        }
        for ((even, odd), &(_, k)) in even.iter().zip(&*odd).zip(&places.fixed) {
            out[k] += even + odd;
        }
    }
}
