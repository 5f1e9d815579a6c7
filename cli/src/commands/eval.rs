//! `dstar eval`: a problem file's outputs (and Jacobian, Hessians) at a point.

use super::progress::Progress;
use super::{counted, json, listed, load, params, point, values, Failure, PipelineArgs, Values};
use clap::Args;
use dstar::frontend::value::show;
use dstar::Program;
use serde_json::{Map, Value};
use std::path::PathBuf;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("derivatives").args(["jacobian", "hessian"]).multiple(true)))]
pub struct EvalArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// The point, one value per input, separated by commas or blanks (default: the file's
    /// `# @point` comment). Example: --at 0.7,-1.3
    #[arg(long, value_parser = values, allow_hyphen_values = true)]
    at: Option<Values>,
    /// The parameters' values, one per parameter, separated by commas or blanks (default:
    /// the file's `# @params` comment). Example: --params 9.81,0.5
    #[arg(long, value_parser = values, allow_hyphen_values = true)]
    params: Option<Values>,
    /// Also print the Jacobian (dense, one row per output).
    #[arg(long)]
    jacobian: bool,
    /// Also print the Hessian of every output (one n×n matrix each), or
    /// with --weights the Lagrangian's alone.
    #[arg(long)]
    hessian: bool,
    /// With --hessian, print the Hessian of the Lagrangian Σ w_i f_i with
    /// these weights, one per output, instead of every output's (--each
    /// adds those). Example: --weights 1,0.5,0.5
    #[arg(long, value_parser = values, allow_hyphen_values = true, requires = "hessian")]
    weights: Option<Values>,
    /// With --weights, also print every output's own Hessian.
    #[arg(long, requires = "weights")]
    each: bool,
    /// With --jacobian or --hessian, print the Jacobian's nonzeros and the
    /// Hessians' lower-triangle nonzeros (a pattern of rows and cols, then
    /// values) instead of dense matrices: the way for thousands of inputs
    /// or outputs.
    #[arg(long, requires = "derivatives")]
    sparse: bool,
    /// Also print the Taylor coefficients 0..=K of every output along
    /// --direction, f(x + t·v) = Σ c_j t^j, and the derivatives j!·c_j.
    /// Example: --order 4 --direction 1,0
    #[arg(long, value_name = "K", requires = "direction")]
    order: Option<u64>,
    /// The direction v of --order, one value per input.
    #[arg(long, value_parser = values, allow_hyphen_values = true, requires = "order")]
    direction: Option<Values>,
    /// Use the reference interpreter instead of the JIT. (Every output's
    /// own Hessian and the Taylor coefficients are interpreted anyway past
    /// 20,000 operations: compiling them for one evaluation costs more;
    /// the same bits.)
    #[arg(long)]
    interp: bool,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Print {"inputs":[..],"outputs":[..],"values":[..],"jacobian":[[..]],..}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &EvalArgs) -> Result<(), Failure> {
    let progress = Progress::start("parsing");
    let program = load(&args.file)?;
    let x = point(args.at.as_deref(), &program, &args.file)?;
    let p = params(args.params.as_deref(), &program, &args.file)?;
    progress.stage("differentiating and compiling");
    let function = dstar::Function::new(program.clone(), args.pipeline.options());
    let at = At { function: &function, x: &x, p: &p, interp: args.interp };
    let (values, jacobian) = if args.jacobian {
        refuse_dense(args, "a dense Jacobian", program.outputs.len(), program.inputs.len())?;
        let (v, j) = at.jacobian()?;
        (v, Some(j))
    } else {
        (at.values()?, None)
    };
    let weights = weights(args, &program)?;
    let hessians = if args.hessian { Some(hessians(args, &at, weights)?) } else { None };
    let series = match (args.order, &args.direction) {
        (Some(order), Some(v)) => Some(at.series(order, v)?),
        _ => None,
    };
    drop(progress);
    let evaluation = Evaluation { values, jacobian, hessians, series };
    if args.json {
        print_json(args, &program, &evaluation);
    } else {
        print_text(args, &program, &evaluation);
    }
    Ok(())
}

/// What `eval` computed at the point: the outputs' values, and what the
/// options asked for.
struct Evaluation {
    values: Vec<f64>,
    jacobian: Option<Nonzeros>,
    hessians: Option<Hessians>,
    series: Option<Series>,
}

/// The `--weights`, one per output, if given.
fn weights<'a>(args: &'a EvalArgs, program: &Program) -> Result<Option<&'a [f64]>, Failure> {
    match &args.weights {
        Some(w) if w.len() != program.outputs.len() => Err(Failure::input(format!(
            "error: --weights has {} but the function has {}\n",
            counted(w.len(), "value"),
            listed(&program.output_names(), "output")
        ))),
        other => Ok(other.as_deref()),
    }
}

/// The Hessians `--hessian` asks for: each output's own without weights or
/// with `--each`, the Lagrangian's with weights; dense ones refused past
/// [`DENSE_LIMIT`] numbers.
fn hessians(args: &EvalArgs, at: &At, weights: Option<&[f64]>) -> Result<Hessians, Failure> {
    let program = at.function.program();
    let n = program.inputs.len();
    let each = weights.is_none() || args.each;
    let matrices = usize::from(weights.is_some()) + if each { program.outputs.len() } else { 0 };
    let what = match (each, weights.is_some()) {
        (false, _) => "a dense Lagrangian Hessian".to_string(),
        (true, false) => format!("dense Hessians of {} outputs", program.outputs.len()),
        (true, true) => format!("dense Hessians of {} outputs and the Lagrangian", program.outputs.len()),
    };
    refuse_dense(args, &what, matrices.saturating_mul(n), n)?;
    at.hessians(weights, each)
}

/// The error for `what` (`rows × cols` numbers) dense, past [`DENSE_LIMIT`]
/// numbers without `--sparse`.
fn refuse_dense(args: &EvalArgs, what: &str, rows: usize, cols: usize) -> Result<(), Failure> {
    let numbers = rows.saturating_mul(cols);
    if args.sparse || numbers <= DENSE_LIMIT {
        return Ok(());
    }
    Err(Failure::input(format!(
        "error: {what} over {cols} inputs would hold {numbers} numbers; add --sparse to print the nonzeros\n"
    )))
}

/// `eval --json`: one object of the names, values and what was asked for.
fn print_json(args: &EvalArgs, program: &Program, e: &Evaluation) {
    let mut obj = Map::new();
    obj.insert("inputs".into(), json::strings(&program.inputs));
    if !program.params.is_empty() {
        obj.insert("params".into(), json::strings(&program.params));
    }
    obj.insert("outputs".into(), json::strings(&program.output_names()));
    obj.insert("values".into(), json::numbers(&e.values));
    if let Some(j) = &e.jacobian {
        let key = if args.sparse { "jacobian_sparse" } else { "jacobian" };
        obj.insert(key.into(), j.json(args.sparse));
    }
    if let Some(h) = &e.hessians {
        let (each, lagrangian) = if args.sparse {
            ("hessian_sparse", "lagrangian_hessian_sparse")
        } else {
            ("hessian", "lagrangian_hessian")
        };
        if let Some(blocks) = &h.each {
            let matrices = blocks.iter().map(|b| b.json(args.sparse)).collect();
            obj.insert(each.into(), Value::Array(matrices));
        }
        if let Some(b) = &h.lagrangian {
            obj.insert(lagrangian.into(), b.json(args.sparse));
        }
    }
    if let Some(series) = &e.series {
        obj.insert("taylor".into(), json::matrix(&series.coefficients));
        obj.insert("directional_derivatives".into(), json::matrix(&series.derivatives()));
    }
    println!("{}", Value::Object(obj));
}

/// `eval`: each output with its value and what was asked for about it,
/// then the Lagrangian's Hessian.
fn print_text(args: &EvalArgs, program: &Program, e: &Evaluation) {
    for (i, (name, v)) in program.output_names().iter().zip(&e.values).enumerate() {
        println!("{name} = {}", show(*v));
        if let Some(j) = &e.jacobian {
            j.print_row(i, args.sparse, &program.inputs);
        }
        if let Some(blocks) = e.hessians.as_ref().and_then(|h| h.each.as_ref()) {
            blocks[i].print("  hessian", args.sparse, &program.inputs);
        }
        if let Some(series) = &e.series {
            println!("  taylor coefficients along v: {}", row_text(&series.coefficients[i]));
            println!("  derivatives along v: {}", row_text(&series.derivatives()[i]));
        }
    }
    if let Some(b) = e.hessians.as_ref().and_then(|h| h.lagrangian.as_ref()) {
        b.print("lagrangian hessian", args.sparse, &program.inputs);
    }
}

/// Above this many numbers, dense Hessians are refused (use --sparse).
const DENSE_LIMIT: usize = 10_000_000;

fn row_text(row: &[f64]) -> String {
    let items: Vec<String> = row.iter().map(|v| show(*v)).collect();
    format!("[{}]", items.join(", "))
}

type Matrix = Vec<Vec<f64>>;

/// Where to evaluate: the function, its inputs and parameters, and whether
/// by the interpreter or compiled kernels.
struct At<'a> {
    function: &'a dstar::Function,
    x: &'a [f64],
    p: &'a [f64],
    interp: bool,
}

impl At<'_> {
    /// Whether a kernel of `ops` operations, built for this one evaluation,
    /// is interpreted: with `--interp`, or past a size where compiling it
    /// costs more than a thousand evaluations would (the same bits).
    fn interprets(&self, ops: usize) -> bool {
        self.interp || ops > dstar::factor::plan::ONE_EVALUATION_JIT_OPS
    }

    /// `kernel` (of the function's inputs and parameters, then `extra`)
    /// by the interpreter.
    fn interpret(&self, kernel: &dstar::Kernel, extra: &[f64]) -> Vec<f64> {
        kernel.eval(&[self.x, self.p, extra].concat())
    }

    /// The kernel the library compiles for `request` (maps where the plan
    /// finds them: [`dstar::Function::symbolic`]), by the interpreter at
    /// the point and `extra`, the request's other blocks.
    fn interpret_request(
        &self,
        request: dstar::Request,
        extra: &[f64],
    ) -> Result<(Vec<f64>, dstar::Layout), dstar::Error> {
        let built = self.function.symbolic(request)?;
        Ok((built.kernel.eval(&[self.x, self.p, extra].concat()), built.layout))
    }

    fn values(&self) -> Result<Vec<f64>, Failure> {
        if self.interp {
            let (values, _) =
                self.interpret_request(dstar::Request::Values, &[]).map_err(Failure::internal)?;
            return Ok(values);
        }
        let kernel = self.function.compile(dstar::Request::Values).map_err(Failure::internal)?;
        let mut out = vec![0.0; kernel.out_len()];
        kernel.eval(dstar::Args::x(self.x).p(self.p), &mut out).map_err(Failure::internal)?;
        Ok(out)
    }

    /// The values and the Jacobian's nonzeros.
    fn jacobian(&self) -> Result<(Vec<f64>, Nonzeros), Failure> {
        let (out, layout) = if self.interp {
            self.interpret_request(dstar::Request::Jacobian, &[]).map_err(Failure::internal)?
        } else {
            let kernel = self.function.compile(dstar::Request::Jacobian).map_err(Failure::internal)?;
            let mut out = vec![0.0; kernel.out_len()];
            kernel.eval(dstar::Args::x(self.x).p(self.p), &mut out).map_err(Failure::internal)?;
            (out, kernel.layout().clone())
        };
        // The values, then the Jacobian's nonzeros.
        let parts = layout.split(&out);
        let pattern = layout.pattern().expect("a Jacobian's pattern");
        let jacobian = Nonzeros::of(pattern, false, parts[1].to_vec());
        Ok((parts[0].to_vec(), jacobian))
    }
}

/// The Hessians asked for: each output's own (from one kernel of every
/// output's lower triangle, so that no output's Hessian reads another's
/// derivatives), the Lagrangian's for the weights, or both.
struct Hessians {
    each: Option<Vec<Nonzeros>>,
    lagrangian: Option<Nonzeros>,
}

/// A matrix's nonzeros: their positions `(row, col)` in CSR order and
/// values. A Hessian keeps its lower triangle (`row >= col`), mirrored when
/// dense. A list, not a pattern: one is kept per output, and a pattern
/// holds a row offset per row.
struct Nonzeros {
    rows: usize,
    cols: usize,
    lower: bool,
    positions: Vec<(usize, usize)>,
    values: Vec<f64>,
}

impl Nonzeros {
    /// The nonzeros at `pattern`: a Jacobian's, or a Hessian's lower
    /// triangle where `lower`.
    fn of(pattern: &dstar::SparsityPattern, lower: bool, values: Vec<f64>) -> Nonzeros {
        let positions = pattern.positions().collect();
        Nonzeros { rows: pattern.num_rows(), cols: pattern.num_cols, lower, positions, values }
    }

    /// An `n × n` Hessian's lower-triangle nonzeros.
    fn lower(n: usize, positions: Vec<(usize, usize)>, values: Vec<f64>) -> Nonzeros {
        Nonzeros { rows: n, cols: n, lower: true, positions, values }
    }

    fn dense(&self) -> Matrix {
        let mut dense = vec![vec![0.0; self.cols]; self.rows];
        for (&(row, col), &v) in self.positions.iter().zip(&self.values) {
            dense[row][col] = v;
            if self.lower {
                dense[col][row] = v;
            }
        }
        dense
    }

    /// Dense, or `{"rows": [..], "cols": [..], "values": [..]}` of the nonzeros.
    fn json(&self, sparse: bool) -> Value {
        if sparse {
            let (rows, cols): (Vec<usize>, Vec<usize>) = self.positions.iter().copied().unzip();
            serde_json::json!({"rows": rows, "cols": cols, "values": json::numbers(&self.values)})
        } else {
            json::matrix(&self.dense())
        }
    }

    /// A Hessian, under `title`.
    fn print(&self, title: &str, sparse: bool, inputs: &[String]) {
        println!("{title}:");
        if sparse {
            for (&(row, col), v) in self.positions.iter().zip(&self.values) {
                println!("    d2/d{} d{} = {}", inputs[row], inputs[col], show(*v));
            }
        } else {
            for row in self.dense() {
                println!("    {}", row_text(&row));
            }
        }
    }

    /// Row `i` of a Jacobian: output `i`'s gradient.
    fn print_row(&self, i: usize, sparse: bool, inputs: &[String]) {
        let start = self.positions.partition_point(|&(row, _)| row < i);
        let end = self.positions.partition_point(|&(row, _)| row <= i);
        let entries = self.positions[start..end].iter().map(|&(_, col)| col).zip(&self.values[start..end]);
        if sparse {
            println!("  gradient:");
            for (col, v) in entries {
                println!("    d/d{} = {}", inputs[col], show(*v));
            }
        } else {
            let mut row = vec![0.0; self.cols];
            for (col, &v) in entries {
                row[col] = v;
            }
            println!("  gradient: {}", row_text(&row));
        }
    }
}

impl At<'_> {
    fn hessians(&self, weights: Option<&[f64]>, each: bool) -> Result<Hessians, Failure> {
        let outputs = self.function.program().outputs.len();
        let each = match each {
            // One output's Hessian is the Lagrangian's with weight 1, which
            // the library builds as maps where the plan finds them: the
            // output's own Hessian kernel is built written out, and a
            // mixture of 1,000 points took minutes and 18 GB to fail.
            true if outputs == 1 => Some(vec![self.lagrangian(&[1.0])?]),
            true => Some(self.output_hessians()?),
            false => None,
        };
        let lagrangian = weights.map(|w| self.lagrangian(w)).transpose()?;
        Ok(Hessians { each, lagrangian })
    }

    /// Each output's Hessian, on its own pattern. An output that is large
    /// written out ([`dstar::factor::plan::MAP_SMALL_KERNEL_OPS`]) gets the
    /// Hessian the library builds for it alone (maps where the plan finds
    /// them: a mixture's objective beside a constraint took seconds per
    /// 20 points written out); the others are built together, each by edge
    /// pushing from itself alone.
    fn output_hessians(&self) -> Result<Vec<Nonzeros>, Failure> {
        let kernel = self.function.program().kernel().map_err(Failure::internal)?;
        let sizes = dstar::frontend::call::inlined_ops_each(kernel.dag(), kernel.roots());
        let large = |i: usize| sizes[i] >= dstar::factor::plan::MAP_SMALL_KERNEL_OPS;
        let small: Vec<usize> = (0..sizes.len()).filter(|&i| !large(i)).collect();
        let mut each: Vec<Option<Nonzeros>> = (0..sizes.len()).map(|_| None).collect();
        if !small.is_empty() {
            let roots = small.iter().map(|&i| kernel.roots()[i]).collect();
            let kernel = kernel.with_roots(roots).map_err(Failure::internal)?;
            for (i, hessian) in small.iter().zip(self.written_out_hessians(kernel)?) {
                each[*i] = Some(hessian);
            }
        }
        for i in (0..sizes.len()).filter(|&i| large(i)) {
            let alone = self.output_alone(i);
            each[i] = Some(At { function: &alone, ..*self }.lagrangian(&[1.0])?);
        }
        Ok(each.into_iter().map(|h| h.expect("every output's Hessian")).collect())
    }

    /// The function of output `i` alone: its cone, over the same inputs
    /// and parameters.
    fn output_alone(&self, i: usize) -> dstar::Function {
        let program = self.function.program();
        let output = &program.outputs[i];
        let mut dag = dstar::ExprDag::new();
        let node = dag.import(&program.dag, &[output.node], None)[0];
        let mut alone =
            program.derived(dag, vec![dstar::frontend::Output { name: output.name.clone(), node }]);
        alone.functions = program.functions.clone();
        dstar::Function::new(alone, self.function.options().clone())
    }

    /// The Hessians of `kernel`'s outputs, each by edge pushing from itself
    /// alone, over their calls written out.
    fn written_out_hessians(&self, kernel: dstar::Kernel) -> Result<Vec<Nonzeros>, Failure> {
        let hessians = dstar::factor::output_hessians(kernel);
        let out = if self.interprets(hessians.kernel().count_ops()) {
            self.interpret(hessians.kernel(), &[])
        } else {
            // Not a request: compiled as it is, over the inputs and the parameters.
            let kernel = self.function.options().compiler().map_err(Failure::internal)?;
            let kernel = kernel
                .compile_parts(hessians.kernel(), &[self.x.len(), self.p.len()])
                .map_err(|e| Failure::internal(dstar::Error::from(e)))?;
            let mut out = vec![0.0; kernel.num_outputs()];
            kernel.eval_parts(&[self.x, self.p], &mut out).map_err(Failure::internal)?;
            out
        };
        let n = self.x.len();
        let blocks = hessians.split(&out).into_iter().enumerate();
        Ok(blocks.map(|(i, v)| Nonzeros::lower(n, hessians.positions(i).to_vec(), v.to_vec())).collect())
    }

    /// The Hessian of the Lagrangian `Σ wᵢ fᵢ`, as the library builds it.
    fn lagrangian(&self, w: &[f64]) -> Result<Nonzeros, Failure> {
        if self.interp {
            let (values, layout) =
                self.interpret_request(dstar::Request::Hessian, w).map_err(Failure::internal)?;
            let pattern = layout.pattern().expect("a Hessian's pattern");
            return Ok(Nonzeros::of(pattern, true, values));
        }
        let kernel = self.function.compile(dstar::Request::Hessian).map_err(Failure::internal)?;
        let mut values = vec![0.0; kernel.out_len()];
        kernel.eval(dstar::Args::x(self.x).p(self.p).w(w), &mut values).map_err(Failure::internal)?;
        Ok(Nonzeros::of(kernel.pattern().expect("a Hessian's pattern"), true, values))
    }
}

/// The Taylor coefficients of every output along a direction.
struct Series {
    /// Per output, coefficients `0..=k`.
    coefficients: Matrix,
}

impl Series {
    /// Per output, the derivatives `j!·c_j` along the direction.
    fn derivatives(&self) -> Matrix {
        let scaled = |row: &Vec<f64>| {
            let mut factorial = 1.0;
            (row.iter().enumerate())
                .map(|(j, c)| {
                    factorial *= j.max(1) as f64;
                    c * factorial
                })
                .collect()
        };
        self.coefficients.iter().map(scaled).collect()
    }
}

impl At<'_> {
    fn series(&self, order: u64, v: &[f64]) -> Result<Series, Failure> {
        let program = self.function.program();
        if v.len() != program.inputs.len() {
            return Err(Failure::input(format!(
                "error: --direction has {} but the function has {}\n",
                counted(v.len(), "value"),
                listed(&program.inputs, "input")
            )));
        }
        let refused = |e: dstar::Error| match e {
            dstar::Error::Derivative(_) => Failure::input(format!("error: --order {order}: {e}\n")),
            other => Failure::internal(other),
        };
        let m = program.outputs.len();
        let request = dstar::Request::Taylor(order);
        let built = self.function.symbolic(request).map_err(refused)?;
        // Cart-pole's 4,005 outputs to order 3: 4.0 s compiled, 0.8 s
        // interpreted.
        let flat = if self.interprets(built.kernel.count_ops()) {
            built.kernel.eval(&[self.x, self.p, v].concat())
        } else {
            let kernel = self.function.compile(request).map_err(refused)?;
            let mut out = vec![0.0; kernel.out_len()];
            kernel.eval(dstar::Args::x(self.x).p(self.p).v(v), &mut out).map_err(Failure::internal)?;
            out
        };
        // The kernel gives coefficient j of output i at j·m + i.
        let coefficients = (0..m).map(|i| flat.iter().skip(i).step_by(m).copied().collect()).collect();
        Ok(Series { coefficients })
    }
}
