//! [`JitKernel`], a compiled function from `num_inputs` to `num_outputs`
//! values, and its calls: one point, or two at a time in the lanes of
//! `f64x2` once the compiler gave it the two-point variant
//! ([`JitCompiler::compile_two_points`](crate::JitCompiler::compile_two_points)).
//! A finished kernel only calls code; it never compiles.

use crate::convention::{
    call_one_point, call_two_points, one_point_chunks, two_points_chunks, InputParts, OnePointFn, Parts,
    TwoPointsFn, MAX_PARTS,
};
use crate::error::KernelError;
use crate::module::OwnedModule;
use cranelift_module::FuncId;
use frontend::{FunctionDef, FunctionId};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

thread_local! {
    /// Per-thread scratch of chunked kernels: grown once to the largest
    /// `scratch_len` this thread has needed, never shrunk.
    static SCRATCH: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Runs `call` with this thread's scratch of at least `len` values.
#[inline]
fn with_scratch(len: usize, call: impl FnOnce(*mut f64)) {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut(); // JIT code never re-enters Rust that uses SCRATCH
        if scratch.len() < len {
            scratch.resize(len, 0.0);
        }
        call(scratch.as_mut_ptr());
    });
}

/// A compiled kernel `out = f(x)`, callable from many threads at once.
///
/// Built by [`JitCompiler::compile`](crate::JitCompiler::compile); frees its
/// code when dropped.
pub struct JitKernel {
    chunks: Vec<OnePointFn>,
    scratch_len: usize,
    pub(crate) parts: InputParts,
    num_inputs: usize,
    num_outputs: usize,
    /// The two-point variant, once the compiler gave it.
    two_points: OnceLock<TwoPoints>,
    /// The compiled functions the chunks call, kept alive with them.
    pub(crate) callees: Callees,
    // Declared last: dropped after everything that points into its code.
    _code: OwnedModule,
}

/// The compiled functions a kernel calls ([`crate::calls`]), kept alive
/// with its code, by the address of the function each compiles (a key only).
#[derive(Default, Clone)]
pub(crate) struct Callees {
    compiled: FxHashMap<FunctionId, Arc<JitKernel>>,
}

impl Callees {
    /// Keeps `jit`, the compiled body of `function`.
    pub(crate) fn insert(&mut self, function: &Arc<FunctionDef>, jit: JitKernel) {
        self.compiled.insert(FunctionId::of(function), Arc::new(jit));
    }

    /// The compiled body of `function`.
    pub(crate) fn get(&self, function: &Arc<FunctionDef>) -> &Arc<JitKernel> {
        self.compiled.get(&FunctionId::of(function)).expect("every function called is compiled first")
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.compiled.is_empty()
    }
}

/// A kernel's two-point variant: each chunk evaluates two points, one per
/// lane of `f64x2`, bit for bit as the one-point chunks would.
pub(crate) struct TwoPoints {
    chunks: Vec<TwoPointsFn>,
    scratch_len: usize,
    outputs: usize,
    /// Pairs of sums in `out0` after the outputs.
    sums: usize,
    _code: OwnedModule,
}

impl TwoPoints {
    /// Wraps the finalized `chunks` of `code`, which store `outputs` and
    /// add to `sums` pairs of sums after them.
    pub(crate) fn new(
        mut code: OwnedModule,
        chunks: &[FuncId],
        scratch_len: usize,
        outputs: usize,
        sums: usize,
    ) -> TwoPoints {
        let chunks = two_points_chunks(&mut code, chunks);
        TwoPoints { chunks, scratch_len, outputs, sums, _code: code }
    }

    /// Evaluates the points whose input parts start at `x0` and `x1` into
    /// `out0` and `out1`; the caller checked that each part `p` of either
    /// point holds the kernel's `lengths[p]` values. `out1` holds the
    /// outputs, and `out0` the outputs and then, for the variant adding to
    /// sums ([`crate::JitCompiler::compile_map_pairs`]), two per sum.
    #[inline]
    pub(crate) fn eval(&self, x0: Parts, x1: Parts, out0: &mut [f64], out1: &mut [f64]) {
        assert!(
            out0.len() == self.outputs + 2 * self.sums && out1.len() == self.outputs,
            "the outputs and sums of the kernel"
        );
        let out = [out0.as_mut_ptr(), out1.as_mut_ptr()];
        // SAFETY: the chunk reads part `p` of each point at `x0[p]` and
        // `x1[p]` (lengths checked by the caller; parts the kernel does not
        // have are never read), writes the outputs of `out0` and `out1`,
        // reads and writes the sums after them in `out0` (lengths checked
        // above), and reads and writes `scratch[..scratch_len]`
        // (null for a single chunk, which hands nothing on), this thread's
        // alone. The code lives as long as `self`.
        let run = |chunk: &TwoPointsFn, scratch| unsafe { call_two_points(*chunk, x0, x1, out, scratch) };
        if let ([only], 0) = (&self.chunks[..], self.scratch_len) {
            return run(only, std::ptr::null_mut());
        }
        with_scratch(self.scratch_len, |scratch| self.chunks.iter().for_each(|chunk| run(chunk, scratch)));
    }
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<JitKernel>();
};

impl JitKernel {
    /// Wraps the finalized `chunks` of `code`, to be called in order with a
    /// scratch of `scratch_len` values. Panics if a chunk is not a finalized
    /// one-point function of `code`: the calls below rely on it.
    pub(crate) fn new(
        mut code: OwnedModule,
        chunks: &[FuncId],
        scratch_len: usize,
        parts: InputParts,
        num_outputs: usize,
        callees: Callees,
    ) -> JitKernel {
        assert!(
            chunks.len() > 1 || scratch_len == 0 || !callees.is_empty(),
            "a single chunk hands no value on"
        );
        let chunks = one_point_chunks(&mut code, chunks);
        let num_inputs = parts.lengths().iter().sum();
        JitKernel {
            chunks,
            scratch_len,
            parts,
            num_inputs,
            num_outputs,
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
        self.run(self.parts.split(x), out)
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
    pub(crate) fn run(&self, x: Parts, out: &mut [f64]) -> Result<(), KernelError> {
        if out.len() != self.num_outputs {
            return Err(KernelError::OutputLength { expected: self.num_outputs, found: out.len() });
        }
        let out = out.as_mut_ptr();
        // SAFETY: the chunk reads part `p` of the input at `x[p]`, which
        // points at `parts.lengths()[p]` values (checked by the callers),
        // writes `out[..num_outputs]` (checked above), and reads and writes
        // `scratch[..scratch_len]`, which exists and is this thread's alone
        // (null for a single chunk with `scratch_len == 0`, which touches
        // none). The code lives as long as `self`.
        let run = |chunk: &OnePointFn, scratch| unsafe { call_one_point(*chunk, x, out, scratch) };
        if let ([only], 0) = (&self.chunks[..], self.scratch_len) {
            run(only, std::ptr::null_mut());
            return Ok(());
        }
        with_scratch(self.scratch_len, |scratch| self.chunks.iter().for_each(|chunk| run(chunk, scratch)));
        Ok(())
    }

    /// Keeps `two`, this kernel's two-point variant, for the batches from
    /// now on: the first one given is kept, the same code either way.
    pub(crate) fn set_two_points(&self, two: TwoPoints) {
        let _ = self.two_points.set(two);
    }

    /// The two-point variant, if the compiler gave it.
    pub(crate) fn two_points(&self) -> Option<&TwoPoints> {
        self.two_points.get()
    }

    /// Whether the two-point variant is there
    /// ([`JitCompiler::compile_two_points`](crate::JitCompiler::compile_two_points)).
    pub fn has_two_points(&self) -> bool {
        self.two_points.get().is_some()
    }

    /// Points per call of the kernel that batches
    /// ([`eval_points`](Self::eval_points), [`eval_batch`](Self::eval_batch))
    /// run: 2 with the two-point variant, 1 without.
    pub fn points_per_call(&self) -> usize {
        if self.has_two_points() {
            2
        } else {
            1
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

impl std::fmt::Debug for TwoPoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwoPoints")
            .field("chunks", &self.chunks.len())
            .field("scratch_len", &self.scratch_len)
            .finish()
    }
}
