//! [`Function`]: a parsed program and the options it is compiled with; it
//! compiles the kernel `factor` builds for any [`Request`]
//! ([`factor::build`]) into the one kernel type, [`Compiled`], and keeps
//! the kernels it compiled ([`Function::kernel`]) for every front door that
//! asks again.

use crate::columns::ColumnsKernel;
use crate::compiled::Compiled;
use crate::kernels::KernelCache;
use crate::pipeline::{differentiate, differentiate_alongside, Options};
use crate::Error;
use backend::JitCompiler;
use factor::{Blocks, Build, Built, Request, Searches, Symbolic};
use frontend::{Kernel, Program, Stop};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// A function to compile kernels of: a [`Program`] (inputs, parameters,
/// outputs) and the [`Options`] of its kernels. What compiling needs more
/// than once (the remainder graph `J·v` kernels of every width share, the
/// maps derivatives are built from) is kept, and so are the kernels asked
/// for by [`kernel`](Function::kernel) (the [`KernelCache::CAPACITY`] used
/// last); a `Function` may be shared by threads.
///
/// ```
/// use dstar::{Args, Function, Options, Request};
/// let f = Function::parse("in x, y\nout x*x*y", Options::default())?;
/// let hessian = f.compile(Request::Hessian)?;
/// let h = hessian.eval_dense(Args::x(&[1.0, 2.0]).w(&[1.0]))?;
/// assert_eq!(h[0], [[4.0, 2.0], [2.0, 0.0]]);
/// let jv = f.compile(Request::Jvp(2))?; // two directions per call
/// let mut out = vec![0.0; jv.out_len()];
/// jv.eval(Args::x(&[1.0, 2.0]).v(&[1.0, 0.0, /* v2 */ 0.0, 1.0]), &mut out)?;
/// assert_eq!(out, [4.0, 1.0]);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct Function {
    program: Program,
    options: Options,
    /// The program as the kernel `factor` differentiates, made on the
    /// first request and kept (it shares the program's DAG).
    f: OnceLock<Kernel>,
    /// What its kernels share (the maps, the `J·v` remainder), searched
    /// for once.
    searches: Searches,
    /// The kernels [`kernel`](Function::kernel) compiled, by request.
    kernels: Mutex<KernelCache<Request>>,
}

impl Function {
    /// The function of `program`, nothing compiled yet.
    pub fn new(program: Program, options: Options) -> Function {
        let kernels = Mutex::new(KernelCache::new(KernelCache::<Request>::CAPACITY));
        Function { program, options, f: OnceLock::new(), searches: Searches::default(), kernels }
    }

    /// Parses a problem file (or fails with its line and column).
    ///
    /// # Errors
    /// [`Error::Parse`].
    pub fn parse(source: &str, options: Options) -> Result<Function, Error> {
        Ok(Function::new(frontend::parse_program(source)?, options))
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The options its kernels are compiled with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Builds and compiles the kernel of `request`: the cheapest
    /// accumulation the plan finds ([`factor::plan`]), simplified if the
    /// options say so (Jacobians), checked against the interpreter unless
    /// they say not to.
    ///
    /// # Errors
    /// [`Error::Stopped`] if the options' stop was asked for;
    /// [`Error::Derivative`] for a Taylor order past its budget;
    /// [`Error::SelfCheck`] if the kernel disagrees with the interpreter;
    /// Cranelift's failures as [`Error::Codegen`].
    pub fn compile(&self, request: Request) -> Result<Compiled, Error> {
        self.compile_with(request, &self.options)
    }

    /// [`compile`](Self::compile), stopped by `stop` as well as by the
    /// options' stop: one caller's request to stop (a Ctrl-C in Python)
    /// stops its own compile, not the others' on the same function.
    ///
    /// # Errors
    /// As [`compile`](Self::compile).
    pub fn compile_until(&self, request: Request, stop: &Stop) -> Result<Compiled, Error> {
        self.compile_with(request, &Options { stop: self.options.stop.or(stop), ..self.options.clone() })
    }

    /// The symbolic kernel [`compile`](Self::compile) compiles for
    /// `request` ([`factor::build`]; the Jacobian differentiated as the
    /// options say, [`differentiate`]), not compiled: to interpret it, or
    /// to time the symbolic stage apart from the JIT.
    ///
    /// # Errors
    /// As [`compile`](Self::compile), but for the compiler's.
    pub fn symbolic(&self, request: Request) -> Result<Built, Error> {
        self.options.check_stop()?;
        let f = self.f()?;
        match factor::build_with(request, f, &self.searches, self.options.hessian_columns)? {
            Build::Kernel(built) => Ok(*built),
            Build::Jacobian => Ok(Built::from(differentiate(&self.program, &self.options)?.jacobian)),
        }
    }

    /// The kernel of `request`, compiled on the first call and kept: a
    /// request compiles once per function, whichever front door asks.
    ///
    /// # Errors
    /// As [`compile`](Self::compile).
    pub fn kernel(&self, request: Request) -> Result<Arc<Compiled>, Error> {
        self.kernel_until(request, &Stop::never())
    }

    /// [`kernel`](Self::kernel), its compile stopped by `stop` as well as
    /// by the options' stop ([`compile_until`](Self::compile_until)); a
    /// stopped compile keeps nothing. The compile holds no lock: threads
    /// asking for one request at once may each compile it, and the first
    /// kernel kept is the one they all get.
    ///
    /// # Errors
    /// As [`compile`](Self::compile).
    pub fn kernel_until(&self, request: Request, stop: &Stop) -> Result<Arc<Compiled>, Error> {
        if let Some(kernel) = self.cached_kernel(request) {
            return Ok(kernel);
        }
        let kernel = Arc::new(self.compile_until(request, stop)?);
        Ok(self.kernels().get_or_insert(request, kernel))
    }

    /// The kernel of `request` if [`kernel`](Self::kernel) compiled it and
    /// it is kept still; compiles nothing.
    pub fn cached_kernel(&self, request: Request) -> Option<Arc<Compiled>> {
        self.kernels().get(&request)
    }

    /// The program as a kernel ([`Program::kernel`]), made once.
    fn f(&self) -> Result<&Kernel, Error> {
        if let Some(f) = self.f.get() {
            return Ok(f);
        }
        let f = self.program.kernel()?;
        Ok(self.f.get_or_init(|| f))
    }

    /// The kept kernels (a panic while they were held leaves them whole:
    /// the cache's methods do not panic midway).
    fn kernels(&self) -> MutexGuard<'_, KernelCache<Request>> {
        self.kernels.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// [`compile`](Self::compile) with `options` in place of the function's:
    /// the kernel factor builds for `request` ([`factor::build`]), compiled.
    fn compile_with(&self, request: Request, options: &Options) -> Result<Compiled, Error> {
        options.check_stop()?;
        let f = self.f()?;
        let compiler = options.compiler()?;
        let Build::Kernel(built) = factor::build_with(request, f, &self.searches, options.hessian_columns)?
        else {
            return self.jacobian(compiler, options);
        };
        options.check_stop()?;
        let blocks = self.blocks(request);
        let Built { kernel, layout, method } = *built;
        let ops = kernel.count_ops();
        Ok(match kernel {
            Symbolic::Whole(kernel) => {
                let jit = compiler.compile_parts(&kernel, &blocks.lengths())?;
                Compiled::new(jit, request, blocks, layout, ops, method).with_source(kernel, compiler)
            }
            Symbolic::Maps(kernel) => {
                let jit = compiler.compile_mapped(&kernel, &blocks.lengths())?;
                Compiled::new(jit, request, blocks, layout, ops, method)
            }
            Symbolic::Columns(columns) => {
                let jit = ColumnsKernel::compile(&compiler, *columns, [blocks.x, blocks.p, blocks.w])?;
                Compiled::new(jit, request, blocks, layout, ops, method)
            }
        })
    }

    /// The Jacobian's kernel: the function's chunks compile while the
    /// entries are simplified ([`backend::JitCompiler::compile_function`]).
    fn jacobian(&self, compiler: JitCompiler, options: &Options) -> Result<Compiled, Error> {
        let blocks = self.blocks(Request::Jacobian);
        let m = self.program.outputs.len();
        let (differentiated, function) = differentiate_alongside(&self.program, options, |jacobian| {
            compiler.compile_function(jacobian.kernel(), m, &blocks.lengths())
        })?;
        let jacobian = differentiated.jacobian;
        let jit = compiler.compile_rest(function?, jacobian.kernel(), &blocks.lengths())?;
        let (layout, ops, method) =
            (jacobian.layout(), jacobian.kernel().count_ops(), jacobian.method().name());
        let compiled = Compiled::new(jit, Request::Jacobian, blocks, layout, ops, Some(method));
        Ok(compiled.with_source(jacobian.into_kernel(), compiler))
    }

    /// The argument blocks of `request` on this function.
    fn blocks(&self, request: Request) -> Blocks {
        let program = &self.program;
        request.blocks(program.inputs.len(), program.params.len(), program.outputs.len())
    }
}
