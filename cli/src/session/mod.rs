//! The REPL's state and its line language: definitions, derivatives,
//! evaluation through cached JIT kernels, and `:commands`.

mod form;
mod line;

use dstar::backend::{JitCompiler, JitKernel};
use dstar::frontend::{parse_expr_in, print_nodes, Functions, Op, Program};
use dstar::JacobianKernel;
use form::{DerivativeForm, Evaluated};
use indexmap::IndexMap;
use line::Line;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::path::Path;

/// A failed line: the message and, when it is about the source, the span
/// of the line it points at (char columns, from 0).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SessionError {
    /// What went wrong.
    pub message: String,
    /// Columns `start..end` of the line that the message is about.
    pub span: Option<(usize, usize)>,
}

impl SessionError {
    fn new(message: impl Into<String>) -> SessionError {
        SessionError { message: message.into(), span: None }
    }

    fn at(message: impl Into<String>, start: usize, end: usize) -> SessionError {
        SessionError { message: message.into(), span: Some((start, end.max(start + 1))) }
    }

    /// The line, a caret under the span, and the message.
    pub fn render(&self, line: &str) -> String {
        match self.span {
            Some((start, end)) => {
                format!(
                    "  {line}\n  {}{}\nerror: {}\n",
                    " ".repeat(start),
                    "^".repeat(end - start),
                    self.message
                )
            }
            None => format!("error: {}\n", self.message),
        }
    }

    /// A parse error of text that starts at column `offset` of the line.
    fn parse(e: dstar::frontend::ParseError, offset: usize) -> SessionError {
        let start = offset + e.span.start.column as usize - 1;
        let end = if e.span.end.line == e.span.start.line {
            offset + (e.span.end.column as usize).saturating_sub(1)
        } else {
            start + 1
        };
        // The message without its own "line:column: " prefix.
        SessionError::at(e.kind.to_string(), start, end)
    }
}

/// A named function of the session.
#[derive(Clone, Debug)]
pub struct Definition {
    /// The function: inputs are its parameters, its one output its value.
    pub program: Program,
}

struct Definitions<'a>(&'a IndexMap<String, Definition>);

impl Functions for Definitions<'_> {
    fn function(&self, name: &str) -> Option<&Program> {
        self.0.get(name).map(|d| &d.program)
    }
}

/// The REPL's state: definitions, and the kernels compiled so far.
#[derive(Default)]
pub struct Session {
    defs: IndexMap<String, Definition>,
    /// Kernels by what they compute (a canonical key), reused across calls
    /// until any definition changes.
    kernels: HashMap<String, JitKernel>,
    compiler: Option<JitCompiler>,
}

/// Every command, with its help text.
pub const COMMANDS: [(&str, &str); 8] = [
    (":help", "this help"),
    (":vars", "list the definitions"),
    (":ops EXPR", "op counts of EXPR and of its D* Jacobian"),
    (":time EXPR", "compile EXPR and time its kernels"),
    (":dot EXPR FILE", "write EXPR's derivative graph as Graphviz (and FILE.svg if `dot` is installed)"),
    (":load FILE", "define each output of a problem file as a function of its inputs"),
    (":save FILE", "write the definitions as a problem file"),
    (":quit", "leave (Ctrl-D works too)"),
];

const EXAMPLES: &str = "\
Define functions and take their derivatives:
  f(x, y) = sin(x*y) + x^2     a function of x and y
  g = f(x, 2*x)                a function of the variables it uses (x)
  diff(f, x)   diff(f, x, 2)   grad(f)   jacobian([f, g])   hessian(f)
  f(1, 2)      jacobian(f)(1, 2)         evaluate (compiles a kernel once)
  df = diff(f, x)              define the derivative as a function
";

/// The `:help` text: examples, the functions of the table of operations,
/// and the commands.
fn help() -> String {
    // Functions of one argument first, then of two, each in table order.
    let mut functions: Vec<(usize, &str)> =
        Op::ALL.into_iter().filter_map(|op| Some((op.arity(), op.function_name()?))).collect();
    functions.sort_by_key(|&(arity, _)| arity);
    let functions: Vec<&str> = functions.into_iter().map(|(_, f)| f).collect();
    let sentence = format!(
        "Expressions use + - * / ^, the functions {}, ifelse(a < b, x, y), and the constants pi and e.",
        functions.join(" ")
    );
    let mut s = EXAMPLES.to_string();
    let mut line = String::new();
    for word in sentence.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            s += &line;
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    s += &line;
    s += "\nCommands:\n";
    for (c, h) in COMMANDS {
        let _ = writeln!(s, "  {c:<16} {h}");
    }
    s.trim_end().to_string()
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session::default()
    }

    /// Runs one line and returns what to print (possibly empty). An error
    /// leaves the session as it was.
    pub fn execute(&mut self, text: &str) -> Result<String, SessionError> {
        match line::parse(text)? {
            Line::Empty => Ok(String::new()),
            Line::Command { name, arg, offset } => self.command(name, arg, offset),
            Line::Define { name, params, rhs, offset } => self.define(name, params, rhs, offset),
            Line::Show { rhs, offset } => self.show(rhs, offset),
        }
    }

    fn functions(&self) -> Definitions<'_> {
        Definitions(&self.defs)
    }

    /// Parses `text` (at column `offset` of the line) as an expression over
    /// the session's functions.
    fn expression(
        &self,
        text: &str,
        params: Option<&[&str]>,
        offset: usize,
    ) -> Result<Program, SessionError> {
        parse_expr_in(text, params, &self.functions()).map_err(|e| SessionError::parse(e, offset))
    }

    fn define(
        &mut self,
        name: &str,
        params: Option<Vec<&str>>,
        rhs: &str,
        offset: usize,
    ) -> Result<String, SessionError> {
        let program = match DerivativeForm::parse(rhs, offset)? {
            Some(form) => {
                if form.call.is_some() {
                    return Err(SessionError::at(
                        "a definition cannot hold a call",
                        offset,
                        offset + rhs.len(),
                    ));
                }
                form.derive(self)?.into_scalar_function(params.as_deref())?
            }
            None => self.expression(rhs, params.as_deref(), offset)?,
        };
        let mut program = program;
        program.outputs[0].name = name.to_string();
        let shown = signature(name, &program) + " = " + &show_program(&program);
        // Kernels of other forms may have inlined the old definition.
        self.kernels.clear();
        self.defs.insert(name.to_string(), Definition { program });
        Ok(shown)
    }

    fn show(&mut self, rhs: &str, offset: usize) -> Result<String, SessionError> {
        if let Some(form) = DerivativeForm::parse(rhs, offset)? {
            let derived = form.derive(self)?;
            return match &form.call {
                None => Ok(derived.show()),
                Some((args, args_offset)) => {
                    let x = self.numbers(args, *args_offset, derived.program.inputs.len())?;
                    let key = form.key();
                    let values = self.run_kernel(&key, &derived.program, &x)?;
                    Ok(derived.format_values(&values))
                }
            };
        }
        if let Some((name, args, args_offset)) = line::call(rhs) {
            if let Some(def) = self.defs.get(name) {
                if let Ok(x) = self.numbers(args, offset + args_offset, def.program.inputs.len()) {
                    let program = def.program.clone();
                    let values = self.run_kernel(&format!("{name}()"), &program, &x)?;
                    return Ok(format_number(values[0]));
                }
            }
        }
        let program = self.expression(rhs, None, offset)?;
        Ok(show_program(&program))
    }

    /// Parses comma-separated constant expressions, `count` of them.
    fn numbers(&self, args: &str, offset: usize, count: usize) -> Result<Vec<f64>, SessionError> {
        // `f()` has no arguments, not one empty one.
        let parts = if args.trim().is_empty() { vec![] } else { line::split_top_level(args, ',') };
        let mut values = vec![];
        for (part, at) in &parts {
            let program = self.expression(part, Some(&[]), offset + at)?;
            match program.dag.as_const(program.outputs[0].node) {
                Some(v) => values.push(v),
                None => {
                    return Err(SessionError::at("expected a number", offset + at, offset + at + part.len()))
                }
            }
        }
        if values.len() != count {
            let end = offset + args.len();
            return Err(SessionError::at(
                format!("expected {count} arguments, found {}", values.len()),
                offset,
                end,
            ));
        }
        Ok(values)
    }

    /// Evaluates `program` at `x` with the kernel cached under `key`,
    /// compiling it on first use.
    fn run_kernel(&mut self, key: &str, program: &Program, x: &[f64]) -> Result<Vec<f64>, SessionError> {
        let internal = |e: &dyn std::fmt::Display| SessionError::new(e.to_string());
        if !self.kernels.contains_key(key) {
            if self.compiler.is_none() {
                self.compiler = Some(JitCompiler::new().map_err(|e| internal(&e))?);
            }
            let compiler = self.compiler.as_ref().expect("created above");
            let function = program.kernel().map_err(|e| internal(&e))?;
            let kernel = compiler.compile(&function).map_err(|e| internal(&e))?;
            self.kernels.insert(key.to_string(), kernel);
        }
        let kernel = &self.kernels[key];
        let mut out = vec![0.0; kernel.num_outputs()];
        kernel.eval(x, &mut out).map_err(|e| internal(&e))?;
        Ok(out)
    }

    /// Number of kernels compiled and cached so far.
    #[cfg(test)]
    pub fn cached_kernels(&self) -> usize {
        self.kernels.len()
    }

    fn command(&mut self, name: &str, arg: &str, offset: usize) -> Result<String, SessionError> {
        match name {
            "help" | "h" | "?" => Ok(help()),
            "vars" => Ok(self
                .defs
                .iter()
                .map(|(name, d)| signature(name, &d.program) + " = " + &show_program(&d.program))
                .collect::<Vec<_>>()
                .join("\n")),
            "ops" => {
                let program = self.function_of(arg, offset)?;
                let jacobian = dstar::factor::jacobian(program.kernel().map_err(form::internal)?);
                Ok(format!(
                    "function: {} ops; function and Jacobian: {} ops ({}), {} nonzero entries",
                    program.count_ops(),
                    jacobian.jacobian_ops(),
                    jacobian.method().name(),
                    jacobian.nnz()
                ))
            }
            "time" => self.time(arg, offset),
            "dot" => {
                let (expr, file) = arg
                    .rsplit_once(' ')
                    .ok_or_else(|| SessionError::at("usage: :dot EXPR FILE", offset, offset + arg.len()))?;
                let program = self.function_of(expr.trim(), offset)?;
                let dot = dstar::derivative_graph_dot(&program).map_err(form::internal)?;
                write_file(file, &dot)?;
                let mut reply = format!("wrote {file}");
                let svg = format!("{file}.svg");
                let rendered = std::process::Command::new("dot")
                    .args(["-Tsvg", file, "-o", &svg])
                    .status()
                    .is_ok_and(|s| s.success());
                if rendered {
                    let _ = write!(reply, " and {svg}");
                }
                Ok(reply)
            }
            "load" => self.load(arg.trim()),
            "save" => self.save(arg.trim()),
            _ => Err(SessionError::at(
                format!("unknown command ':{name}'; :help lists the commands"),
                offset.saturating_sub(name.len() + 1),
                offset,
            )),
        }
    }

    /// The function an argument names: an expression over its variables.
    fn function_of(&self, text: &str, offset: usize) -> Result<Program, SessionError> {
        if text.trim().is_empty() {
            return Err(SessionError::at("expected an expression", offset, offset + 1));
        }
        self.expression(text, None, offset)
    }

    fn time(&mut self, arg: &str, offset: usize) -> Result<String, SessionError> {
        let program = self.function_of(arg, offset)?;
        let start = std::time::Instant::now();
        let function = program.kernel().map_err(form::internal)?;
        let jacobian = dstar::factor::jacobian(function.clone());
        let symbolic = start.elapsed();
        let compiler = JitCompiler::new().map_err(form::internal)?;
        let n = program.inputs.len();
        let function = compiler.compile(&function).map_err(form::internal)?;
        let start = std::time::Instant::now();
        let kernel =
            JacobianKernel::compile(&jacobian, &compiler).map_err(|e| SessionError::new(e.to_string()))?;
        let compile = start.elapsed();
        let x = vec![0.5; n];
        let mut out = vec![0.0; function.num_outputs()];
        let f_ns = dstar::timing::median_ns(|| {
            let _ = function.eval(std::hint::black_box(&x), &mut out);
        });
        let mut out = vec![0.0; kernel.out_len()];
        let j_ns = dstar::timing::median_ns(|| {
            let _ = kernel.eval(std::hint::black_box(&x), &mut out);
        });
        Ok(format!(
            "function: {f_ns:.1} ns/call; function and Jacobian: {j_ns:.1} ns/call \
             (at x = 0.5...; symbolic {:.2} ms, compile {:.2} ms)",
            symbolic.as_secs_f64() * 1e3,
            compile.as_secs_f64() * 1e3
        ))
    }

    fn load(&mut self, path: &str) -> Result<String, SessionError> {
        let source = std::fs::read_to_string(path)
            .map_err(|e| SessionError::new(format!("cannot read {path}: {e}")))?;
        let program = dstar::frontend::parse_program(&source)
            .map_err(|e| SessionError::new(format!("{path}:{}", e.render(&source).trim_end())))?;
        let mut names = vec![];
        for output in &program.outputs {
            let mut dag = dstar::frontend::ExprDag::new();
            let root = dag.import(&program.dag, &[output.node], None)[0];
            let outputs = vec![dstar::frontend::Output { name: output.name.clone(), node: root }];
            let function = Program::new(dag, program.inputs.clone(), outputs);
            names.push(signature(&output.name, &function));
            self.kernels.clear();
            self.defs.insert(output.name.clone(), Definition { program: function });
        }
        Ok(format!("loaded {}", names.join(", ")))
    }

    fn save(&self, path: &str) -> Result<String, SessionError> {
        if self.defs.is_empty() {
            return Err(SessionError::new("nothing to save: no definitions yet"));
        }
        // One program over the union of the parameters, one output per definition.
        let mut inputs: Vec<String> = vec![];
        for d in self.defs.values() {
            for p in &d.program.inputs {
                if !inputs.contains(p) {
                    inputs.push(p.clone());
                }
            }
        }
        let mut dag = dstar::frontend::ExprDag::new();
        let mut outputs = vec![];
        for (name, d) in &self.defs {
            let args: Vec<_> = d
                .program
                .inputs
                .iter()
                .map(|p| dag.input(inputs.iter().position(|q| q == p).expect("collected above")))
                .collect();
            let node = dag.import(&d.program.dag, &[d.program.outputs[0].node], Some(&args))[0];
            outputs.push(dstar::frontend::Output { name: name.clone(), node });
        }
        let text = dstar::frontend::print_program(&Program::new(dag, inputs, outputs));
        write_file(path, &text)?;
        Ok(format!("saved {} definitions to {path}", self.defs.len()))
    }

    /// Completions for the word ending the line: commands, functions and
    /// definitions.
    pub fn complete(&self, word: &str) -> Vec<String> {
        let mut names: Vec<String> = if word.starts_with(':') {
            COMMANDS.iter().map(|(c, _)| c.split(' ').next().unwrap_or(c).to_string()).collect()
        } else {
            Op::function_names()
                .map(String::from)
                .chain(["diff", "grad", "jacobian", "hessian", "pi"].map(String::from))
                .chain(self.defs.keys().cloned())
                .collect()
        };
        names.retain(|n| n.starts_with(word));
        names.sort();
        names.dedup();
        names
    }
}

fn write_file(path: &str, text: &str) -> Result<(), SessionError> {
    std::fs::write(Path::new(path), text).map_err(|e| SessionError::new(format!("cannot write {path}: {e}")))
}

/// `f(x, y)`
fn signature(name: &str, program: &Program) -> String {
    format!("{name}({})", program.inputs.join(", "))
}

/// A one-output program as readable text: shared subexpressions as
/// `t1 = ...` lines, then the expression.
fn show_program(program: &Program) -> String {
    show_nodes(program, &program.output_nodes(), |roots| roots[0].clone())
}

/// Prints `roots` of `program`'s DAG, joined by `layout`, then the shared
/// subexpressions as `where t1 = ...` lines.
fn show_nodes(
    program: &Program,
    roots: &[dstar::frontend::NodeId],
    layout: impl Fn(&[String]) -> String,
) -> String {
    let taken: HashSet<String> = program.inputs.iter().cloned().collect();
    let printed = print_nodes(&program.dag, roots, &program.inputs, &taken);
    let mut s = layout(&printed.roots);
    for (i, (name, text)) in printed.bindings.iter().enumerate() {
        let word = if i == 0 { "where" } else { "     " };
        let _ = write!(s, "\n  {word} {name} = {text}");
    }
    s
}

/// A number as the REPL prints it: shortest round-trip digits, in
/// exponent form when very large or small.
fn format_number(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

impl Evaluated {
    fn show(&self) -> String {
        let shape = self.shape.clone();
        show_nodes(&self.program, &self.program.output_nodes(), |texts| shape.layout(texts))
    }

    fn format_values(&self, values: &[f64]) -> String {
        let texts: Vec<String> = values.iter().map(|v| format_number(*v)).collect();
        self.shape.layout(&texts)
    }
}

#[cfg(test)]
mod tests;
