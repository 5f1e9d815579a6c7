//! CasADi's generated C for the same derivatives, the strongest peer: the
//! program is written out as CasADi SX expressions in Python, CasADi
//! differentiates it (`jacobian`, or `hessian` of the Lagrangian) and
//! generates C, which the system C compiler builds and this process loads.

use frontend::{Cmp, NodeId, Op, Program};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

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
        let script = script(program, derivative)?;
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let script_file = dir.join("casadi_kernel.py");
        std::fs::write(&script_file, script).map_err(|e| e.to_string())?;
        let out = Command::new("python3").arg(&script_file).arg(dir).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("python3 failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
        let so_file = dir.join("casadi_kernel.so");
        let status = Command::new(cc)
            .args(flags)
            .args(["-shared", "-fPIC", "-o"])
            .arg(&so_file)
            .arg(dir.join("casadi_kernel.c"))
            .arg("-lm")
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("{cc} failed on CasADi's C"));
        }
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
        let num_outputs = program.outputs.len();
        Ok(CasadiKernel {
            function,
            derivative,
            num_inputs: program.inputs.len(),
            num_outputs,
            positions: rows.into_iter().zip(cols).collect(),
            arg: vec![std::ptr::null(); size("sz_arg")?.max(1)],
            res: vec![std::ptr::null_mut(); size("sz_res")?.max(2)],
            iw: vec![0; size("sz_iw")?.max(1)],
            w: vec![0.0; size("sz_w")?.max(1)],
            instructions: size("ops")?,
            values: vec![0.0; num_outputs],
            derivative_values: vec![0.0; list("rows")?.len()],
            _library: library,
        })
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
    py.push_str("import casadi as ca, json, os, sys\n");
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
        "os.chdir(sys.argv[1])\n\
         F.generate('casadi_kernel.c')\n\
         json.dump({'sz_arg': F.sz_arg(), 'sz_res': F.sz_res(), 'sz_iw': F.sz_iw(), 'sz_w': F.sz_w(), 'rows': rows, 'cols': cols,\n\
         \x20          'ops': F.n_instructions()}, sys.stdout)\n",
    );
    Ok(py)
}
