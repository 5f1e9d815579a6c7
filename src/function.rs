//! [`Function`]: a parsed program and the options it is compiled with; it
//! compiles any [`Request`] into the one kernel type, [`Compiled`], and
//! keeps the kernels it compiled ([`Function::kernel`]) for every front
//! door that asks again.

use crate::compiled::Compiled;
use crate::kernels::KernelCache;
use crate::pipeline::{differentiate_alongside, Options};
use crate::request::Request;
use crate::Error;
use factor::higher::Budget;
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
    /// The scarcity remainder of `J·v` kernels, searched for once.
    remainder: OnceLock<factor::Remainder>,
    /// The maps the values, Jacobian, gradient and Hessian are built from,
    /// if the plan finds any ([`factor::plan::maps`]), searched for once.
    maps: factor::Maps,
    /// The kernels [`kernel`](Function::kernel) compiled, by request.
    kernels: Mutex<KernelCache<Request>>,
}

impl Function {
    /// The function of `program`, nothing compiled yet.
    pub fn new(program: Program, options: Options) -> Function {
        let kernels = Mutex::new(KernelCache::new(KernelCache::<Request>::CAPACITY));
        Function { program, options, remainder: OnceLock::new(), maps: factor::Maps::default(), kernels }
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

    /// The kept kernels (a panic while they were held leaves them whole:
    /// the cache's methods do not panic midway).
    fn kernels(&self) -> MutexGuard<'_, KernelCache<Request>> {
        self.kernels.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// [`compile`](Self::compile) with `options` in place of the function's.
    fn compile_with(&self, request: Request, options: &Options) -> Result<Compiled, Error> {
        options.check_stop()?;
        let f = self.program.kernel()?;
        let (n, q, m) = (self.program.inputs.len(), self.program.params.len(), self.program.outputs.len());
        let blocks = request.blocks(n, q, m);
        let compiler = options.compiler()?;
        if let Some(compiled) = self.mapped(&f, request, options)? {
            return Ok(compiled);
        }
        let (kernel, pattern, method) = match request {
            Request::Jacobian => return self.jacobian(options),
            Request::Values => (f, None, None),
            Request::Gradient => (factor::gradient(f), None, None),
            Request::Hessian => {
                let hessian = factor::lagrangian_hessian(f);
                (hessian.lower_kernel(), Some(hessian.lower_pattern().clone()), Some(hessian.method().name()))
            }
            Request::Jvp(k) => (self.remainder(&f).directions_kernel(k), None, None),
            Request::Vjp(k) => (factor::vjp(f, k), None, None),
            Request::Hvp(k) => (factor::hvp(f, k), None, None),
            Request::Taylor(order) => (factor::taylor_series(f, order, &Budget::default())?, None, None),
        };
        options.check_stop()?;
        let layout = request.layout(n, m, pattern);
        let ops = kernel.count_ops();
        let jit = compiler.compile_parts(&kernel, &blocks.lengths())?;
        Ok(Compiled::new(jit, request, blocks, layout, ops, method).with_source(kernel, compiler))
    }

    /// The Jacobian's kernel: the function's chunks compile while the
    /// entries are simplified ([`backend::JitCompiler::compile_function`]).
    fn jacobian(&self, options: &Options) -> Result<Compiled, Error> {
        let compiler = options.compiler()?;
        let (n, q, m) = (self.program.inputs.len(), self.program.params.len(), self.program.outputs.len());
        let blocks = Request::Jacobian.blocks(n, q, m);
        let (differentiated, function) = differentiate_alongside(&self.program, options, |jacobian| {
            compiler.compile_function(jacobian.kernel(), m, &blocks.lengths())
        })?;
        let jacobian = differentiated.jacobian;
        let jit = compiler.compile_rest(function?, jacobian.kernel(), &blocks.lengths())?;
        let layout = Request::Jacobian.layout(n, m, Some(jacobian.pattern().clone()));
        let ops = jacobian.kernel().count_ops();
        let compiled =
            Compiled::new(jit, Request::Jacobian, blocks, layout, ops, Some(jacobian.method().name()));
        Ok(compiled.with_source(jacobian.kernel().clone(), compiler))
    }

    /// The values, the Jacobian, the gradient or the Lagrangian Hessian as maps ([`factor::mapped`]),
    /// where the plan finds maps that pay ([`factor::plan::maps`]); `None`
    /// for the other requests and for kernels without.
    fn mapped(&self, f: &Kernel, request: Request, options: &Options) -> Result<Option<Compiled>, Error> {
        if !matches!(request, Request::Values | Request::Jacobian | Request::Gradient | Request::Hessian) {
            return Ok(None);
        }
        if self.maps.found(f).is_none() {
            return Ok(None);
        }
        options.check_stop()?;
        let (n, q, m) = (self.program.inputs.len(), self.program.params.len(), self.program.outputs.len());
        let blocks = request.blocks(n, q, m);
        let with_pattern = |(kernel, pattern)| (kernel, Some(pattern));
        let built = match request {
            Request::Jacobian => self.maps.jacobian(f).map(with_pattern),
            Request::Values => self.maps.values(f).map(|kernel| (kernel, None)),
            Request::Gradient => self.maps.gradient(f).map(|kernel| (kernel, None)),
            _ => self.maps.hessian(f).map(with_pattern),
        };
        let Some((kernel, pattern)) = built else { return Ok(None) };
        options.check_stop()?;
        let layout = request.layout(n, m, pattern);
        let jit = options.compiler()?.compile_mapped(&kernel, &blocks.lengths())?;
        let method = matches!(request, Request::Jacobian | Request::Hessian).then_some("maps");
        Ok(Some(Compiled::new(jit, request, blocks, layout, kernel.count_ops(), method)))
    }

    /// The scarcity remainder graph of the function, searched for on first use.
    fn remainder(&self, f: &Kernel) -> &factor::Remainder {
        self.remainder.get_or_init(|| factor::plan::directions_remainder(f))
    }
}
