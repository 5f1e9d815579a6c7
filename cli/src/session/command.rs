//! The `:commands` of the REPL: help, listing, op counts, timing, Graphviz,
//! files, and forgetting definitions and parameters.

use super::form::internal;
use super::statement::{self, Line};
use super::{file, show, Scope, Session, SessionError};
use crate::commands::counted;
use dstar::backend::JitCompiler;
use dstar::frontend::shown::Shown;
use dstar::frontend::{DidYouMean, Pos, Program, Span};
use std::collections::HashSet;
use std::fmt::Write;

/// Every command, with its help text.
pub const COMMANDS: [(&str, &str); 11] = [
    (":help", "this help"),
    (":vars", "list the parameters, then the definitions (a long one shortened)"),
    (":show NAMES", "print the named definitions whole, and parameters with their values"),
    (":ops EXPR", "op counts of EXPR and of its D* Jacobian"),
    (":time EXPR", "compile EXPR and time its kernels"),
    (":dot EXPR FILE", "write EXPR's derivative graph as Graphviz (and FILE.svg if `dot` is installed)"),
    (":load FILE", "define each output of a problem file over its inputs; declare its parameters"),
    (":save FILE", "write the definitions and parameters as a problem file (`:load` restores them)"),
    (":clear [NAMES]", "forget the named definitions and parameters, or all of them"),
    (":reset", "forget every definition, parameter and compiled kernel"),
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
  param g = 9.81, m            parameters: names read as data, never differentiated
  h(t) = g*t^2/2   h(2)        a definition reads them; a call uses their values now
  param g = 1.62   h(2)        a new value recompiles nothing; :vars lists the values
A derivative's variables are its function's arguments in order, or, for an
expression such as grad(x*y + z), its variables in order of first appearance;
results name their rows and columns, never a parameter's. In a derivative form
every name must be a definition, an argument of one, a parameter, or the
variable of a diff.
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
            "vars" => Ok((self.params.iter().map(|(name, &value)| show::parameter(name, value)))
                .chain(self.defs.iter().map(|(name, d)| show::definition_summary(name, &d.program)))
                .collect::<Vec<_>>()
                .join("\n")),
            "show" if arg.is_empty() => Err(SessionError::at_span("usage: :show NAMES", name_span)),
            "show" => Ok(self
                .named(text, arg, arg_start)?
                .iter()
                .map(|(name, _)| match self.defs.get(name) {
                    Some(d) => show::definition(name, &d.program),
                    None => show::parameter(name, self.params[name]),
                })
                .collect::<Vec<_>>()
                .join("\n")),
            "ops" => {
                let program = self.function_of(text, arg_start, arg.len())?;
                let jacobian = dstar::factor::jacobian(program.kernel().map_err(internal)?);
                Ok(format!(
                    "function: {}; function and Jacobian: {} ({}), {}",
                    counted(program.count_ops(), "op"),
                    counted(jacobian.jacobian_ops(), "op"),
                    jacobian.method().name(),
                    counted(jacobian.nnz(), "nonzero")
                ))
            }
            "time" => {
                let program = self.function_of(text, arg_start, arg.len())?;
                // At the parameters' values, 0.5 for one without.
                let p =
                    program.params.iter().map(|name| self.params.get(name).copied().flatten().unwrap_or(0.5));
                time(&program, &p.collect::<Vec<_>>())
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
                let (defs, params) = (self.defs.len(), self.params.len());
                *self = Session { interrupt: self.interrupt.clone(), budget: self.budget, ..Session::new() };
                Ok(forgot(defs, params))
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
        let contents = file::read(source, path)?;
        // A name is a parameter or a definition, never both, nor an argument
        // and a parameter: the session is so, and must stay so.
        // Looked up in sets: a model's thousands of definitions, each over
        // all its inputs.
        let file_params: HashSet<&str> = contents.params.iter().map(|(p, _)| p.as_str()).collect();
        let is_param = |name: &str| self.params.contains_key(name) || file_params.contains(name);
        let loaded: HashSet<&str> = contents.defs.iter().map(|(n, _)| n.as_str()).collect();
        let kept = self.defs.iter().filter(|(name, _)| !loaded.contains(name.as_str()));
        let after =
            contents.defs.iter().map(|(name, p)| (name, p)).chain(kept.map(|(name, d)| (name, &d.program)));
        for (name, program) in after {
            let clash = if is_param(name) {
                format!("'{}' would be both a parameter and a definition", Shown(name))
            } else if let Some(arg) = program.inputs.iter().find(|a| is_param(a)) {
                format!("'{}' would be both a parameter and an argument of '{}'", Shown(arg), Shown(name))
            } else {
                continue;
            };
            return Err(SessionError::new(format!("cannot load {path}: {clash}")));
        }
        for (name, value) in &contents.params {
            let slot = self.params.entry(name.clone()).or_insert(None);
            if value.is_some() {
                *slot = *value;
            }
        }
        let loaded = show::loaded(&contents.defs);
        let defs: Vec<(String, Program)> = (contents.defs.into_iter())
            .map(|(name, p)| {
                let program = file::canonical(&self.with_params_read(p), &name);
                (name, program)
            })
            .collect();
        self.redefine(defs, []);
        let mut reply = format!("loaded {loaded}");
        if !contents.params.is_empty() {
            let params: Vec<String> = contents
                .params
                .iter()
                .map(|(name, _)| show::parameter_item(name, self.params[name]))
                .collect();
            let _ = write!(reply, "; param {}", params.join(", "));
        }
        Ok(reply)
    }

    fn save(&self, path: &str) -> Result<String, SessionError> {
        if self.defs.is_empty() {
            return Err(SessionError::new("nothing to save: no definitions yet"));
        }
        let defs: Vec<(&str, &Program)> = self.defs.iter().map(|(n, d)| (n.as_str(), &d.program)).collect();
        let params = self.parameters_used();
        std::fs::write(path, file::write(&defs, &params))
            .map_err(|e| SessionError::new(format!("cannot write {path}: {e}")))?;
        let mut saved = counted(defs.len(), "definition");
        if !params.is_empty() {
            saved += &format!(" and {}", counted(params.len(), "parameter"));
        }
        Ok(format!("saved {saved} to {path}"))
    }

    /// `:clear` forgets every definition and parameter, `:clear f g` those
    /// named; a parameter that a definition kept reads stays.
    fn clear(&mut self, text: &str, arg: &str, arg_start: Pos) -> Result<String, SessionError> {
        let named = self.named(text, arg, arg_start)?;
        if arg.is_empty() {
            let (defs, params) = (self.defs.len(), self.params.len());
            self.params.clear();
            self.redefine([], self.defs.keys().cloned().collect::<Vec<_>>());
            return Ok(forgot(defs, params));
        }
        let (params, defs): (Vec<_>, Vec<_>) =
            named.into_iter().partition(|(name, _)| self.params.contains_key(name));
        let defs: Vec<String> = defs.into_iter().map(|(name, _)| name).collect();
        for (param, span) in &params {
            let mut users =
                self.defs.iter().filter(|(name, d)| !defs.contains(name) && d.program.params.contains(param));
            if let Some((user, _)) = users.next() {
                let message = format!(
                    "the parameter '{0}' is read by '{1}'; forget both with ':clear {1} {0}'",
                    Shown(param),
                    Shown(user)
                );
                return Err(SessionError::at_span(message, *span));
            }
        }
        for (param, _) in &params {
            self.params.shift_remove(param);
        }
        let n = defs.len();
        self.redefine([], defs);
        Ok(forgot(n, params.len()))
    }

    /// The names listed in `arg` (at `arg_start` of the line `text`) with
    /// their spans, each a definition or a parameter; one that is neither
    /// is an error pointing at it.
    fn named(&self, text: &str, arg: &str, arg_start: Pos) -> Result<Vec<(String, Span)>, SessionError> {
        let mut names = vec![];
        for word in arg.split_whitespace() {
            let offset = arg_start.offset as usize + (word.as_ptr() as usize - arg.as_ptr() as usize);
            let span = Span {
                start: statement::pos_at(text, offset),
                end: statement::pos_at(text, offset + word.len()),
            };
            if !self.defs.contains_key(word) && !self.params.contains_key(word) {
                let candidates = self.defs.keys().chain(self.params.keys()).map(String::as_str);
                let hint = DidYouMean::closest(word, candidates);
                return Err(SessionError::at_span(format!("'{}' is not defined{hint}", Shown(word)), span));
            }
            names.push((word.to_string(), span));
        }
        Ok(names)
    }
}

/// `forgot 2 definitions`, and the parameters if any.
fn forgot(defs: usize, params: usize) -> String {
    match (defs, params) {
        (_, 0) => format!("forgot {}", counted(defs, "definition")),
        (0, _) => format!("forgot {}", counted(params, "parameter")),
        _ => format!("forgot {} and {}", counted(defs, "definition"), counted(params, "parameter")),
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

/// Times `program` and its Jacobian at x = 0.5... and the parameters `p`.
fn time(program: &Program, p: &[f64]) -> Result<String, SessionError> {
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
    let x: Vec<f64> = std::iter::repeat_n(0.5, n).chain(p.iter().copied()).collect();
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
         (at x = 0.5...{}; symbolic {:.2} ms, compile {:.2} ms)",
        if p.is_empty() { "" } else { " and the parameters' values" },
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
