//! CasADi's generated C for the same derivatives, the strongest peer: the
//! program is written out as CasADi SX expressions in Python, CasADi
//! differentiates it (`jacobian`, or `hessian` of the Lagrangian) and
//! generates C, which the system C compiler builds and this process loads.

use frontend::{Cmp, NodeId, Op, Program};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `int f(const double **arg, double **res, long long *iw, double *w, int mem)`.
type CasadiFn = unsafe extern "C" fn(*const *const f64, *const *mut f64, *mut i64, *mut f64, i32) -> i32;

/// The name of the generated function.
const NAME: &str = "casadi_kernel";

/// What CasADi computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derivative {
    /// `x -> (f(x), J(x))`.
    Jacobian,
    /// `(x, w) -> tril(∇²(wᵀf)(x))`, the Lagrangian Hessian's lower triangle.
    LagrangianHessian,
}

/// A CasADi function compiled and loaded, with its work arrays.
pub struct CasadiKernel {
    function: CasadiFn,
    derivative: Derivative,
    num_inputs: usize,
    num_outputs: usize,
    /// `(row, col)` of each nonzero of the derivative, in CasADi's (column-major) order.
    positions: Vec<(usize, usize)>,
    arg: Vec<*const f64>,
    res: Vec<*mut f64>,
    iw: Vec<i64>,
    w: Vec<f64>,
    instructions: usize,
    /// Values (for the Jacobian) and the derivative's nonzeros.
    values: Vec<f64>,
    derivative_values: Vec<f64>,
    // Dropped after `function`, which points into it.
    _library: libloading::Library,
}

/// Whether `python3 -c "import casadi"` works; prints why not otherwise.
pub fn available() -> bool {
    match Command::new("python3").args(["-c", "import casadi"]).output() {
        Ok(out) if out.status.success() => true,
        _ => {
            println!("note: python3 cannot import casadi (pip install casadi); skipping the CasADi peer");
            false
        }
    }
}

/// A CasADi kernel and what building it took.
pub struct Built {
    pub kernel: CasadiKernel,
    /// Seconds in python3: CasADi's symbolic work and its code generation.
    pub python_s: f64,
    /// Seconds in the C compiler.
    pub cc_s: f64,
    /// What the script printed: work sizes, sparsity, and any timings it took.
    pub meta: serde_json::Value,
}

impl Built {
    /// The whole set-up: symbolic, code generation and C compiler; without
    /// Python's start and `import casadi` where the script timed its work.
    pub fn setup_s(&self) -> f64 {
        self.python_work_s() + self.cc_s
    }

    /// CasADi's symbolic work and code generation as the script timed them,
    /// or all the time in Python where it did not.
    pub fn python_work_s(&self) -> f64 {
        match (self.meta["symbolic_s"].as_f64(), self.meta["codegen_s"].as_f64()) {
            (Some(symbolic), Some(codegen)) => symbolic + codegen,
            _ => self.python_s,
        }
    }
}

/// Runs `command` with its output into `stdout`, killing it at `deadline`;
/// `Err` says why it failed.
fn run_until(mut command: Command, stdout: &Path, deadline: Option<Instant>) -> Result<(), String> {
    let file = std::fs::File::create(stdout).map_err(|e| e.to_string())?;
    let errors = stdout.with_extension("err");
    let error_file = std::fs::File::create(&errors).map_err(|e| e.to_string())?;
    let mut child = command.stdout(file).stderr(error_file).spawn().map_err(|e| e.to_string())?;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            if status.success() {
                return Ok(());
            }
            let message = std::fs::read_to_string(&errors).unwrap_or_default();
            let tail: Vec<&str> = message.lines().rev().take(5).collect();
            return Err(format!("{status}: {}", tail.into_iter().rev().collect::<Vec<_>>().join(" | ")));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("did not finish in time".to_string());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl CasadiKernel {
    /// Generates CasADi's C for `program` in `dir` and builds it with `cc
    /// <flags>`; `Err` says why not (an operation CasADi lacks, a failed
    /// command).
    pub fn build(
        program: &Program,
        derivative: Derivative,
        dir: &Path,
        cc: &str,
        flags: &[&str],
    ) -> Result<CasadiKernel, String> {
        Ok(CasadiKernel::build_until(program, derivative, dir, cc, flags, None)?.kernel)
    }

    /// [`build`](Self::build), given up at `deadline`, with its set-up times.
    pub fn build_until(
        program: &Program,
        derivative: Derivative,
        dir: &Path,
        cc: &str,
        flags: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Built, String> {
        let script = script(program, derivative)?;
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let script_file = dir.join("casadi_kernel.py");
        std::fs::write(&script_file, script).map_err(|e| e.to_string())?;
        let shape = (program.inputs.len(), program.outputs.len());
        CasadiKernel::from_script(&script_file, &[], derivative, shape, dir, cc, flags, deadline)
    }

    /// Runs the Python `script` (`python3 script DIR args...`), which writes
    /// `casadi_kernel.c` into `DIR` and prints its work sizes and sparsity
    /// as JSON, and builds and loads the C; `shape` is `(inputs, outputs)`
    /// of the function differentiated.
    #[allow(clippy::too_many_arguments)]
    pub fn from_script(
        script: &Path,
        args: &[String],
        derivative: Derivative,
        shape: (usize, usize),
        dir: &Path,
        cc: &str,
        flags: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Built, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let mut python = Command::new("python3");
        python.arg(script).arg(dir).args(args);
        let meta_file = dir.join("meta.json");
        run_until(python, &meta_file, deadline).map_err(|e| format!("python3 {}: {e}", script.display()))?;
        let python_s = start.elapsed().as_secs_f64();
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&meta_file).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        let so_file = dir.join("casadi_kernel.so");
        let start = Instant::now();
        let mut compiler = Command::new(cc);
        compiler
            .args(flags)
            .args(["-shared", "-fPIC", "-o"])
            .arg(&so_file)
            .arg(dir.join("casadi_kernel.c"))
            .arg("-lm");
        run_until(compiler, &dir.join("cc.out"), deadline).map_err(|e| format!("{cc} on CasADi's C: {e}"))?;
        let cc_s = start.elapsed().as_secs_f64();
        let size = |key: &str| meta[key].as_u64().map(|v| v as usize).ok_or(format!("no {key}"));
        let list = |key: &str| -> Result<Vec<usize>, String> {
            let values = meta[key].as_array().ok_or(format!("no {key}"))?;
            Ok(values.iter().filter_map(|v| v.as_u64()).map(|v| v as usize).collect())
        };
        let (rows, cols) = (list("rows")?, list("cols")?);
        // SAFETY: CasADi's generated C has no initializers with side effects.
        let library = unsafe { libloading::Library::new(&so_file) }.map_err(|e| e.to_string())?;
        // SAFETY: CasADi generates `NAME` with exactly the `CasadiFn` signature
        // (casadi_real = double, casadi_int = long long int, its defaults).
        let function: CasadiFn =
            *unsafe { library.get::<CasadiFn>(NAME.as_bytes()) }.map_err(|e| e.to_string())?;
        let (num_inputs, num_outputs) = shape;
        let nnz = rows.len();
        let kernel = CasadiKernel {
            function,
            derivative,
            num_inputs,
            num_outputs,
            positions: rows.into_iter().zip(cols).collect(),
            arg: vec![std::ptr::null(); size("sz_arg")?.max(2)],
            res: vec![std::ptr::null_mut(); size("sz_res")?.max(2)],
            iw: vec![0; size("sz_iw")?.max(1)],
            w: vec![0.0; size("sz_w")?.max(1)],
            instructions: size("ops")?,
            values: vec![0.0; num_outputs],
            derivative_values: vec![0.0; nnz],
            _library: library,
        };
        Ok(Built { kernel, python_s, cc_s, meta })
    }

    /// Evaluates at `x` (and weights `w` for the Hessian; ignored for the
    /// Jacobian) into the kernel's own buffers.
    #[inline]
    pub fn eval(&mut self, x: &[f64], w: &[f64]) {
        assert_eq!(x.len(), self.num_inputs);
        self.arg[0] = x.as_ptr();
        match self.derivative {
            Derivative::Jacobian => {
                self.res[0] = self.values.as_mut_ptr();
                self.res[1] = self.derivative_values.as_mut_ptr();
            }
            Derivative::LagrangianHessian => {
                assert_eq!(w.len(), self.num_outputs);
                self.arg[1] = w.as_ptr();
                self.res[0] = self.derivative_values.as_mut_ptr();
            }
        }
        let (arg, res) = (&self.arg, &self.res);
        // SAFETY: CasADi's function reads its dense inputs (`num_inputs`
        // values, and `num_outputs` weights for the Hessian), writes the
        // values and the derivative's nonzeros (buffers of those lengths) and
        // uses work arrays of the sizes its `*_work` reported; it keeps no
        // pointer past the call.
        unsafe { (self.function)(arg.as_ptr(), res.as_ptr(), self.iw.as_mut_ptr(), self.w.as_mut_ptr(), 0) };
    }

    /// The values (empty for the Hessian) and the dense derivative of the
    /// last call; the Hessian with both triangles.
    pub fn dense(&self) -> (Vec<f64>, Vec<Vec<f64>>) {
        let rows = match self.derivative {
            Derivative::Jacobian => self.num_outputs,
            Derivative::LagrangianHessian => self.num_inputs,
        };
        let mut dense = vec![vec![0.0; self.num_inputs]; rows];
        for (&(r, c), &v) in self.positions.iter().zip(&self.derivative_values) {
            dense[r][c] = v;
            if self.derivative == Derivative::LagrangianHessian {
                dense[c][r] = v;
            }
        }
        let values = if self.derivative == Derivative::Jacobian { self.values.clone() } else { Vec::new() };
        (values, dense)
    }

    /// The values of the last call of a Jacobian (empty for a Hessian).
    pub fn values(&self) -> &[f64] {
        match self.derivative {
            Derivative::Jacobian => &self.values,
            Derivative::LagrangianHessian => &[],
        }
    }

    /// `(row, col, value)` of each nonzero of the last call's derivative
    /// (the lower triangle of a Hessian).
    pub fn nonzeros(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.positions.iter().zip(&self.derivative_values).map(|(&(r, c), &v)| (r, c, v))
    }

    /// Number of instructions of CasADi's function (operations, inputs,
    /// constants and output assignments).
    pub fn ops(&self) -> usize {
        self.instructions
    }
}

/// A Python script building `program` in CasADi SX, generating C for
/// `derivative` into the directory given as its argument, and printing the
/// work sizes and the derivative's sparsity as JSON.
fn script(program: &Program, derivative: Derivative) -> Result<String, String> {
    // Calls written out: CasADi builds one SX expression graph.
    let (dag, outputs) = dstar::frontend::call::inline(&program.dag, &program.output_nodes());
    let dag = &dag;
    let reach = dag.reachable(&outputs);
    let mut py = String::new();
    py.push_str("import casadi as ca, json, os, sys, time\n_start = time.perf_counter()\n");
    let _ = writeln!(py, "x = ca.SX.sym('x', {})", program.inputs.len());
    let operand = |id: NodeId| match dag.as_const(id) {
        Some(c) if c.is_finite() => format!("ca.SX({c:e})"),
        Some(c) => format!("ca.SX(float('{c}'))"),
        None => format!("v{}", id.index()),
    };
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let a: Vec<String> = dag.args(id).iter().map(|&a| operand(a)).collect();
        let function = |name: &str| format!("ca.{name}({})", a.join(", "));
        let expr = match dag.op(id) {
            Op::Const(_) => continue,
            Op::Input(k) => format!("x[{k}]"),
            Op::Call(_) => unreachable!("calls are written out above"),
            Op::Neg => format!("-{}", a[0]),
            Op::Add => format!("{} + {}", a[0], a[1]),
            Op::Sub => format!("{} - {}", a[0], a[1]),
            Op::Mul => format!("{} * {}", a[0], a[1]),
            Op::Div => format!("{} / {}", a[0], a[1]),
            Op::Pow => format!("{} ** {}", a[0], a[1]),
            Op::Abs => function("fabs"),
            Op::Min => function("fmin"),
            Op::Max => function("fmax"),
            Op::Select(cmp) => {
                let cond = match cmp {
                    Cmp::Eq => format!("ca.eq({}, {})", a[0], a[1]),
                    Cmp::Ne => format!("ca.ne({}, {})", a[0], a[1]),
                    cmp => format!("{} {} {}", a[0], cmp.symbol(), a[1]),
                };
                format!("ca.if_else({cond}, {}, {})", a[2], a[3])
            }
            op @ (Op::Exp2 | Op::Log2 | Op::Cbrt) => {
                return Err(format!("CasADi has no {}", op.name()));
            }
            op @ (Op::Sin
            | Op::Cos
            | Op::Tan
            | Op::Asin
            | Op::Acos
            | Op::Atan
            | Op::Sinh
            | Op::Cosh
            | Op::Tanh
            | Op::Asinh
            | Op::Acosh
            | Op::Atanh
            | Op::Exp
            | Op::Expm1
            | Op::Log
            | Op::Log1p
            | Op::Log10
            | Op::Sqrt
            | Op::Sign
            | Op::Floor
            | Op::Ceil
            | Op::Erf
            | Op::Atan2
            | Op::Hypot) => function(op.name()),
        };
        let _ = writeln!(py, "v{} = {expr}", id.index());
    }
    let outs: Vec<String> = outputs.iter().map(|&id| operand(id)).collect();
    let _ = writeln!(py, "f = ca.vertcat({})", outs.join(", "));
    let (function, out) = match derivative {
        Derivative::Jacobian => ("[x], [f, ca.jacobian(f, x)]".to_string(), 1),
        Derivative::LagrangianHessian => {
            let _ = writeln!(py, "w = ca.SX.sym('w', {})", outputs.len());
            let _ = writeln!(py, "H, _ = ca.hessian(ca.dot(w, f), x)");
            ("[x, w], [ca.tril(H)]".to_string(), 0)
        }
    };
    let _ = writeln!(py, "F = ca.Function('{NAME}', {function})");
    let _ = writeln!(py, "rows, cols = F.sparsity_out({out}).get_triplet()");
    py.push_str(
        "symbolic_s = time.perf_counter() - _start\n\
         _start = time.perf_counter()\n\
         os.chdir(sys.argv[1])\n\
         F.generate('casadi_kernel.c')\n\
         codegen_s = time.perf_counter() - _start\n\
         json.dump({'sz_arg': F.sz_arg(), 'sz_res': F.sz_res(), 'sz_iw': F.sz_iw(), 'sz_w': F.sz_w(), 'rows': rows, 'cols': cols,\n\
         \x20          'ops': F.n_instructions(), 'symbolic_s': symbolic_s, 'codegen_s': codegen_s}, sys.stdout)\n",
    );
    Ok(py)
}
