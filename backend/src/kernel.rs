//! [`JitKernel`], a compiled function from `num_inputs` to `num_outputs`
//! values. The only file of the crate with `unsafe`: calling JIT code and
//! freeing it.

use crate::calls::Callees;
use crate::compiler::JitCompiler;
use crate::error::CodegenError;
use crate::error::KernelError;
use crate::lanes::Lanes;
use crate::lower::Width;
use crate::parts::{InputParts, MAX_PARTS};
use crate::scalar::Scalar;
use crate::self_check::SelfCheckFailure;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};
use frontend::{Kernel, Stop};
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::{Mutex, OnceLock, PoisonError};

/// Points a thread of a batch runs at a time, between asking its stop: an
/// even number, so that points pair up within a piece.
const PIECE: usize = 64;

/// The outputs a thread of [`JitKernel::eval_batch_parts_keep`] holds at a
/// time, at most (but two points): what a core's cache keeps, so that they
/// are still there when kept.
const KEPT_BYTES: usize = 1 << 18;

/// A chunk as the JIT emitted it: `(x0, x1, x2, x3, out, scratch)`.
type ChunkFn = unsafe extern "C" fn(*const f64, *const f64, *const f64, *const f64, *mut f64, *mut f64);
/// A two-point chunk: `(x0, x1, out0, out1, scratch)`, then the other input
/// parts of the two points, `(x0_1, x1_1, x0_2, x1_2, x0_3, x1_3)`.
type TwoPointsFn = unsafe extern "C" fn(
    *const f64,
    *const f64,
    *mut f64,
    *mut f64,
    *mut f64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
);

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

/// Owns a module's code and frees it on drop (dropping a `JITModule`
/// alone leaks it). The mutex only makes the owner `Sync`; it is never
/// locked, since the module is touched only through `&mut self`.
pub(crate) struct OwnedModule(Mutex<Option<JITModule>>);

impl OwnedModule {
    /// Takes ownership of `module`.
    pub(crate) fn new(module: JITModule) -> OwnedModule {
        OwnedModule(Mutex::new(Some(module)))
    }

    /// The module, to define and finalize functions in.
    pub(crate) fn module_mut(&mut self) -> &mut JITModule {
        self.0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .expect("the module is present until drop")
    }
}

impl Drop for OwnedModule {
    fn drop(&mut self) {
        if let Some(module) = self.0.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            // SAFETY: the code is unreachable from here on: a `JitKernel` keeps its
            // chunk pointers private and drops its `OwnedModule` only when it is
            // itself dropped, so no call is running (calls borrow the kernel) and
            // none can start.
            unsafe { module.free_memory() };
        }
    }
}

/// A point's input parts: one pointer per part, null past the kernel's parts.
pub(crate) type Parts = [*const f64; MAX_PARTS];

thread_local! {
    /// Per-thread scratch of chunked kernels: grown once to the largest
    /// `scratch_len` this thread has needed, never shrunk.
    static SCRATCH: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// A compiled kernel `out = f(x)`, callable from many threads at once.
///
/// Built by [`JitCompiler::compile`](crate::JitCompiler::compile); frees its
/// code when dropped.
pub struct JitKernel {
    chunks: Vec<ChunkFn>,
    scratch_len: usize,
    parts: InputParts,
    num_inputs: usize,
    num_outputs: usize,
    /// What the two-point variant is compiled from, on the first batch.
    source: Option<Box<(Kernel, JitCompiler)>>,
    /// The two-point variant: `Ok(None)` where there is none, `Err` where
    /// it failed its self-check.
    two_points: OnceLock<Result<Option<TwoPoints>, SelfCheckFailure>>,
    /// The compiled functions the chunks call, kept alive with them.
    callees: Callees,
    // Declared last: dropped after everything that points into its code.
    _code: OwnedModule,
}

/// A kernel's two-point variant: each chunk evaluates two points, one per
/// lane of `f64x2`, bit for bit as the one-point chunks would.
pub(crate) struct TwoPoints {
    chunks: Vec<TwoPointsFn>,
    scratch_len: usize,
    _code: OwnedModule,
}

impl TwoPoints {
    /// Wraps the finalized `chunks` of `code` (with [`Lanes::signature`]).
    pub(crate) fn new(mut code: OwnedModule, chunks: &[FuncId], scratch_len: usize) -> TwoPoints {
        let module = code.module_mut();
        let signature = Lanes::signature(module);
        let chunks = finalized(module, chunks, &signature)
            .into_iter()
            // SAFETY: `ptr` is the entry of a finalized function of `module` whose
            // signature (checked by `finalized`) is five pointer parameters and no
            // result in the platform's default calling convention, i.e. `TwoPointsFn`.
            .map(|ptr| unsafe { std::mem::transmute::<*const u8, TwoPointsFn>(ptr) })
            .collect();
        TwoPoints { chunks, scratch_len, _code: code }
    }

    /// Evaluates the points whose input parts start at `x0` and `x1` into
    /// `out0` and `out1`; the caller checked that each part `p` of either
    /// point holds the kernel's `lengths[p]` values and that
    /// `out0.len() == out1.len() == num_outputs`.
    #[inline]
    pub(crate) fn eval(&self, x0: Parts, x1: Parts, out0: &mut [f64], out1: &mut [f64]) {
        let (out0, out1) = (out0.as_mut_ptr(), out1.as_mut_ptr());
        let run = |chunk: &TwoPointsFn, scratch: *mut f64| {
            // SAFETY: the chunk reads part `p` of each point at `x0[p]` and
            // `x1[p]` (lengths checked by the caller; parts the kernel does not
            // have are never read), writes the `num_outputs` values of `out0`
            // and `out1` (checked), and reads and writes `scratch[..scratch_len]`
            // (null for a single chunk, which hands nothing on), this thread's
            // alone. The code lives as long as `self`.
            unsafe { chunk(x0[0], x1[0], out0, out1, scratch, x0[1], x1[1], x0[2], x1[2], x0[3], x1[3]) };
        };
        if let ([only], 0) = (&self.chunks[..], self.scratch_len) {
            run(only, std::ptr::null_mut());
            return;
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut(); // JIT code never re-enters Rust that uses SCRATCH
            if scratch.len() < self.scratch_len {
                scratch.resize(self.scratch_len, 0.0);
            }
            for chunk in &self.chunks {
                run(chunk, scratch.as_mut_ptr());
            }
        });
    }
}

/// The entry addresses of the finalized `chunks` of `module`. Panics if a
/// chunk is not a function with `signature`: the calls rely on it.
fn finalized(
    module: &JITModule,
    chunks: &[FuncId],
    signature: &cranelift_codegen::ir::Signature,
) -> Vec<*const u8> {
    chunks
        .iter()
        .map(|&id| {
            let decl = module.declarations().get_function_decl(id);
            assert_eq!(&decl.signature, signature, "chunk {id} has the expected signature");
            module.get_finalized_function(id)
        })
        .collect()
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<JitKernel>();
};

impl JitKernel {
    /// Wraps the finalized `chunks` of `code`, to be called in order with a
    /// scratch of `scratch_len` values. Panics if a chunk is not a finalized
    /// function of `code` with [`Scalar::signature`]: the calls below rely on it.
    pub(crate) fn new(
        mut code: OwnedModule,
        chunks: &[FuncId],
        scratch_len: usize,
        parts: InputParts,
        num_outputs: usize,
        source: Option<(Kernel, JitCompiler)>,
        callees: Callees,
    ) -> JitKernel {
        assert!(
            chunks.len() > 1 || scratch_len == 0 || !callees.is_empty(),
            "a single chunk hands no value on"
        );
        let module = code.module_mut();
        let signature = Scalar::signature(module);
        let chunks = finalized(module, chunks, &signature)
            .into_iter()
            // SAFETY: `ptr` is the entry of a finalized function of `module` whose
            // signature (checked by `finalized`) is six pointer parameters and no
            // result in the platform's default calling convention, i.e. `ChunkFn`.
            .map(|ptr| unsafe { std::mem::transmute::<*const u8, ChunkFn>(ptr) })
            .collect();
        let num_inputs = parts.lengths().iter().sum();
        JitKernel {
            chunks,
            scratch_len,
            parts,
            num_inputs,
            num_outputs,
            source: source.map(Box::new),
            two_points: OnceLock::new(),
            callees,
            _code: code,
        }
    }

    /// The scratch length the chunks need.
    pub(crate) fn scratch_len(&self) -> usize {
        self.scratch_len
    }

    /// The entry addresses of the chunks, in call order: what a caller's
    /// chunks call, with this kernel's inputs as one part, its outputs and
    /// a scratch of [`scratch_len`](Self::scratch_len) values.
    pub(crate) fn chunk_addresses(&self) -> impl Iterator<Item = usize> + '_ {
        self.chunks.iter().map(|&chunk| chunk as usize)
    }

    /// Number of inputs, the length `x` must have.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of outputs, the length `out` must have.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// Lengths of the arrays [`eval_parts`](Self::eval_parts) takes: one
    /// array of all inputs unless compiled by
    /// [`JitCompiler::compile_parts`](crate::JitCompiler::compile_parts).
    pub fn part_lengths(&self) -> &[usize] {
        self.parts.lengths()
    }

    /// Computes the outputs at `x` (all inputs, the parts one after
    /// another) into `out`. Allocates nothing (beyond a per-thread scratch
    /// grown on a thread's first call of a large kernel).
    ///
    /// # Errors
    /// [`KernelError::InputLength`] or [`KernelError::OutputLength`] if a
    /// slice has the wrong length; `out` is then left untouched.
    #[inline]
    pub fn eval(&self, x: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        if x.len() != self.num_inputs {
            return Err(KernelError::InputLength { expected: self.num_inputs, found: x.len() });
        }
        let mut inputs = [std::ptr::null(); MAX_PARTS];
        for (p, input) in inputs.iter_mut().enumerate().take(self.parts.lengths().len()) {
            *input = x[self.parts.start(p)..].as_ptr();
        }
        self.run(inputs, out)
    }

    /// Computes the outputs into `out` from the input given as separate
    /// arrays, read in place, of [`part_lengths`](Self::part_lengths).
    ///
    /// # Errors
    /// [`KernelError::PartCount`], [`KernelError::PartLength`] or
    /// [`KernelError::OutputLength`]; `out` is then left untouched.
    #[inline]
    pub fn eval_parts(&self, parts: &[&[f64]], out: &mut [f64]) -> Result<(), KernelError> {
        let lengths = self.parts.lengths();
        if parts.len() != lengths.len() {
            return Err(KernelError::PartCount { expected: lengths.len(), found: parts.len() });
        }
        let mut inputs = [std::ptr::null(); MAX_PARTS];
        for (p, (part, &len)) in parts.iter().zip(lengths).enumerate() {
            if part.len() != len {
                return Err(KernelError::PartLength { part: p, expected: len, found: part.len() });
            }
            inputs[p] = part.as_ptr();
        }
        self.run(inputs, out)
    }

    /// Runs the chunks on input arrays whose lengths the caller checked
    /// against `self.parts`.
    #[inline]
    fn run(&self, x: [*const f64; MAX_PARTS], out: &mut [f64]) -> Result<(), KernelError> {
        if out.len() != self.num_outputs {
            return Err(KernelError::OutputLength { expected: self.num_outputs, found: out.len() });
        }
        let [x0, x1, x2, x3] = x;
        if let ([only], 0) = (&self.chunks[..], self.scratch_len) {
            // SAFETY: the chunk reads part `p` of the input at `x[p]`, which
            // points at `parts.lengths()[p]` values (checked by the callers),
            // writes `out[..num_outputs]` (checked above); with
            // `scratch_len == 0` it touches no scratch. The code lives as
            // long as `self`.
            unsafe { only(x0, x1, x2, x3, out.as_mut_ptr(), std::ptr::null_mut()) };
            return Ok(());
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut(); // JIT code never re-enters Rust that uses SCRATCH
            if scratch.len() < self.scratch_len {
                scratch.resize(self.scratch_len, 0.0);
            }
            for chunk in &self.chunks {
                // SAFETY: as above for the input and `out`; the chunk reads and
                // writes `scratch[..scratch_len]`, which exists and is this
                // thread's alone, borrowed mutably. The code lives as long as `self`.
                unsafe { chunk(x0, x1, x2, x3, out.as_mut_ptr(), scratch.as_mut_ptr()) };
            }
        });
        Ok(())
    }

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
    /// where the kernel has a two-point variant (compiled on the first batch).
    ///
    /// # Errors
    /// [`KernelError::PartCount`] unless one [`Rows`] per part;
    /// [`KernelError::BatchShape`] unless `outs` and every per-point part
    /// hold whole rows of the same number of points, and every shared part
    /// its length; [`KernelError::SelfCheck`] if the two-point variant
    /// failed its self-check; `outs` is then left untouched.
    pub fn eval_batch_parts(&self, parts: &[Rows<'_>], outs: &mut [f64]) -> Result<(), KernelError> {
        self.eval_batch_parts_until(parts, outs, &Stop::never())
    }

    /// [`eval_batch_parts`](Self::eval_batch_parts), asking `stop` while
    /// the two-point variant compiles (if this is the first batch) and
    /// before each piece of 64 points: once it is requested, the pieces not
    /// yet started are skipped.
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
        let m = self.num_outputs;
        if m == 0 || points == 0 {
            return Ok(());
        }
        self.two_points_until(stop)?;
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
        let m = self.num_outputs;
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
        self.two_points_until(stop)?;
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
    /// kernel has a two-point variant (compiled on the first call): row `i`
    /// of `xs` gives row `i` of `outs`, bit for bit what
    /// [`eval`](Self::eval) gives.
    ///
    /// # Errors
    /// As [`eval_batch_parts`](Self::eval_batch_parts).
    pub fn eval_points(&self, xs: &[f64], outs: &mut [f64]) -> Result<(), KernelError> {
        let parts = [Rows::Each(xs)];
        let points = self.check_batch(&parts, outs.len())?;
        if self.num_outputs > 0 && points > 0 {
            self.two_points()?;
            self.points(&parts, 0, outs);
        }
        Ok(())
    }

    /// The error for batch buffers that are not whole rows of the same
    /// number of points.
    fn shape_error(&self, parts: &[Rows<'_>], outputs_len: usize) -> KernelError {
        KernelError::BatchShape {
            num_inputs: self.num_inputs,
            num_outputs: self.num_outputs,
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
        let lengths = self.parts.lengths();
        if parts.len() != lengths.len() {
            return Err(KernelError::PartCount { expected: lengths.len(), found: parts.len() });
        }
        let shape_error = || self.shape_error(parts, outs_len);
        // The number of points: from the outputs, else from a per-point part.
        let counted = (self.num_outputs > 0).then(|| outs_len / self.num_outputs).or_else(|| {
            parts.iter().zip(lengths).find_map(|(r, &len)| match r {
                Rows::Each(v) if len > 0 => Some(v.len() / len),
                _ => None,
            })
        });
        let points = counted.unwrap_or(0);
        if outs_len != points * self.num_outputs {
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
        for (p, (rows, &len)) in parts.iter().zip(self.parts.lengths()).enumerate() {
            x[p] = rows.at(i, len);
        }
        x
    }

    /// Points `first..` into `outs` (whole rows), on checked shapes, once
    /// the two-point variant passed its self-check.
    fn points(&self, parts: &[Rows<'_>], first: usize, outs: &mut [f64]) {
        let m = self.num_outputs;
        let mut i = first;
        let rest = match self.two_points().expect("checked by the caller") {
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

    /// Points per call of the kernel [`eval_points`](Self::eval_points) and
    /// [`eval_batch`](Self::eval_batch) run: 2 with the two-point variant
    /// (compiled by this call if not yet), 1 without.
    pub fn points_per_call(&self) -> usize {
        if matches!(self.two_points(), Ok(Some(_))) {
            2
        } else {
            1
        }
    }

    /// The two-point variant, compiled (and self-checked) on first use;
    /// `None` if Cranelift failed to compile it (the one-point kernel then
    /// covers every point).
    fn two_points(&self) -> Result<Option<&TwoPoints>, KernelError> {
        self.two_points_until(&Stop::never())
    }

    /// [`two_points`](Self::two_points), its compile stopped by `stop` (or
    /// by the compiler's own stop) with [`KernelError::Stopped`], leaving
    /// it to the next batch. Threads of first batches may compile it at
    /// once: the first one stored is kept, the same code either way.
    fn two_points_until(&self, stop: &Stop) -> Result<Option<&TwoPoints>, KernelError> {
        let Some(source) = self.source.as_deref() else { return Ok(None) };
        if self.two_points.get().is_none() {
            let compiler = source.1.clone().with_stop(source.1.stop().or(stop));
            let compiled = match compiler.compile_two_points(&source.0, &self.parts, &self.callees) {
                Ok(two) => Ok(Some(two)),
                Err(CodegenError::SelfCheck(failure)) => Err(failure),
                Err(CodegenError::Stopped) => return Err(KernelError::Stopped),
                Err(_) => Ok(None),
            };
            let _ = self.two_points.set(compiled);
        }
        match self.two_points.get().expect("set above") {
            Ok(two) => Ok(two.as_ref()),
            Err(failure) => Err(KernelError::SelfCheck(failure.clone())),
        }
    }
}

impl std::fmt::Debug for JitKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitKernel")
            .field("num_inputs", &self.num_inputs)
            .field("num_outputs", &self.num_outputs)
            .field("chunks", &self.chunks.len())
            .field("scratch_len", &self.scratch_len)
            .finish()
    }
}
