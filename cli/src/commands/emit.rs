//! `dstar emit`: the Jacobian program as text, C, Rust, Graphviz or the JIT's machine code.

use super::{load, read_source, Failure, PipelineArgs};
use clap::{Args, ValueEnum};
use dstar::backend::SourceKernel;
use dstar::factor::{Built, Symbolic};
use dstar::frontend::Block;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    /// The problem format: the function's outputs, then `d_<out>_d_<in>` entries.
    Text,
    /// A self-contained C99 function `void NAME(...)`, its signature below
    /// (each function of the program a static function it calls, each map
    /// one loop over its instances); `--header` writes its declarations and
    /// sparsity patterns.
    C,
    /// A dependency-free Rust function `pub fn NAME(...)`, its signature
    /// below (each function of the program a private `fn` it calls, each
    /// map one loop over its instances).
    Rust,
    /// The derivative graph in Graphviz `dot` syntax.
    Dot,
    /// The JIT's machine code for this host, as Cranelift prints it, one
    /// function per chunk (for reading, not assembling).
    Asm,
}

#[derive(Args)]
#[command(after_long_help = signatures_help())]
pub struct EmitArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// What to write. Example: dstar emit examples/lyons.dstar --target c
    #[arg(long, value_enum, default_value = "text")]
    target: Target,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Emit the Hessian of the Lagrangian Σ w_i f_i instead: arguments the
    /// inputs `x`, the parameters `p` if any, then one weight per output `w`;
    /// outputs the values, the gradient wᵀJ's nonzeros and the lower
    /// triangle's nonzeros (text, C, Rust and asm).
    #[arg(long)]
    hessian: bool,
    /// With `--target asm`: 2 for the kernel that evaluates two points per
    /// call in SIMD lanes (batches), 1 for the one-point kernel.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    points: u8,
    /// The name of the emitted function (C and Rust).
    #[arg(long, default_value = "jacobian")]
    name: String,
    /// With `--target c`: also write a C/C++ header to FILE with the
    /// function's prototype, its sizes as macros and its sparsity patterns
    /// as `static const` CSR arrays (Jacobian; gradient and Hessian lower
    /// triangle with `--hessian`).
    #[arg(long, value_name = "FILE")]
    header: Option<PathBuf>,
}

pub fn run(args: &EmitArgs) -> Result<(), Failure> {
    if args.header.is_some() && !matches!(args.target, Target::C) {
        return Err(Failure::input("error: --header goes with --target c\n"));
    }
    let program = load(&args.file)?;
    if args.hessian {
        return emit_hessian(args, &program);
    }
    let text = match args.target {
        Target::Text => {
            let source = read_source(&args.file)?;
            dstar::jacobian(&source).map_err(Failure::internal)?
        }
        Target::Asm => {
            let jacobian =
                dstar::differentiate(&program, &args.pipeline.options()).map_err(Failure::internal)?.jacobian;
            let compiler = dstar::JitCompiler::new().map_err(Failure::internal)?;
            compiler.disassemble(jacobian.kernel(), usize::from(args.points)).map_err(Failure::internal)?
        }
        Target::C | Target::Rust => {
            // The Jacobian Function::compile builds: as maps where the plan finds them.
            let built = dstar::Function::new(program.clone(), args.pipeline.options())
                .symbolic(dstar::Request::Jacobian)
                .map_err(Failure::internal)?;
            let mut slots = program.output_names();
            for (row, col) in built.layout.pattern().expect("a Jacobian's pattern").positions() {
                slots.push(format!("d {}/d {}", program.outputs[row].name, program.inputs[col]));
            }
            let blocks = block_lengths(program.inputs.len(), program.params.len(), None);
            let code = emit_source(args, &built, &blocks, &["values", "jac"])?;
            format!("{}{code}", layout_comment(&program, None, slots))
        }
        Target::Dot => dstar::derivative_graph_dot(&program).map_err(Failure::internal)?,
    };
    print!("{text}");
    Ok(())
}

/// The lengths of the emitted kernel's argument blocks: the inputs `x`, the
/// parameters `p`, and with `--hessian` the weights `w`.
fn block_lengths(inputs: usize, params: usize, weights: Option<usize>) -> Vec<usize> {
    [inputs, params].into_iter().chain(weights).collect()
}

/// The end of `dstar help emit`: the C and Rust signatures of the emitted
/// function, written by the functions the emitters write them with.
fn signatures_help() -> String {
    let mut s = String::from(
        "Signatures of the C and Rust function (arrays x: the inputs, p: the parameters, \
         w: the weights of --hessian, out: what it computes, its layout in the comment above it):\n",
    );
    for (case, params, weights) in [
        ("no parameters", 0, None),
        ("with parameters", 1, None),
        ("--hessian, no parameters", 0, Some(1)),
        ("--hessian, with parameters", 1, Some(1)),
    ] {
        let blocks = block_lengths(1, params, weights);
        let signatures =
            [dstar::backend::c_signature("NAME", &blocks), dstar::backend::rust_signature("NAME", &blocks)];
        s += &format!("\n  {case}:\n");
        for signature in signatures {
            s += &format!("    {}\n", signature.expect("one to four blocks"));
        }
    }
    s
}

/// The C or Rust of `built`'s kernel (block `lengths`), and with `--header
/// FILE` its C header (its output's blocks called `names`) in FILE.
fn emit_source(args: &EmitArgs, built: &Built, lengths: &[usize], names: &[&str]) -> Result<String, Failure> {
    let kernel: SourceKernel<'_> = match &built.kernel {
        Symbolic::Whole(kernel) => kernel.into(),
        Symbolic::Maps(kernel) => (&**kernel).into(),
        Symbolic::Columns(_) => unreachable!("emit builds Jacobians and whole Lagrangians, never by columns"),
    };
    let code = match args.target {
        Target::C => dstar::backend::emit_c(kernel, &args.name, lengths),
        _ => dstar::backend::emit_rust(kernel, &args.name, lengths),
    };
    let code = code.map_err(|e| Failure::input(format!("error: {e}\n")))?;
    let Some(path) = &args.header else { return Ok(code) };
    let parts: Vec<(&str, &Block)> = names.iter().copied().zip(built.layout.blocks()).collect();
    let header = dstar::backend::emit_c_header(kernel, &args.name, lengths, &parts)
        .map_err(|e| Failure::input(format!("error: {e}\n")))?;
    std::fs::write(path, header)
        .map_err(|e| Failure::internal(format!("cannot write {}: {e}", path.display())))?;
    Ok(code)
}

/// The comment above emitted C or Rust, one format for every kernel: a line
/// per argument block naming each slot (`x`, `p` if any, the Lagrangian's
/// weights `w` if given), then `out`'s slots, wrapped to lines of about 100
/// columns. `--header` writes the same layout as declarations.
fn layout_comment(
    program: &dstar::frontend::Program,
    weights: Option<&[String]>,
    out: Vec<String>,
) -> String {
    let mut blocks = vec![("x", program.inputs.clone())];
    if !program.params.is_empty() {
        blocks.push(("p", program.params.clone()));
    }
    let mut s = String::new();
    if let Some(weights) = weights {
        let terms: Vec<String> =
            weights.iter().zip(program.output_names()).map(|(w, o)| format!("{w} * {o}")).collect();
        s += &wrapped("// L = ", &terms, " + ", "");
        blocks.push(("w", weights.to_vec()));
    }
    blocks.push(("out", out));
    for (name, slots) in blocks {
        s += &wrapped(&format!("// {name} = ["), &slots, ", ", "]");
    }
    s
}

/// `head`, the `items` joined by `separator`, `tail` and a newline, as
/// comment lines of about 100 columns (a new line starts `//     `).
fn wrapped(head: &str, items: &[String], separator: &str, tail: &str) -> String {
    let (mut s, mut line) = (String::new(), head.to_string());
    for (k, item) in items.iter().enumerate() {
        let item = if k + 1 == items.len() { item.clone() } else { format!("{item}{separator}") };
        if line.len() + item.len() > 98 && line.len() > head.len() {
            s += line.trim_end();
            s.push('\n');
            line = "//     ".to_string();
        }
        line += &item;
    }
    s + &line + tail + "\n"
}

/// `dstar emit --hessian`: the Lagrangian Hessian kernel, as maps (C and
/// Rust) where the plan finds them.
fn emit_hessian(args: &EmitArgs, program: &dstar::frontend::Program) -> Result<(), Failure> {
    let f = program.kernel().map_err(Failure::internal)?;
    let weights: Vec<String> = program.output_names().iter().map(|o| format!("w_{o}")).collect();
    let x = &program.inputs;
    let text = match args.target {
        Target::Text => {
            let hessian = dstar::factor::lagrangian_hessian(f);
            // The weights are data, as the parameters are: printed after them.
            let data: Vec<String> = program.params.iter().chain(&weights).cloned().collect();
            let names = program
                .output_names()
                .into_iter()
                .chain(hessian.gradient().map(|(col, _)| format!("dL_d_{}", x[col])))
                .chain(hessian.lower_entries().map(|e| format!("d2L_d_{}_d_{}", x[e.row], x[e.col])));
            let outputs = hessian
                .kernel()
                .roots()
                .iter()
                .zip(names)
                .map(|(&node, name)| dstar::frontend::Output { name, node })
                .collect();
            let lagrangian = dstar::frontend::Program::new(hessian.dag().clone(), x.clone(), outputs)
                .with_params(data, None);
            format!("# L = {}\n{}", lagrangian_sum(program, &weights), dstar::print_program(&lagrangian))
        }
        Target::C | Target::Rust => {
            let built = dstar::factor::build_lagrangian(&f, &dstar::factor::Searches::default());
            let [_, Block::Sparse(gradient), Block::Lower(lower)] = built.layout.blocks() else {
                unreachable!("the values, the gradient and the lower triangle")
            };
            let mut slots = program.output_names();
            slots.extend(gradient.cols.iter().map(|&col| format!("dL/d {}", x[col])));
            slots.extend(lower.positions().map(|(row, col)| format!("d2L/d {} d {}", x[row], x[col])));
            let blocks = block_lengths(x.len(), program.params.len(), Some(weights.len()));
            let code = emit_source(args, &built, &blocks, &["values", "grad", "hess"])?;
            format!("{}{code}", layout_comment(program, Some(&weights), slots))
        }
        Target::Asm => {
            let hessian = dstar::factor::lagrangian_hessian(f);
            let compiler = dstar::JitCompiler::new().map_err(Failure::internal)?;
            compiler.disassemble(&hessian.lower_kernel(), 1).map_err(Failure::internal)?
        }
        Target::Dot => return Err(Failure::input("error: --hessian emits text, C, Rust or asm, not dot\n")),
    };
    print!("{text}");
    Ok(())
}

/// `w_f * f + w_g * g`.
fn lagrangian_sum(program: &dstar::frontend::Program, weights: &[String]) -> String {
    let terms: Vec<String> =
        weights.iter().zip(program.output_names()).map(|(w, o)| format!("{w} * {o}")).collect();
    terms.join(" + ")
}
