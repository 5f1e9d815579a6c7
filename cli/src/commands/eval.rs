//! `dstar eval`: a problem file's outputs (and Jacobian, Hessians) at a point.

use super::progress::Progress;
use super::{counted, json, listed, load, point, value, Failure, PipelineArgs};
use clap::Args;
use dstar::frontend::value::show;
use dstar::frontend::Program;
use serde_json::{Map, Value};
use std::path::PathBuf;

#[derive(Args)]
pub struct EvalArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// The point, one value per input, comma-separated (default: the file's
    /// `# @point` comment). Example: --at 0.7,-1.3
    #[arg(long, value_delimiter = ',', value_parser = value, allow_hyphen_values = true, num_args = 1)]
    at: Option<Vec<f64>>,
    /// Also print the Jacobian (dense, one row per output).
    #[arg(long)]
    jacobian: bool,
    /// Also print the Hessian of every output (one n×n matrix each).
    #[arg(long)]
    hessian: bool,
    /// With --hessian, also print the Hessian of the Lagrangian Σ w_i f_i
    /// with these weights, one per output. Example: --weights 1,0.5,0.5
    #[arg(long, value_delimiter = ',', value_parser = value, allow_hyphen_values = true, num_args = 1, requires = "hessian")]
    weights: Option<Vec<f64>>,
    /// With --hessian, print Hessians as the nonzeros of their lower
    /// triangle (a pattern of rows and cols, then values) instead of dense
    /// matrices: the way for thousands of inputs.
    #[arg(long, requires = "hessian")]
    sparse: bool,
    /// Also print the Taylor coefficients 0..=K of every output along
    /// --direction, f(x + t·v) = Σ c_j t^j, and the derivatives j!·c_j.
    /// Example: --order 4 --direction 1,0
    #[arg(long, value_name = "K", requires = "direction")]
    order: Option<u64>,
    /// The direction v of --order, one value per input.
    #[arg(long, value_delimiter = ',', value_parser = value, allow_hyphen_values = true, num_args = 1, requires = "order")]
    direction: Option<Vec<f64>>,
    /// Use the reference interpreter instead of the JIT.
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
    progress.stage("differentiating and compiling");
    let (values, jacobian) = if args.jacobian {
        let (v, j) = eval_jacobian(&program, &x, args.interp, &args.pipeline.options())?;
        (v, Some(j))
    } else {
        (eval_function(&program, &x, args.interp, &args.pipeline)?, None)
    };
    let weights = match &args.weights {
        Some(w) if w.len() != program.outputs.len() => {
            return Err(Failure::input(format!(
                "error: --weights has {} but the function has {}\n",
                counted(w.len(), "value"),
                listed(&program.output_names(), "output")
            )))
        }
        other => other.as_deref(),
    };
    let hessians = if args.hessian {
        let n = program.inputs.len();
        let numbers = (program.outputs.len() + 1).saturating_mul(n).saturating_mul(n);
        if !args.sparse && numbers > DENSE_LIMIT {
            return Err(Failure::input(format!(
                "error: dense Hessians of {} outputs over {n} inputs would hold {numbers} numbers; \
                 add --sparse to print their nonzeros\n",
                program.outputs.len()
            )));
        }
        Some(eval_hessians(&program, &x, weights, args.interp, &args.pipeline)?)
    } else {
        None
    };
    let series = match (args.order, &args.direction) {
        (Some(order), Some(v)) => Some(eval_series(&program, &x, order, v, args.interp, &args.pipeline)?),
        _ => None,
    };
    drop(progress);
    let names = program.output_names();
    if args.json {
        let mut obj = Map::new();
        obj.insert("inputs".into(), json::strings(&program.inputs));
        obj.insert("outputs".into(), json::strings(&names));
        obj.insert("values".into(), json::numbers(&values));
        if let Some(j) = &jacobian {
            obj.insert("jacobian".into(), json::matrix(j));
        }
        if let Some(h) = &hessians {
            if args.sparse {
                let per_output = (0..h.per_output.len()).map(|i| h.sparse(i)).collect();
                obj.insert("hessian_sparse".into(), Value::Array(per_output));
                if let Some(l) = &h.lagrangian {
                    obj.insert("lagrangian_hessian_sparse".into(), h.sparse_all(l));
                }
            } else {
                let dense = (0..h.per_output.len()).map(|i| json::matrix(&h.dense_output(i))).collect();
                obj.insert("hessian".into(), Value::Array(dense));
                if let Some(l) = &h.lagrangian {
                    obj.insert("lagrangian_hessian".into(), json::matrix(&h.dense(l)));
                }
            }
        }
        if let Some(series) = &series {
            obj.insert("taylor".into(), json::matrix(&series.coefficients));
            obj.insert("directional_derivatives".into(), json::matrix(&series.derivatives()));
        }
        println!("{}", Value::Object(obj));
        return Ok(());
    }
    for (i, (name, v)) in names.iter().zip(&values).enumerate() {
        println!("{name} = {}", show(*v));
        if let Some(j) = &jacobian {
            println!("  gradient: {}", row_text(&j[i]));
        }
        if let Some(h) = &hessians {
            print_hessian("  hessian", h, Some(i), args.sparse, &program.inputs);
        }
        if let Some(series) = &series {
            println!("  taylor coefficients along v: {}", row_text(&series.coefficients[i]));
            println!("  derivatives along v: {}", row_text(&series.derivatives()[i]));
        }
    }
    if let Some(h) = hessians.as_ref().filter(|h| h.lagrangian.is_some()) {
        print_hessian("lagrangian hessian", h, None, args.sparse, &program.inputs);
    }
    Ok(())
}

/// Above this many numbers, dense Hessians are refused (use --sparse).
const DENSE_LIMIT: usize = 10_000_000;

/// Output `output`'s Hessian, or the Lagrangian's.
fn print_hessian(title: &str, h: &Hessians, output: Option<usize>, sparse: bool, inputs: &[String]) {
    println!("{title}:");
    let positions: Vec<(usize, usize)> = h.pattern.positions().collect();
    let (entries, values): (Vec<usize>, &[f64]) = match output {
        Some(i) => (h.per_output_positions[i].clone(), &h.per_output[i]),
        None => ((0..positions.len()).collect(), h.lagrangian.as_deref().unwrap_or_default()),
    };
    if sparse {
        for (&k, v) in entries.iter().zip(values) {
            let (row, col) = positions[k];
            println!("    d2/d{} d{} = {}", inputs[row], inputs[col], show(*v));
        }
    } else {
        let dense = match output {
            Some(i) => h.dense_output(i),
            None => h.dense(values),
        };
        for row in dense {
            println!("    {}", row_text(&row));
        }
    }
}

fn row_text(row: &[f64]) -> String {
    let items: Vec<String> = row.iter().map(|v| show(*v)).collect();
    format!("[{}]", items.join(", "))
}

fn eval_function(
    program: &Program,
    x: &[f64],
    interp: bool,
    pipeline: &PipelineArgs,
) -> Result<Vec<f64>, Failure> {
    if interp {
        return Ok(dstar::frontend::eval_program(program, x));
    }
    let function = program.kernel().map_err(Failure::internal)?;
    let kernel =
        pipeline.compiler()?.compile(&function).map_err(|e| Failure::internal(dstar::Error::from(e)))?;
    let mut out = vec![0.0; program.outputs.len()];
    kernel.eval(x, &mut out).map_err(Failure::internal)?;
    Ok(out)
}

type Matrix = Vec<Vec<f64>>;

fn eval_jacobian(
    program: &Program,
    x: &[f64],
    interp: bool,
    options: &dstar::Options,
) -> Result<(Vec<f64>, Matrix), Failure> {
    if interp {
        let jacobian = dstar::differentiate(program, options).map_err(Failure::internal)?.jacobian;
        return Ok(jacobian.eval(x));
    }
    // As the library and the Python package compile it: the function's
    // chunks while the Jacobian is simplified.
    let kernel = dstar::compile_program(program, options).map_err(Failure::internal)?;
    kernel.eval_dense(x).map_err(Failure::internal)
}

/// Hessians from one Lagrangian kernel: each output's (its weight 1, the
/// others 0) and, with weights, the Lagrangian's; the nonzeros of their
/// lower triangles in one pattern.
struct Hessians {
    pattern: dstar::SparsityPattern,
    /// The positions of each output's own nonzeros in `pattern`.
    per_output_positions: Vec<Vec<usize>>,
    /// Each output's own nonzeros, at those positions.
    per_output: Vec<Vec<f64>>,
    lagrangian: Option<Vec<f64>>,
}

impl Hessians {
    /// The dense symmetric matrix of the Lagrangian's `values`.
    fn dense(&self, values: &[f64]) -> Matrix {
        dstar::Block::Lower(self.pattern.clone()).to_dense(values)
    }

    /// The dense symmetric matrix of output `i`'s own nonzeros.
    fn dense_output(&self, i: usize) -> Matrix {
        let mut values = vec![0.0; self.pattern.nnz()];
        for (&k, &v) in self.per_output_positions[i].iter().zip(&self.per_output[i]) {
            values[k] = v;
        }
        self.dense(&values)
    }

    /// `{"rows": [..], "cols": [..], "values": [..]}` of output `i`'s own
    /// nonzeros on or below the diagonal.
    fn sparse(&self, i: usize) -> Value {
        let positions: Vec<(usize, usize)> = self.pattern.positions().collect();
        let own = &self.per_output_positions[i];
        let rows: Vec<usize> = own.iter().map(|&k| positions[k].0).collect();
        let cols: Vec<usize> = own.iter().map(|&k| positions[k].1).collect();
        serde_json::json!({"rows": rows, "cols": cols, "values": json::numbers(&self.per_output[i])})
    }

    /// The same for every nonzero of the pattern.
    fn sparse_all(&self, values: &[f64]) -> Value {
        let (rows, cols): (Vec<usize>, Vec<usize>) = self.pattern.positions().unzip();
        serde_json::json!({"rows": rows, "cols": cols, "values": json::numbers(values)})
    }
}

/// The lower triangle of the Lagrangian's Hessian for the given weights.
type WeightedHessian<'a> = dyn Fn(&[f64]) -> Result<Vec<f64>, Failure> + 'a;

fn eval_hessians(
    program: &Program,
    x: &[f64],
    weights: Option<&[f64]>,
    interp: bool,
    pipeline: &PipelineArgs,
) -> Result<Hessians, Failure> {
    let hessian = dstar::factor::lagrangian_hessian(program.kernel().map_err(Failure::internal)?);
    let m = program.outputs.len();
    let evaluate: Box<WeightedHessian> = if interp {
        let lower = hessian.lower_kernel();
        Box::new(move |w: &[f64]| Ok(lower.eval(&[x, w].concat())))
    } else {
        let kernel =
            dstar::HessianKernel::from_hessian(&hessian, &pipeline.compiler()?).map_err(Failure::internal)?;
        Box::new(move |w: &[f64]| {
            let mut out = vec![0.0; kernel.nnz()];
            kernel.eval(x, w, &mut out).map_err(Failure::internal)?;
            Ok(out)
        })
    };
    // Each output's own nonzeros only: all of them would be outputs times
    // the union, gigabytes for thousands of outputs.
    let positions = hessian.output_patterns();
    let mut unit = vec![0.0; m];
    let mut per_output = Vec::with_capacity(m);
    for (i, own) in positions.iter().enumerate() {
        unit[i] = 1.0;
        let values = evaluate(&unit)?;
        per_output.push(own.iter().map(|&k| values[k]).collect());
        unit[i] = 0.0;
    }
    let lagrangian = weights.map(&evaluate).transpose()?;
    Ok(Hessians {
        pattern: hessian.lower_pattern().clone(),
        per_output_positions: positions,
        per_output,
        lagrangian,
    })
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

fn eval_series(
    program: &Program,
    x: &[f64],
    order: u64,
    v: &[f64],
    interp: bool,
    pipeline: &PipelineArgs,
) -> Result<Series, Failure> {
    let n = program.inputs.len();
    if v.len() != n {
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
    let flat = if interp {
        let budget = dstar::Budget::default();
        let function = program.kernel().map_err(Failure::internal)?;
        let series = dstar::factor::taylor_series(function, order, &budget).map_err(|e| refused(e.into()))?;
        dstar::frontend::eval(series.dag(), series.roots(), &[x, v].concat())
    } else {
        let kernel = dstar::TaylorKernel::compile(program, order, &pipeline.compiler()?).map_err(refused)?;
        let mut out = vec![0.0; kernel.out_len()];
        kernel.eval(x, v, &mut out).map_err(Failure::internal)?;
        out
    };
    // The kernel gives coefficient j of output i at j·m + i.
    let coefficients = (0..m).map(|i| flat.iter().skip(i).step_by(m).copied().collect()).collect();
    Ok(Series { coefficients })
}
