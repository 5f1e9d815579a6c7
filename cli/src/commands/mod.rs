//! Command-line interface: argument parsing and dispatch to subcommands.

mod bench;
mod diff;
mod elim;
mod emit;
mod eval;
mod json;
mod progress;
mod repl;
mod stats;

pub(crate) use diff::order;

use clap::{Args, Parser, Subcommand};
use std::path::Path;
use std::process::ExitCode;

/// dstar: exact Jacobians, Hessians and J·v of your functions, compiled to
/// native kernels.
#[derive(Parser)]
#[command(name = "dstar", version, about, long_about = None)]
struct Cli {
    /// What to do; without one, the REPL starts.
    #[command(subcommand)]
    command: Option<Command>,
    /// Stop with an error, naming the stage, before the process uses more
    /// memory than this (8G, 500M; also DSTAR_MEMORY_LIMIT); by default
    /// nine tenths of what this machine (or its cgroup) allows.
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::memory::parse_size)]
    memory_limit: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a problem file's outputs (and Jacobian, Hessians) at a point.
    ///
    /// Example: dstar eval examples/lyons.dstar --at 0.7,1.3 --jacobian --json
    Eval(eval::EvalArgs),
    /// Op counts of the function, its D* Jacobian and the AD baselines.
    ///
    /// Example: dstar stats tests/corpus/sh_10.dstar --json
    Stats(stats::StatsArgs),
    /// Every elimination strategy's cost (vertex, edge, face, optimal, SEU,
    /// scarcity) beside D*'s.
    ///
    /// Example: dstar elim tests/corpus/lyons.dstar --json
    Elim(elim::ElimArgs),
    /// Time the compiled function and Jacobian kernels.
    ///
    /// Example: dstar bench tests/corpus/nbody_acc_5.dstar --json
    Bench(bench::BenchArgs),
    /// Write the Jacobian program as text, C (and its header), Rust, Graphviz or
    /// the JIT's machine code.
    ///
    /// Example: dstar emit examples/lyons.dstar --target c > lyons.c
    Emit(emit::EmitArgs),
    /// The interactive REPL for derivatives (also `dstar` alone). Reads
    /// commands line by line when stdin is not a terminal.
    ///
    /// Example: echo 'f(x, y) = sin(x*y); diff(f, x)' | dstar repl
    Repl(repl::ReplArgs),
    /// Differentiate an expression (any order, mixed partials) and print
    /// the result.
    ///
    /// Example: dstar diff "sin(x*y)" x 2 y
    Diff(diff::DiffArgs),
}

/// Options of the derivative pipeline shared by the subcommands.
#[derive(Args, Clone, Copy, Default)]
pub struct PipelineArgs {
    /// Skip the common-subchain pass (e-graph rewriting) after D*.
    #[arg(long)]
    no_simplify: bool,
    /// Do not check each compiled kernel against the interpreter at a fixed
    /// point before using it (the check costs a small part of compiling;
    /// without it a compiler bug could print a wrong number).
    #[arg(long)]
    no_self_check: bool,
    /// Build a large, dense Lagrangian Hessian as one straight-line kernel,
    /// not by columns of H·V: slower to build (seconds, hundreds of MB), up
    /// to 6 times faster to evaluate while its code fits the caches.
    #[arg(long)]
    no_hessian_columns: bool,
}

impl PipelineArgs {
    /// The library options these flags ask for.
    pub fn options(&self) -> dstar::Options {
        dstar::Options {
            simplify: !self.no_simplify,
            self_check: !self.no_self_check,
            hessian_columns: !self.no_hessian_columns,
            ..Default::default()
        }
    }

    /// The compiler these flags ask for.
    fn compiler(&self) -> Result<dstar::JitCompiler, Failure> {
        self.options().compiler().map_err(Failure::internal)
    }
}

/// A failure to report: the message is printed to stderr as is.
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// A usage or input error (exit status 2).
    fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: 2 }
    }

    /// A failure past the input: code generation, I/O (exit status 1).
    fn internal(error: impl std::fmt::Display) -> Failure {
        Failure { message: format!("error: {error}\n"), code: 1 }
    }
}

/// Reads and parses `path`: an AMPL `.nl` file ([`is_nl`]), named from the
/// `.row` and `.col` files beside it when there are some, else a problem
/// file; a parse error is rendered against its source.
fn load(path: &Path) -> Result<dstar::frontend::Program, Failure> {
    let bytes = read_bytes(path)?;
    if is_nl(path, &bytes) {
        // Text or binary: the reader decodes the text itself.
        let parsed = dstar::frontend::parse_nl(&bytes, &dstar::frontend::NlNames::beside(path));
        let shown = String::from_utf8_lossy(&bytes);
        return parsed
            .map(|model| model.program)
            .map_err(|e| Failure::input(format!("error in {}: {}", path.display(), e.render(&shown))));
    }
    let source = decoded(path, &bytes)?;
    dstar::frontend::parse_program(&source)
        .map_err(|e| Failure::input(format!("error in {}: {}", path.display(), e.render(&source))))
}

/// Whether `path` is an AMPL `.nl` file, text or binary: by its
/// extension, or by its first line (`g3 1 1 0`, `b3 1 1 0`), which no
/// problem file starts with.
fn is_nl(path: &Path, bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len())];
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("nl"))
        || std::str::from_utf8(head).is_ok_and(dstar::frontend::nl::looks_like_nl)
}

/// The problem-format text of `path`: the file's own, or for an `.nl` file
/// its program printed in the problem format.
fn read_source(path: &Path) -> Result<String, Failure> {
    let bytes = read_bytes(path)?;
    if is_nl(path, &bytes) {
        return Ok(dstar::frontend::print_program(&load(path)?));
    }
    decoded(path, &bytes)
}

/// The bytes of `path`.
fn read_bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::input(format!("error: cannot read {}: {e}\n", path.display())))
}

/// `bytes`, the contents of `path`, as text; bytes that are not UTF-8 are
/// an error at their line and column, shown on the line with the bad
/// bytes replaced.
fn decoded(path: &Path, bytes: &[u8]) -> Result<String, Failure> {
    match dstar::frontend::decode(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => {
            let shown = String::from_utf8_lossy(bytes);
            Err(Failure::input(format!("error in {}: {}", path.display(), e.render(&shown))))
        }
    }
}

/// The point to evaluate at: `--at` if given, else the file's `# @point`.
fn point(at: Option<&[f64]>, program: &dstar::frontend::Program, path: &Path) -> Result<Vec<f64>, Failure> {
    let x = match (at, &program.point) {
        (Some(at), _) => at.to_vec(),
        (None, Some(p)) => p.clone(),
        (None, None) => {
            return Err(Failure::input(format!(
                "error: {} has no '# @point' comment; give the point with --at V1,V2,...\n",
                path.display()
            )))
        }
    };
    if x.len() != program.inputs.len() {
        return Err(Failure::input(format!(
            "error: the point has {} but the function has {}\n",
            counted(x.len(), "value"),
            listed(&program.inputs, "input")
        )));
    }
    Ok(x)
}

/// The parameters' values: `given` (from `--params`), else the file's
/// `# @params`; none for a program without parameters.
fn params(
    given: Option<&[f64]>,
    program: &dstar::frontend::Program,
    path: &Path,
) -> Result<Vec<f64>, Failure> {
    let p = match (given, &program.param_values) {
        (Some(p), _) => p.to_vec(),
        (None, Some(p)) => p.clone(),
        (None, None) if program.params.is_empty() => Vec::new(),
        (None, None) => {
            return Err(Failure::input(format!(
                "error: {} has {} and no '# @params' comment; give their values with --params V1,V2,...\n",
                path.display(),
                listed(&program.params, "parameter")
            )))
        }
    };
    if p.len() != program.params.len() {
        return Err(Failure::input(format!(
            "error: --params has {} but the function has {}\n",
            counted(p.len(), "value"),
            listed(&program.params, "parameter")
        )));
    }
    Ok(p)
}

/// The values of `--at`, `--params`, `--weights` or `--direction`.
#[derive(Clone, Debug)]
pub(crate) struct Values(Vec<f64>);

impl std::ops::Deref for Values {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.0
    }
}

/// Reads [`Values`] as a `# @point` comment is read
/// ([`dstar::frontend::value::parse_list`]: separated by commas, blanks or
/// both; `nan`, `inf`, `-inf` too, `1e400` an error).
fn values(text: &str) -> Result<Values, String> {
    dstar::frontend::value::parse_list(text).map(Values).map_err(|e| e.to_string())
}

/// Runs the command line and returns the exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let from_environment =
        std::env::var("DSTAR_MEMORY_LIMIT").ok().map(|text| crate::memory::parse_size(&text));
    let limit = match (cli.memory_limit, from_environment) {
        (Some(limit), _) => Some(limit),
        (None, Some(Ok(limit))) => Some(limit),
        (None, Some(Err(e))) => {
            eprintln!("error: DSTAR_MEMORY_LIMIT: {e}");
            return ExitCode::from(2);
        }
        (None, None) => crate::memory::default_limit(),
    };
    if let Some(limit) = limit {
        crate::memory::set_limit(limit);
    }
    let result = match cli.command.unwrap_or(Command::Repl(repl::ReplArgs::default())) {
        Command::Repl(args) => repl::run(&args),
        Command::Eval(args) => eval::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Elim(args) => elim::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Emit(args) => emit::run(&args),
        Command::Diff(args) => diff::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprint!("{}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// `"1 value"`, `"3 values"`.
pub(crate) fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `"2 inputs (x, y)"`: the count and the names, a long list shortened; `"0 parameters"` for none
/// ([`dstar::frontend::shown::list`]).
pub(crate) fn listed(names: &[String], noun: &str) -> String {
    if names.is_empty() {
        return counted(0, noun);
    }
    format!("{} ({})", counted(names.len(), noun), dstar::frontend::shown::list(names))
}
