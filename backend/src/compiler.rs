//! [`JitCompiler`]: compiles a [`Kernel`] into a
//! [`JitKernel`] with Cranelift, one function per chunk of operations.

use crate::calls::CallLayout;
use crate::chunk::ChunkPlan;
use crate::convention::{looped_signature, one_point_signature, two_points_signature, InputParts, MAX_PARTS};
use crate::error::CodegenError;
use crate::function_first::FunctionFirst;
use crate::kernel::{Callees, JitKernel, TwoPoints};
use crate::lanes::Lanes;
use crate::libm::Libm;
use crate::looped::MapLoop;
use crate::lower::{libm_signature, lower_chunk, LowerInput, MapPairs, ValueCache};
use crate::module::OwnedModule;
use crate::pairs;
use crate::scalar::Scalar;
use crate::self_check;
use crate::sincos;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{Function, Signature, UserFuncName};
use cranelift_codegen::isa::{self, OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module, ModuleError, ModuleReloc};
use frontend::call::{called_functions, small_calls_written_out};
use frontend::{ExprDag, Kernel, NodeId, Op, Stop};
use rayon::prelude::*;

/// Cranelift's register allocators.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Regalloc {
    /// Backtracking with range splitting: slower to compile, faster code.
    #[default]
    Backtracking,
    /// One pass: about 3x faster to compile, more spills.
    SinglePass,
}

impl Regalloc {
    fn setting(self) -> &'static str {
        match self {
            Regalloc::Backtracking => "backtracking",
            Regalloc::SinglePass => "single_pass",
        }
    }
}

/// Compiles expression DAGs into native kernels for the host machine.
///
/// ```
/// let program = frontend::parse_program("in x, y\nout x * y + 1")?;
/// let kernel = backend::JitCompiler::new()?.with_chunk_size(500).compile(&program.kernel()?)?;
/// let mut out = [0.0];
/// kernel.eval(&[2.0, 3.0], &mut out)?;
/// assert_eq!(out, [7.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct JitCompiler {
    regalloc: Regalloc,
    chunk_size: usize,
    self_check: bool,
    stop: Stop,
}

impl JitCompiler {
    /// Operations per Cranelift function unless set with
    /// [`with_chunk_size`](Self::with_chunk_size): small enough that register
    /// allocation stays linear, large enough that the scratch traffic between
    /// chunks costs little.
    pub const DEFAULT_CHUNK_SIZE: usize = 1000;

    /// Straight-line code of this many operations or more, without calls,
    /// compiles without Cranelift's optimizer (its e-graph pass: a fifth
    /// of compiling): the DAG has shared and folded what it would, and the
    /// code differs little (the single-shooting Hessian of 1,000 steps,
    /// 2.5 M operations: 20.89 MB against 20.91 MB, as fast; its JIT 1.8 s
    /// against 2.3 s). Smaller kernels, and kernels with calls, keep it:
    /// it keeps libm's addresses and the call area's addresses in
    /// registers across calls (cart-pole's maps 10% faster, `calls_shared`'s
    /// Hessian 13%, the 400-step single-shooting Hessian with functions
    /// 15-25%).
    pub const OPTIMIZE_BELOW_OPS: usize = 50_000;

    /// A compiler for the host machine, with the backtracking allocator.
    ///
    /// # Errors
    /// [`CodegenError::UnsupportedHost`] if Cranelift cannot target this machine.
    pub fn new() -> Result<JitCompiler, CodegenError> {
        host()?;
        Ok(JitCompiler {
            regalloc: Regalloc::default(),
            chunk_size: JitCompiler::DEFAULT_CHUNK_SIZE,
            self_check: true,
            stop: Stop::never(),
        })
    }

    /// Uses `regalloc` for the kernels compiled from now on.
    pub fn with_regalloc(mut self, regalloc: Regalloc) -> JitCompiler {
        self.regalloc = regalloc;
        self
    }

    /// Puts at most `ops` operations (at least 1) in each Cranelift function.
    pub fn with_chunk_size(mut self, ops: usize) -> JitCompiler {
        self.chunk_size = ops.max(1);
        self
    }

    /// Whether every kernel compiled from now on checks itself (on by
    /// default): evaluated once at a fixed point ([`check_point`](crate::check_point))
    /// by the JIT and by the interpreter, it must agree bit for bit, or
    /// compiling fails with [`CodegenError::SelfCheck`] (the kernel, or its
    /// two-point variant: [`compile_two_points`](Self::compile_two_points)).
    /// Off, a back-end bug would go unnoticed: switch it off only to measure.
    pub fn with_self_check(mut self, on: bool) -> JitCompiler {
        self.self_check = on;
        self
    }

    /// Stops compiling, with [`CodegenError::Stopped`], when `stop` is
    /// requested: it is asked before each batch of chunks (a few thousand
    /// operations), so a kernel of a million operations stops within a
    /// fraction of a second.
    pub fn with_stop(mut self, stop: Stop) -> JitCompiler {
        self.stop = stop;
        self
    }

    /// What stops it ([`with_stop`](Self::with_stop)).
    pub fn stop(&self) -> &Stop {
        &self.stop
    }

    /// Whether kernels check themselves ([`with_self_check`](Self::with_self_check)).
    pub fn self_check(&self) -> bool {
        self.self_check
    }

    /// Compiles `kernel` into native code computing its outputs (in order)
    /// from its inputs; node `Op::Input(k)` reads `x[k]`.
    ///
    /// # Errors
    /// Cranelift's own failures; [`CodegenError::SelfCheck`] if the kernel
    /// disagrees with the interpreter ([`with_self_check`](Self::with_self_check)).
    pub fn compile(&self, kernel: &Kernel) -> Result<JitKernel, CodegenError> {
        self.compile_parts(kernel, &[kernel.num_inputs()])
    }

    /// [`compile`](Self::compile) for an input given as separate arrays of
    /// `lengths` (at most [`MAX_PARTS`], summing to the kernel's inputs),
    /// which [`JitKernel::eval_parts`] reads in place: input `k` is the
    /// `k`-th value of their concatenation.
    ///
    /// # Errors
    /// [`CodegenError::InputParts`] for lengths that do not fit; Cranelift's
    /// own failures; [`CodegenError::SelfCheck`].
    pub fn compile_parts(&self, kernel: &Kernel, lengths: &[usize]) -> Result<JitKernel, CodegenError> {
        let kernel = small_calls_written_out(kernel);
        let callees = self.compile_callees(&kernel)?;
        self.compile_with(&kernel, lengths, &callees)
    }

    /// [`compile_parts`](Self::compile_parts) of a kernel whose calls are
    /// to the functions of `callees`, compiled already.
    fn compile_with(
        &self,
        kernel: &Kernel,
        lengths: &[usize],
        callees: &Callees,
    ) -> Result<JitKernel, CodegenError> {
        let parts = self.parts(kernel, lengths)?;
        let Built { code, chunks, scratch_len } =
            self.build(kernel, &parts, Variant::OnePoint, None, callees, &MapPairs::default())?;
        let m = kernel.roots().len();
        self.checked(kernel, JitKernel::new(code, &chunks, scratch_len, parts, m, callees.clone()))
    }

    /// Compiles every function `kernel` calls, to any depth, callees first,
    /// each once (with the callees compiled before it): a loop over the
    /// call graph, however deep it nests.
    /// Each body with its small calls written out
    /// ([`small_calls_written_out`]), as the kernel.
    fn compile_callees(&self, kernel: &Kernel) -> Result<Callees, CodegenError> {
        let mut callees = Callees::default();
        for function in called_functions(kernel.dag(), kernel.roots(), &[]) {
            let body = small_calls_written_out(function.body());
            let jit = self.compile_with(&body, &[body.num_inputs()], &callees)?;
            callees.insert(&function, jit);
        }
        Ok(callees)
    }

    /// The input parts of `lengths`, if they fit `kernel`.
    fn parts(&self, kernel: &Kernel, lengths: &[usize]) -> Result<InputParts, CodegenError> {
        if lengths.is_empty()
            || lengths.len() > MAX_PARTS
            || lengths.iter().sum::<usize>() != kernel.num_inputs()
        {
            return Err(CodegenError::InputParts {
                lengths: lengths.to_vec(),
                num_inputs: kernel.num_inputs(),
            });
        }
        Ok(InputParts::new(lengths))
    }

    /// `jit`, compiled from `kernel`, once it passed the self-check (if on).
    fn checked(&self, kernel: &Kernel, jit: JitKernel) -> Result<JitKernel, CodegenError> {
        if self.self_check {
            self_check::one_point(kernel, |x, out| jit.eval(x, out).expect("lengths of the kernel"))?;
        }
        Ok(jit)
    }

    /// Compiles the two-point variant of `jit`, which this compiler
    /// compiled from `kernel`, and gives it to `jit`: its batches then run
    /// two points per call ([`JitKernel::points_per_call`]), bit for bit as
    /// one at a time, even for kernels whose operations mostly run in pairs
    /// already (matmul_10, 76% paired: 1.2x the per-point throughput). A
    /// finished kernel never compiles: its owner asks for this, once, before
    /// its first batch (or not, and every point runs alone). Does nothing if
    /// `jit` has its variant already.
    ///
    /// # Errors
    /// [`CodegenError::Stopped`]; Cranelift's own failures (the one-point
    /// kernel then covers every point); [`CodegenError::SelfCheck`] if the
    /// variant disagrees with the interpreter.
    pub fn compile_two_points(&self, kernel: &Kernel, jit: &JitKernel) -> Result<(), CodegenError> {
        if jit.has_two_points() {
            return Ok(());
        }
        // Nothing shared, nothing summed: every output stored.
        let (shared, summed) = (vec![false; kernel.num_inputs()], vec![None; kernel.roots().len()]);
        jit.set_two_points(self.compile_map_pairs(kernel, jit, &shared, &summed)?);
        Ok(())
    }

    /// The two-point variant of `jit`, compiled by this compiler from
    /// `kernel` (for a map's body: [`compile_two_points`](Self::compile_two_points)
    /// is this with nothing shared or summed), which reads each input `k` with `shared[k]`
    /// from point 0 alone (the caller gives both points the same value
    /// there), and in which each output `k` with `summed[k] = Some(r)` is
    /// not stored but added to a running sum per lane: point 0's to
    /// `out0[m + 2r]`, point 1's to `out0[m + 2r + 1]`, `m` the outputs (so
    /// `out0` holds `m + 2 ×` the sums, and `out1` `m`). Bit for bit the
    /// one-point kernel's outputs added to the sums.
    ///
    /// # Errors
    /// As [`compile_two_points`](Self::compile_two_points).
    pub(crate) fn compile_map_pairs(
        &self,
        kernel: &Kernel,
        jit: &JitKernel,
        shared: &[bool],
        summed: &[Option<u32>],
    ) -> Result<TwoPoints, CodegenError> {
        let m = kernel.roots().len();
        assert_eq!((kernel.num_inputs(), m), (jit.num_inputs(), jit.num_outputs()), "compiled from `kernel`");
        assert_eq!((shared.len(), summed.len()), (kernel.num_inputs(), m), "an entry per input and output");
        let sums = summed.iter().flatten().count();
        let slot = |r: u32| u32::try_from(m + 2 * r as usize).expect("fewer than 2^32 outputs and sums");
        let slots: Vec<Option<u32>> = summed.iter().map(|r| r.map(slot)).collect();
        let map = MapPairs { shared: shared.to_vec(), summed: slots };
        let kernel = &*small_calls_written_out(kernel);
        let parts = &jit.parts;
        let Built { code, chunks, scratch_len } =
            self.build(kernel, parts, Variant::TwoPoints, None, &jit.callees, &map)?;
        let two = TwoPoints::new(code, &chunks, scratch_len, m, sums);
        if self.self_check {
            // Point 1 reads point 0's values where they are shared.
            self_check::two_points(kernel, shared, |x0, x1, out0, out1| {
                // Sums starting at -0.0 end at the outputs themselves, bit for bit.
                let mut with_sums = vec![-0.0; m + 2 * sums];
                two.eval(parts.split(x0), parts.split(x1), &mut with_sums, out1);
                out0.copy_from_slice(&with_sums[..m]);
                for (k, slot) in map.summed.iter().enumerate() {
                    if let Some(at) = slot.map(|at| at as usize) {
                        (out0[k], out1[k]) = (with_sums[at], with_sums[at + 1]);
                    }
                }
            })?;
        }
        Ok(two)
    }

    /// The machine code [`compile`](Self::compile) generates for `kernel`,
    /// as Cranelift prints it (after register allocation), one function per
    /// chunk: for reading what the kernels do, not for parsing. With
    /// `points == 2`, the two-point variant [`compile_two_points`](Self::compile_two_points) compiles.
    ///
    /// # Errors
    /// Cranelift's own failures.
    pub fn disassemble(&self, kernel: &Kernel, points: usize) -> Result<String, CodegenError> {
        let mut listing = String::new();
        let parts = InputParts::new(&[kernel.num_inputs()]);
        let variant = if points == 2 { Variant::TwoPoints } else { Variant::OnePoint };
        let kernel = small_calls_written_out(kernel);
        let callees = self.compile_callees(&kernel)?;
        self.build(&kernel, &parts, variant, Some(&mut listing), &callees, &MapPairs::default())?;
        Ok(listing)
    }

    /// Compiles the function of `kernel`, its first `m` outputs, ahead of
    /// the others, for input parts of `lengths` (as
    /// [`compile_parts`](Self::compile_parts)); [`compile_rest`](Self::compile_rest)
    /// compiles those of a kernel that extends it. The function's chunks do not depend on the
    /// other outputs, so they can compile while those are being built.
    /// A function of fewer than two chunks is not split off (then this does
    /// nothing and `compile_rest` compiles the whole kernel): its one chunk,
    /// compiled on one thread, would take longer than simplification
    /// (hanging_chain_100, 1,000 function ops: 19 -> 23 ms), and a small
    /// kernel would lose the order [`compile`](Self::compile) chooses for
    /// it (sh_20, 1,341: 5% slower calls).
    ///
    /// # Errors
    /// [`CodegenError::InputParts`]; Cranelift's own failures.
    pub fn compile_function(
        &self,
        kernel: &Kernel,
        m: usize,
        lengths: &[usize],
    ) -> Result<FunctionChunks, CodegenError> {
        let (dag, outputs) = (kernel.dag(), kernel.roots());
        if kernel.has_calls() {
            // Calls keep their results in a call area after the plan's
            // slots, which the two plans would place apart.
            return Ok(FunctionChunks { compiled: None });
        }
        let function = FunctionFirst::new(dag, outputs, m);
        if function.ops.len() < 2 * self.chunk_size || outputs.len() <= m {
            return Ok(FunctionChunks { compiled: None });
        }
        let parts = self.parts(kernel, lengths)?;
        let plan = ChunkPlan::function_first(dag, &function.outputs, &function, self.chunk_size);
        let mut session = self.session(Variant::OnePoint)?;
        session.compile_chunks(dag, &function.outputs, &plan, &parts, None, None)?;
        Ok(FunctionChunks { compiled: Some((function, session)) })
    }

    /// Compiles `kernel`, whose function [`compile_function`](Self::compile_function)
    /// compiled already: the function's chunks, then those of the other
    /// outputs (depth first), in one kernel that computes what
    /// [`compile`](Self::compile)'s does, bit for bit (the same operations,
    /// in other chunks). `kernel` must extend the kernel `function` came
    /// from (the same function outputs, computed by the same nodes);
    /// otherwise, or if its other outputs read a value of the function that
    /// the function's chunks do not store, this is `compile`.
    ///
    /// # Errors
    /// Cranelift's own failures; [`CodegenError::SelfCheck`].
    pub fn compile_rest(
        &self,
        function: FunctionChunks,
        kernel: &Kernel,
        lengths: &[usize],
    ) -> Result<JitKernel, CodegenError> {
        let (dag, outputs) = (kernel.dag(), kernel.roots());
        let Some((function, mut session)) = function.compiled.filter(|(f, _)| f.fits(dag, outputs)) else {
            return self.compile_parts(kernel, lengths);
        };
        let parts = self.parts(kernel, lengths)?;
        let plan = ChunkPlan::function_first(dag, outputs, &function, self.chunk_size);
        session.compile_chunks(dag, outputs, &plan, &parts, None, None)?;
        let Built { code, chunks, scratch_len } = session.finish(&plan, None)?;
        let m = outputs.len();
        self.checked(kernel, JitKernel::new(code, &chunks, scratch_len, parts, m, Callees::default()))
    }

    /// Compiles and finalizes the chunks of `kernel` as `variant`.
    fn build(
        &self,
        kernel: &Kernel,
        parts: &InputParts,
        variant: Variant,
        listing: Option<&mut String>,
        callees: &Callees,
        map: &MapPairs,
    ) -> Result<Built, CodegenError> {
        let (dag, outputs) = (kernel.dag(), kernel.roots());
        let plan = ChunkPlan::new(dag, outputs, self.chunk_size);
        let lanes = match variant {
            Variant::OnePoint | Variant::Looped => 1,
            Variant::TwoPoints | Variant::LoopedPairs => 2,
        };
        let calls = (!callees.is_empty())
            .then(|| CallLayout::new(dag, outputs, callees, lanes * plan.scratch_len(), lanes));
        let mut session = self.session(variant)?;
        session.map = map.clone();
        session.compile_chunks(dag, outputs, &plan, parts, listing, calls.as_ref())?;
        session.finish(&plan, calls.as_ref())
    }

    /// The module and the one function of `body`, a map's, compiled with
    /// its loop over the instances ([`crate::looped`]), `lanes` a step, if
    /// it is one chunk of [`LOOP_BODY_CHUNKS`](crate::looped::LOOP_BODY_CHUNKS)
    /// times the usual size, without calls (with its small calls written out).
    pub(crate) fn build_looped(
        &self,
        body: &Kernel,
        columns: &MapLoop,
        lanes: u8,
    ) -> Result<Option<(OwnedModule, FuncId)>, CodegenError> {
        let body = small_calls_written_out(body);
        let (dag, outputs) = (body.dag(), body.roots());
        let plan = ChunkPlan::new(dag, outputs, crate::looped::LOOP_BODY_CHUNKS * self.chunk_size);
        if body.has_calls() || plan.num_chunks() != 1 || plan.scratch_len() != 0 {
            return Ok(None);
        }
        let parts = self.parts(&body, &[body.num_inputs()])?;
        let mut session = self.session(if lanes == 2 { Variant::LoopedPairs } else { Variant::Looped })?;
        session.looped = Some(columns.clone());
        session.compile_chunks(dag, outputs, &plan, &parts, None, None)?;
        let Built { code, chunks, .. } = session.finish(&plan, None)?;
        Ok(Some((code, chunks[0])))
    }

    /// A module for `variant`'s chunks, which imports the library functions.
    fn session(&self, variant: Variant) -> Result<Session, CodegenError> {
        let isa = self.isa()?;
        let mut jit = JITBuilder::with_isa(isa.clone(), default_libcall_names());
        for f in Libm::all() {
            jit.symbol(f.symbol, f.function.address());
        }
        let mut code = OwnedModule::new(JITModule::new(jit));
        let module = code.module_mut();

        let mut libm = vec![None; Op::ALL.len()];
        for f in Libm::all() {
            let sig = libm_signature(module, f.function.arity());
            libm[f.index()] = Some(module.declare_function(f.symbol, Linkage::Import, &sig)?);
        }
        let sincos = if sincos::AVAILABLE {
            let sig = sincos::signature(module);
            Some(module.declare_function(sincos::SYMBOL, Linkage::Import, &sig)?)
        } else {
            None
        };
        let signature = match variant {
            Variant::OnePoint => one_point_signature(module),
            Variant::TwoPoints => two_points_signature(module),
            Variant::Looped | Variant::LoopedPairs => looped_signature(module),
        };
        let stop = self.stop.clone();
        Ok(Session {
            code,
            isa,
            unoptimized: None,
            regalloc: self.regalloc,
            libm,
            sincos,
            signature,
            variant,
            map: MapPairs::default(),
            looped: None,
            chunks: Vec::new(),
            stop,
        })
    }

    /// The host ISA with this compiler's settings.
    fn isa(&self) -> Result<OwnedTargetIsa, CodegenError> {
        isa(self.regalloc, true)
    }
}

/// The host ISA with `regalloc`, optimizing or not.
fn isa(regalloc: Regalloc, optimize: bool) -> Result<OwnedTargetIsa, CodegenError> {
    let mut flags = settings::builder();
    flags.set("opt_level", if optimize { "speed" } else { "none" })?;
    flags.set("regalloc_algorithm", regalloc.setting())?;
    // The verifier costs about as much as compiling; tests run with it.
    flags.set("enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    // Required by cranelift-jit.
    flags.set("use_colocated_libcalls", "false")?;
    flags.set("is_pic", "false")?;
    let isa = host()?.finish(settings::Flags::new(flags));
    isa.map_err(|e| CodegenError::from(ModuleError::Compilation(e)))
}

/// A compiled variant of a kernel.
struct Built {
    code: OwnedModule,
    /// The chunks in call order.
    chunks: Vec<FuncId>,
    /// The scratch length, in values.
    scratch_len: usize,
}

/// A module being filled with chunks, and what lowering them needs.
struct Session {
    code: OwnedModule,
    isa: OwnedTargetIsa,
    /// The ISA without Cranelift's optimizer, for plans of
    /// [`JitCompiler::OPTIMIZE_BELOW_OPS`] operations or more without
    /// calls; made when first needed.
    unoptimized: Option<OwnedTargetIsa>,
    regalloc: Regalloc,
    /// The imported library functions, by [`Op::index`].
    libm: Vec<Option<FuncId>>,
    sincos: Option<FuncId>,
    signature: Signature,
    variant: Variant,
    /// Two points of a map's body: its shared inputs and summed outputs.
    map: MapPairs,
    /// A map's body with its loop: where its inputs and results are.
    looped: Option<MapLoop>,
    /// The chunks compiled so far, in call order.
    chunks: Vec<FuncId>,
    /// Asked before each batch of chunks.
    stop: Stop,
}

impl Session {
    /// Compiles the chunks of `plan` (for the kernel `outputs` of `dag`)
    /// after those compiled already, and defines them in the module.
    ///
    /// Batches go down a two-stage pipeline: while one batch compiles
    /// (its chunks side by side on rayon's threads), this thread lowers the
    /// next one into Cranelift IR; on a thread of rayon's pool, each batch
    /// compiles before the next is lowered. Each chunk compiles alone and
    /// is defined in order, so the code does not depend on the threads.
    fn compile_chunks(
        &mut self,
        dag: &ExprDag,
        outputs: &[NodeId],
        plan: &ChunkPlan,
        parts: &InputParts,
        mut listing: Option<&mut String>,
        calls: Option<&CallLayout>,
    ) -> Result<(), CodegenError> {
        let op_uses = pairs::op_uses(dag, outputs);
        let input = LowerInput {
            dag,
            plan,
            libm: &self.libm,
            sincos: self.sincos,
            op_uses: &op_uses,
            parts,
            calls,
            map: &self.map,
            looped: self.looped.as_ref(),
        };
        let optimize = plan.num_ops() < JitCompiler::OPTIMIZE_BELOW_OPS || calls.is_some();
        if !optimize && self.unoptimized.is_none() {
            self.unoptimized = Some(isa(self.regalloc, false)?);
        }
        let isa = match &self.unoptimized {
            Some(unoptimized) if !optimize => &**unoptimized,
            _ => &*self.isa,
        };
        let module = self.code.module_mut();
        let disasm = listing.is_some();
        let mut fctx = FunctionBuilderContext::new();
        let mut cache = ValueCache::new(dag);
        let first = self.chunks.len();
        std::thread::scope(|threads| {
            let mut compiling = None;
            for start in (first..plan.num_chunks()).step_by(COMPILE_BATCH) {
                if self.stop.requested() {
                    return Err(CodegenError::Stopped);
                }
                let end = (start + COMPILE_BATCH).min(plan.num_chunks());
                let mut lowered = Vec::with_capacity(end - start);
                for c in start..end {
                    let id = module.declare_anonymous_function(&self.signature)?;
                    let mut func =
                        Function::with_name_signature(UserFuncName::default(), self.signature.clone());
                    match self.variant {
                        Variant::OnePoint | Variant::Looped => {
                            lower_chunk::<_, Scalar>(module, &mut func, &mut fctx, &input, &mut cache, c)
                        }
                        Variant::TwoPoints | Variant::LoopedPairs => {
                            lower_chunk::<_, Lanes>(module, &mut func, &mut fctx, &input, &mut cache, c)
                        }
                    }
                    lowered.push((id, func));
                    self.chunks.push(id);
                }
                // A thread of rayon's pool compiles here: blocked on another
                // thread, it could not help with the work that thread waits on.
                let batch = if rayon::current_thread_index().is_some() {
                    Batch::Compiled(start, compile_batch(isa, lowered, disasm))
                } else {
                    Batch::Compiling(threads.spawn(move || (start, compile_batch(isa, lowered, disasm))))
                };
                if let Some(batch) = compiling.replace(batch) {
                    define_batch(module, batch, listing.as_deref_mut())?;
                }
            }
            match compiling {
                Some(batch) => define_batch(module, batch, listing),
                None => Ok(()),
            }
        })
    }

    /// The module with every chunk of `plan` defined, finalized.
    fn finish(mut self, plan: &ChunkPlan, calls: Option<&CallLayout>) -> Result<Built, CodegenError> {
        debug_assert_eq!(self.chunks.len(), plan.num_chunks(), "every chunk is compiled");
        self.code.module_mut().finalize_definitions()?;
        let slots = match self.variant {
            Variant::OnePoint | Variant::Looped => plan.scratch_len(),
            Variant::TwoPoints | Variant::LoopedPairs => 2 * plan.scratch_len(),
        };
        let scratch_len = calls.map_or(slots, |calls| calls.end);
        Ok(Built { code: self.code, chunks: self.chunks, scratch_len })
    }
}

/// A kernel's function compiled by [`JitCompiler::compile_function`], for
/// [`JitCompiler::compile_rest`].
pub struct FunctionChunks {
    /// The function and the module holding its chunks; `None` where the
    /// function is not compiled apart.
    compiled: Option<(FunctionFirst, Session)>,
}

impl FunctionChunks {
    /// Whether the function was compiled apart (else `compile_rest`
    /// compiles the whole kernel).
    pub fn compiled_apart(&self) -> bool {
        self.compiled.is_some()
    }
}

impl std::fmt::Debug for FunctionChunks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let chunks = self.compiled.as_ref().map_or(0, |(_, s)| s.chunks.len());
        f.debug_struct("FunctionChunks").field("chunks", &chunks).finish()
    }
}

/// Chunks lowered ahead and then compiled side by side (Cranelift compiles
/// one function per thread): enough to keep the cores busy, few enough that
/// the IR of a huge kernel is never held whole. The code does not depend on
/// the number of threads: each chunk compiles alone and is defined in order.
const COMPILE_BATCH: usize = 16;

/// One chunk's machine code, compiled apart from the module and defined in
/// it afterwards.
struct Compiled {
    id: FuncId,
    alignment: u64,
    bytes: Vec<u8>,
    relocs: Vec<ModuleReloc>,
    /// Cranelift's listing, when asked for.
    vcode: String,
}

impl Compiled {
    /// Compiles `func`, chunk `id`, in `ctx` (reused across chunks on one thread).
    fn new(
        isa: &dyn TargetIsa,
        ctx: &mut Context,
        id: FuncId,
        func: Function,
        disasm: bool,
    ) -> Result<Compiled, CodegenError> {
        ctx.clear();
        ctx.func = func;
        ctx.set_disasm(disasm);
        ctx.compile(isa, &mut ControlPlane::default()).map_err(ModuleError::from)?;
        let code = ctx.compiled_code().expect("compiled just above");
        let alignment = u64::from(code.buffer.alignment);
        let bytes = code.code_buffer().to_vec();
        let vcode = code.vcode.clone().unwrap_or_default();
        let relocs = code
            .buffer
            .relocs()
            .iter()
            .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &ctx.func, id))
            .collect();
        Ok(Compiled { id, alignment, bytes, relocs, vcode })
    }
}

/// Compiles a batch of lowered chunks side by side, in order.
fn compile_batch(
    isa: &dyn TargetIsa,
    mut lowered: Vec<(FuncId, Function)>,
    disasm: bool,
) -> Vec<Result<Compiled, CodegenError>> {
    lowered
        .par_drain(..)
        .map_init(Context::new, |ctx, (id, func)| Compiled::new(isa, ctx, id, func, disasm))
        .collect()
}

/// A batch of chunks, by its first chunk's index.
enum Batch<'scope> {
    /// Compiled already.
    Compiled(usize, Vec<Result<Compiled, CodegenError>>),
    /// Being compiled by a thread of its own.
    Compiling(std::thread::ScopedJoinHandle<'scope, (usize, Vec<Result<Compiled, CodegenError>>)>),
}

/// Defines in `module`, in order, the chunks of `batch`, once compiled.
fn define_batch(
    module: &mut JITModule,
    batch: Batch<'_>,
    mut listing: Option<&mut String>,
) -> Result<(), CodegenError> {
    let (first, compiled) = match batch {
        Batch::Compiled(first, compiled) => (first, compiled),
        Batch::Compiling(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
    };
    for (index, chunk) in (first..).zip(compiled) {
        let chunk = chunk?;
        module.define_function_bytes(chunk.id, chunk.alignment, &chunk.bytes, &chunk.relocs)?;
        if let Some(listing) = listing.as_deref_mut() {
            listing.push_str(&format!("; chunk {index}\n{}\n", chunk.vcode));
        }
    }
    Ok(())
}

/// What a kernel's chunks compute per call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    /// One point: [`Scalar`].
    OnePoint,
    /// Two points in the lanes of `f64x2`: [`Lanes`].
    TwoPoints,
    /// A map's body over its instances, one at a time: [`Scalar`] in
    /// the loop of [`crate::looped`].
    Looped,
    /// A map's body over its instances, two at a time: [`Lanes`] in the
    /// loop of [`crate::looped`].
    LoopedPairs,
}

/// The host's ISA builder, with the CPU features it detects.
fn host() -> Result<isa::Builder, CodegenError> {
    cranelift_native::builder().map_err(|e| CodegenError::UnsupportedHost(e.to_string()))
}
