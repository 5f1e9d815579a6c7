//! The `:commands` of the REPL: help, listing, op counts, timing, Graphviz,
//! files, and forgetting definitions.

use super::form::internal;
use super::statement::{self, Line};
use super::{file, show, Scope, Session, SessionError};
use crate::commands::counted;
use dstar::backend::JitCompiler;
use dstar::frontend::shown::Shown;
use dstar::frontend::{DidYouMean, Pos, Program, Span};
use std::fmt::Write;

/// Every command, with its help text.
pub const COMMANDS: [(&str, &str); 11] = [
    (":help", "this help"),
    (":vars", "list the definitions (a long one shortened)"),
    (":show NAMES", "print the named definitions whole"),
    (":ops EXPR", "op counts of EXPR and of its D* Jacobian"),
    (":time EXPR", "compile EXPR and time its kernels"),
    (":dot EXPR FILE", "write EXPR's derivative graph as Graphviz (and FILE.svg if `dot` is installed)"),
    (":load FILE", "define each output of a problem file as a function of its inputs"),
    (":save FILE", "write the definitions as a problem file (`:load` restores them exactly)"),
    (":clear [NAMES]", "forget the named definitions, or all of them"),
    (":reset", "forget every definition and compiled kernel"),
    (":quit", "leave (Ctrl-D works too)"),
];

const HELP: &str = "\
Define functions and take their derivatives:
  f(x, y) = sin(x*y) + x^2     a function of x and y, in that order
  g = f(x, 2*x)                a function of the variables it uses, in order of first appearance
  diff(f, x)   diff(f, x, 2)   diff(f, x, 2, y)   grad(f)   jacobian([f, g])   hessian(f)
  taylor(f, x, 0, 5)           the Taylor polynomial of order 5 in x around x = 0
  diff(diff(f, x), y) + 1      diff and taylor are values: part of any expression
  f(1, 2)      jacobian(f)(1, 2)         evaluate (compiles a kernel once)
  f(nan, inf)  f(-inf, 1e-300)           nan, inf and -inf are values too
  df = diff(f, x)              define the derivative as a function
  a = 1; b = a + 2             several statements on a line
A derivative's variables are its function's arguments in order, or, for an
expression such as grad(x*y + z), its variables in order of first appearance;
results name their rows and columns. In a derivative form every name must be
a definition, an argument of one, or the variable of a diff.
{EXPRESSIONS}
Commands:
";

impl Session {
    /// Runs `:name arg`; `arg` starts at `arg_start` of the line `text`.
    pub(super) fn command(
        &mut self,
        text: &str,
        name: &str,
        name_span: Span,
        arg: &str,
        arg_start: Pos,
    ) -> Result<String, SessionError> {
        match name {
            "help" | "h" | "?" => Ok(help()),
            "vars" => Ok(self
                .defs
                .iter()
                .map(|(name, d)| show::definition_summary(name, &d.program))
                .collect::<Vec<_>>()
                .join("\n")),
            "show" if arg.is_empty() => Err(SessionError::at_span("usage: :show NAMES", name_span)),
            "show" => Ok(self
                .defined(text, arg, arg_start)?
                .iter()
                .map(|name| show::definition(name, &self.defs[name].program))
                .collect::<Vec<_>>()
                .join("\n")),
            "ops" => {
                let program = self.function_of(text, arg_start, arg.len())?;
                let jacobian = dstar::factor::jacobian(program.kernel().map_err(internal)?);
                Ok(format!(
                    "function: {} ops; function and Jacobian: {} ops ({}), {} nonzero entries",
                    program.count_ops(),
                    jacobian.jacobian_ops(),
                    jacobian.method().name(),
                    jacobian.nnz()
                ))
            }
            "time" => {
                let program = self.function_of(text, arg_start, arg.len())?;
                time(&program)
            }
            "dot" => {
                let usage = || SessionError::at_span("usage: :dot EXPR FILE", name_span);
                let (expr, file) = arg.rsplit_once(char::is_whitespace).ok_or_else(usage)?;
                let program = self.function_of(text, arg_start, expr.trim_end().len())?;
                dot(&program, file)
            }
            "load" | "save" if arg.is_empty() => {
                Err(SessionError::at_span(format!("usage: :{name} FILE"), name_span))
            }
            "load" => self.load(arg),
            "save" => self.save(arg),
            "clear" => self.clear(text, arg, arg_start),
            "reset" => {
                let n = self.defs.len();
                *self = Session { interrupt: self.interrupt.clone(), budget: self.budget, ..Session::new() };
                Ok(format!("forgot {}", counted(n, "definition")))
            }
            _ => Err(SessionError::at_span(
                format!("unknown command ':{name}'; :help lists the commands"),
                name_span,
            )),
        }
    }

    /// The expression of a command's argument, `len` bytes at `start`.
    fn function_of(&self, text: &str, start: Pos, len: usize) -> Result<Program, SessionError> {
        let line = Line::lex(text, start, start.offset as usize + len);
        let Some(part) = line.all() else {
            return Err(SessionError::at_span("expected an expression", Span { start, end: start }));
        };
        let mut scope = Scope::new(self, &line, part)?;
        scope.build_forms(part)?;
        scope.expression(part, None)
    }

    fn load(&mut self, path: &str) -> Result<String, SessionError> {
        let bytes = std::fs::read(path).map_err(|e| SessionError::new(format!("cannot read {path}: {e}")))?;
        let source = dstar::frontend::decode(&bytes).map_err(|e| {
            SessionError::new(format!("{path}:{}", e.render(&String::from_utf8_lossy(&bytes))))
        })?;
        let defs = file::read(source, path)?;
        let names: Vec<String> = defs.iter().map(|(name, p)| show::signature(name, p)).collect();
        self.redefine(defs.into_iter().map(|(name, p)| (name.clone(), file::canonical(&p, &name))), []);
        Ok(format!("loaded {}", names.join(", ")))
    }

    fn save(&self, path: &str) -> Result<String, SessionError> {
        if self.defs.is_empty() {
            return Err(SessionError::new("nothing to save: no definitions yet"));
        }
        let defs: Vec<(&str, &Program)> = self.defs.iter().map(|(n, d)| (n.as_str(), &d.program)).collect();
        std::fs::write(path, file::write(&defs))
            .map_err(|e| SessionError::new(format!("cannot write {path}: {e}")))?;
        Ok(format!("saved {} definitions to {path}", self.defs.len()))
    }

    /// `:clear` forgets every definition, `:clear f g` those named.
    fn clear(&mut self, text: &str, arg: &str, arg_start: Pos) -> Result<String, SessionError> {
        let mut names = self.defined(text, arg, arg_start)?;
        if arg.is_empty() {
            names = self.defs.keys().cloned().collect();
        }
        let n = names.len();
        self.redefine([], names);
        Ok(format!("forgot {}", counted(n, "definition")))
    }

    /// The names listed in `arg` (at `arg_start` of the line `text`), each
    /// a definition; one that is not is an error pointing at it.
    fn defined(&self, text: &str, arg: &str, arg_start: Pos) -> Result<Vec<String>, SessionError> {
        let mut names = vec![];
        for word in arg.split_whitespace() {
            if !self.defs.contains_key(word) {
                let offset = arg_start.offset as usize + (word.as_ptr() as usize - arg.as_ptr() as usize);
                let span = Span {
                    start: statement::pos_at(text, offset),
                    end: statement::pos_at(text, offset + word.len()),
                };
                let hint = DidYouMean::closest(word, self.defs.keys().map(String::as_str));
                return Err(SessionError::at_span(format!("'{}' is not defined{hint}", Shown(word)), span));
            }
            names.push(word.to_string());
        }
        Ok(names)
    }
}

fn help() -> String {
    // Functions of one argument first, then of two, each in table order.
    let mut functions: Vec<(usize, &str)> = dstar::frontend::Op::ALL
        .into_iter()
        .filter_map(|op| Some((op.arity(), op.function_name()?)))
        .collect();
    functions.sort_by_key(|&(arity, _)| arity);
    let functions: Vec<&str> = functions.into_iter().map(|(_, f)| f).collect();
    let sentence = format!(
        "Expressions use + - * / ^, the functions {}, ifelse(a < b, x, y), and the constants pi \
         and e, none of which can be redefined.",
        functions.join(" ")
    );
    // The table of operations decides the list; wrap it as the rest reads.
    let mut paragraph = String::new();
    let mut width = 0;
    for word in sentence.split(' ') {
        if width > 0 && width + 1 + word.len() > 78 {
            paragraph.push('\n');
            width = 0;
        } else if width > 0 {
            paragraph.push(' ');
            width += 1;
        }
        paragraph += word;
        width += word.len();
    }
    let mut s = HELP.replace("{EXPRESSIONS}", &paragraph);
    for (c, h) in COMMANDS {
        let _ = writeln!(s, "  {c:<16} {h}");
    }
    s.trim_end().to_string()
}

fn time(program: &Program) -> Result<String, SessionError> {
    let start = std::time::Instant::now();
    let function = program.kernel().map_err(internal)?;
    let jacobian = dstar::factor::jacobian(function.clone());
    let symbolic = start.elapsed();
    let compiler = JitCompiler::new().map_err(internal)?;
    let n = program.inputs.len();
    let function = compiler.compile(&function).map_err(internal)?;
    let start = std::time::Instant::now();
    let kernel = compiler.compile(jacobian.kernel()).map_err(internal)?;
    let compile = start.elapsed();
    let x = vec![0.5; n];
    let mut out = vec![0.0; function.num_outputs()];
    let f_ns = dstar::timing::median_ns(|| {
        let _ = function.eval(std::hint::black_box(&x), &mut out);
    });
    let mut out = vec![0.0; kernel.num_outputs()];
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

fn dot(program: &Program, file: &str) -> Result<String, SessionError> {
    let dot = dstar::derivative_graph_dot(program).map_err(internal)?;
    std::fs::write(file, dot).map_err(|e| SessionError::new(format!("cannot write {file}: {e}")))?;
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
