//! [`JitKernel`], a compiled function from `num_inputs` to `num_outputs`
//! values. The only file of the crate with `unsafe`: calling JIT code and
//! freeing it.

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
use frontend::Kernel;
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::{Mutex, OnceLock, PoisonError};

/// A chunk as the JIT emitted it: `(x0, x1, x2, x3, out, scratch)`.
type ChunkFn = unsafe extern "C" fn(*const f64, *const f64, *const f64, *const f64, *mut f64, *mut f64);
/// A two-point chunk: `(x0, x1, out0, out1, scratch)`.
type TwoPointsFn = unsafe extern "C" fn(*const f64, *const f64, *mut f64, *mut f64, *mut f64);

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

    /// Evaluates the points `x0` and `x1` into `out0` and `out1`; the
    /// caller checked `x0.len() == x1.len() == num_inputs` and
    /// `out0.len() == out1.len() == num_outputs` of the kernel it belongs to.
    #[inline]
    pub(crate) fn eval(&self, x0: &[f64], x1: &[f64], out0: &mut [f64], out1: &mut [f64]) {
        if let [only] = self.chunks[..] {
            debug_assert_eq!(self.scratch_len, 0, "a single chunk hands no value on");
            // SAFETY: as below; a single chunk touches no scratch.
            unsafe {
                only(x0.as_ptr(), x1.as_ptr(), out0.as_mut_ptr(), out1.as_mut_ptr(), std::ptr::null_mut())
            };
            return;
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut(); // JIT code never re-enters Rust that uses SCRATCH
            if scratch.len() < self.scratch_len {
                scratch.resize(self.scratch_len, 0.0);
            }
            for chunk in &self.chunks {
                // SAFETY: each chunk reads the `num_inputs` values of `x0` and `x1`,
                // writes the `num_outputs` values of `out0` and `out1` (lengths
                // checked by the caller) and reads and writes `scratch[..scratch_len]`,
                // this thread's alone, borrowed mutably. The code lives as long as `self`.
                unsafe {
                    chunk(
                        x0.as_ptr(),
                        x1.as_ptr(),
                        out0.as_mut_ptr(),
                        out1.as_mut_ptr(),
                        scratch.as_mut_ptr(),
                    )
                };
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
    ) -> JitKernel {
        assert!(chunks.len() > 1 || scratch_len == 0, "a single chunk hands no value on");
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
            _code: code,
        }
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
        if let [only] = self.chunks[..] {
            // SAFETY: the chunk reads part `p` of the input at `x[p]`, which
            // points at `parts.lengths()[p]` values (checked by the callers),
            // writes `out[..num_outputs]` (checked above); a single chunk hands
            // nothing on, so `scratch_len == 0` and it touches no scratch. The
            // code lives as long as `self`.
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
    /// values, row-major) gives row `i` of `outs` (`num_outputs` values).
    /// Each thread runs [`eval_points`](Self::eval_points) on its rows.
    ///
    /// # Errors
    /// [`KernelError::BatchShape`] unless both buffers hold the same number of
    /// whole rows; [`KernelError::SelfCheck`] if the two-point variant failed
    /// its self-check; `outs` is then left untouched.
    pub fn eval_batch(&self, xs: &[f64], outs: &mut [f64]) -> Result<(), KernelError> {
        self.check_batch(xs, outs)?;
        let (n, m) = (self.num_inputs, self.num_outputs);
        if m == 0 {
            return Ok(());
        }
        self.two_points()?;
        // Pieces of an even number of rows, so that points pair up within a piece.
        const ROWS: usize = 64;
        outs.par_chunks_mut(ROWS * m).enumerate().for_each(|(i, outs)| {
            let rows = outs.len() / m;
            self.points(&xs[i * ROWS * n..(i * ROWS + rows) * n], outs);
        });
        Ok(())
    }

    /// Evaluates many points on this thread, two at a time where the
    /// kernel has a two-point variant (compiled on the first call): row `i`
    /// of `xs` gives row `i` of `outs`, bit for bit what
    /// [`eval`](Self::eval) gives.
    ///
    /// # Errors
    /// As [`eval_batch`](Self::eval_batch).
    pub fn eval_points(&self, xs: &[f64], outs: &mut [f64]) -> Result<(), KernelError> {
        self.check_batch(xs, outs)?;
        if self.num_outputs > 0 {
            self.two_points()?;
            self.points(xs, outs);
        }
        Ok(())
    }

    /// The number of points, if `xs` and `outs` hold the same number of whole rows.
    fn check_batch(&self, xs: &[f64], outs: &[f64]) -> Result<usize, KernelError> {
        let shape_error = || KernelError::BatchShape {
            num_inputs: self.num_inputs,
            num_outputs: self.num_outputs,
            inputs_len: xs.len(),
            outputs_len: outs.len(),
        };
        let points = match (self.num_inputs, self.num_outputs) {
            (0, 0) => return if xs.is_empty() && outs.is_empty() { Ok(0) } else { Err(shape_error()) },
            (0, m) => outs.len() / m,
            (n, _) => xs.len() / n,
        };
        if xs.len() != points * self.num_inputs || outs.len() != points * self.num_outputs {
            return Err(shape_error());
        }
        Ok(points)
    }

    /// [`eval_points`](Self::eval_points) on checked shapes, `num_outputs > 0`,
    /// once the two-point variant passed its self-check.
    fn points(&self, xs: &[f64], outs: &mut [f64]) {
        let (n, m) = (self.num_inputs, self.num_outputs);
        let mut row = 0;
        let rest = match self.two_points().expect("checked by the caller") {
            Some(two) => {
                let mut pairs = outs.chunks_exact_mut(2 * m);
                for pair in &mut pairs {
                    let (out0, out1) = pair.split_at_mut(m);
                    two.eval(&xs[row * n..(row + 1) * n], &xs[(row + 1) * n..(row + 2) * n], out0, out1);
                    row += 2;
                }
                pairs.into_remainder()
            }
            None => outs,
        };
        for out in rest.chunks_exact_mut(m) {
            self.eval(&xs[row * n..(row + 1) * n], out).expect("checked shapes");
            row += 1;
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
    /// `None` for kernels of several input arrays (or if Cranelift failed,
    /// which the one-point kernel then covers).
    fn two_points(&self) -> Result<Option<&TwoPoints>, KernelError> {
        let Some(source) = self.source.as_deref() else { return Ok(None) };
        let compiled = self.two_points.get_or_init(|| match source.1.compile_two_points(&source.0) {
            Ok(two) => Ok(Some(two)),
            Err(CodegenError::SelfCheck(failure)) => Err(failure),
            Err(_) => Ok(None),
        });
        match compiled {
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
