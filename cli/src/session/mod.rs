//! The REPL's state and its line language: parameters, definitions,
//! derivatives, evaluation through cached JIT kernels, and `:commands`.
//!
//! A line is read into typed statements ([`statement`]) with the frontend's
//! lexer; expressions are parsed by the frontend over their spans, with the
//! derivative forms inside them built first ([`scope`]).

mod cache;
mod command;
mod file;
mod form;
mod parameters;
mod scope;
mod show;
mod statement;

use cache::KernelKey;
use command::COMMANDS;
use dstar::frontend::shown::Shown;
use dstar::frontend::{ParseError, ParseErrorKind, Program, Span, Stop};
use dstar::KernelCache;
use indexmap::IndexMap;
use rustc_hash::FxHashMap;
pub use scope::not_a_variable;
use scope::Scope;
pub use statement::FORMS;
use statement::{Args, Form, Line, Name, Part, Statement};
use std::fmt::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A failed statement: the message and, when it is about the line, the
/// char columns `start..end` (from 0) it points at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SessionError {
    /// What went wrong.
    pub message: String,
    /// Columns `start..end` of the line that the message is about.
    pub span: Option<(usize, usize)>,
    /// What the statements before the failed one on the same line printed.
    pub printed: String,
}

impl SessionError {
    /// An error about no particular part of the line.
    pub fn new(message: impl Into<String>) -> SessionError {
        SessionError { message: message.into(), span: None, printed: String::new() }
    }

    /// An error about the text at `span` of the line.
    fn at_span(message: impl Into<String>, span: Span) -> SessionError {
        let start = span.start.column as usize - 1;
        let end = if span.end.line == span.start.line { span.end.column as usize - 1 } else { start + 1 };
        SessionError {
            message: message.into(),
            span: Some((start, end.max(start + 1))),
            printed: String::new(),
        }
    }

    /// A parse error of (a part of) the line, in the frontend's words
    /// without its "line:column: " prefix.
    fn from_parse(e: ParseError) -> SessionError {
        SessionError::at_span(e.kind.to_string(), e.span)
    }

    /// A computation stopped by Ctrl-C.
    pub fn interrupted() -> SessionError {
        SessionError::new("interrupted")
    }

    /// What the earlier statements printed, the line with a caret under the
    /// span, and the message.
    pub fn render(&self, line: &str) -> String {
        self.render_at(line, None)
    }

    /// As [`SessionError::render`] for line `number` (from 1) of a script:
    /// the message says where, `3:9: ` (the span's first column) or `3: `,
    /// as an error in a problem file does.
    pub fn render_in_script(&self, line: &str, number: usize) -> String {
        self.render_at(line, Some(number))
    }

    fn render_at(&self, line: &str, number: Option<usize>) -> String {
        let mut s = self.printed.clone();
        if let Some((start, end)) = self.span {
            let (shown, carets) = dstar::frontend::shown::excerpt(line, start, end);
            let _ = write!(s, "  {shown}\n  {carets}\n");
        }
        let place = match (number, self.span) {
            (None, _) => String::new(),
            (Some(number), Some((start, _))) => format!("{number}:{}: ", start + 1),
            (Some(number), None) => format!("{number}: "),
        };
        let _ = writeln!(s, "error: {place}{}", self.message);
        s
    }
}

/// A named function of the session.
#[derive(Clone, Debug)]
pub struct Definition {
    /// The function: inputs are its arguments, parameters the session's
    /// parameters it reads (in their order of declaration), its one output
    /// its value.
    pub program: Program,
    /// The session generation that defined it: kernels built from an
    /// earlier definition of the same name are stale.
    generation: u64,
}

/// The REPL's state: parameters, definitions, and the kernels compiled so
/// far. Cloning is cheap (definitions and kernels are shared), which lets a
/// computation run on a copy that is kept only if it completes.
#[derive(Clone)]
pub struct Session {
    /// The parameters in order of declaration, each with its value if it
    /// has one: given to every kernel at each call, so a new value compiles
    /// nothing. No parameter is named as a definition or an argument of one.
    params: IndexMap<String, Option<f64>>,
    defs: IndexMap<String, Arc<Definition>>,
    /// Every argument name of the definitions, with how many times they
    /// take it: what a statement asks of the arguments, without a pass over
    /// every definition's (a loaded model's thousands of outputs, each over
    /// all its inputs, made every line take a second). Shared by copies.
    arguments: Arc<FxHashMap<String, usize>>,
    /// Counts changes of the definitions and of the names that are
    /// parameters (not of their values).
    generation: u64,
    kernels: KernelCache<KernelKey>,
    /// Bounds on higher derivatives.
    budget: dstar::Budget,
    /// Set (by Ctrl-C) to stop the computation under way.
    interrupt: Stop,
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session {
            params: IndexMap::new(),
            defs: IndexMap::new(),
            arguments: Arc::default(),
            generation: 0,
            kernels: KernelCache::new(KernelCache::<KernelKey>::CAPACITY),
            budget: dstar::Budget::default(),
            interrupt: Stop::never(),
        }
    }

    /// The flag that stops the computation under way when set: it is read
    /// between the steps of a long computation.
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Stop::flag(flag);
    }

    /// Runs one line and returns what to print (possibly empty). Statements
    /// separated by `;` run in order; the first error stops the line, and a
    /// failed statement leaves the session as it was.
    pub fn execute(&mut self, text: &str) -> Result<String, SessionError> {
        let (line, statements) = statement::parse(text)?;
        let mut printed: Vec<String> = vec![];
        for statement in statements {
            match self.run(&line, statement) {
                Ok(reply) if reply.is_empty() => {}
                Ok(reply) => printed.push(reply),
                Err(mut e) => {
                    e.printed = printed.iter().map(|p| format!("{p}\n")).collect();
                    return Err(e);
                }
            }
        }
        Ok(printed.join("\n"))
    }

    fn run(&mut self, line: &Line<'_>, statement: Statement<'_>) -> Result<String, SessionError> {
        match statement {
            Statement::Command { name, name_span, arg, arg_start } => {
                self.command(line.text, name, name_span, arg, arg_start)
            }
            Statement::Param(items) => self.declare(line, &items),
            Statement::Define { name, args, body } => self.define(line, name, args, body),
            Statement::Call { name, args, whole } => self.call(line, name, &args, whole),
            Statement::Form { form, point } => self.form(line, &form, point.as_ref()),
            Statement::Show(part) => {
                let mut scope = Scope::new(self, line, part)?;
                let program = scope.expression_with_forms(part, None)?;
                Ok(self.shown(program))
            }
        }
    }

    fn define(
        &mut self,
        line: &Line<'_>,
        name: Name<'_>,
        args: Option<Vec<Name<'_>>>,
        body: Part,
    ) -> Result<String, SessionError> {
        check_definable(name, "be defined")?;
        if self.params.contains_key(name.text) {
            let message = match (&args, self.constant(line, body)) {
                (None, Ok(Some(_))) => format!(
                    "'{0}' is a parameter; to change its value write 'param {0} = {1}'",
                    Shown(name.text),
                    line.text_of(body)
                ),
                _ => format!("'{}' is a parameter and cannot be defined", Shown(name.text)),
            };
            return Err(SessionError::at_span(message, name.span));
        }
        let args: Option<Vec<&str>> = match args {
            None => None,
            Some(args) => {
                for (i, a) in args.iter().enumerate() {
                    check_definable(*a, "be an argument")?;
                    if self.params.contains_key(a.text) {
                        let message = format!("'{}' is a parameter and cannot be an argument", Shown(a.text));
                        return Err(SessionError::at_span(message, a.span));
                    }
                    if args[..i].iter().any(|b| b.text == a.text) {
                        return Err(SessionError::at_span(
                            format!("'{}' is already an argument", Shown(a.text)),
                            a.span,
                        ));
                    }
                }
                Some(args.iter().map(|a| a.text).collect())
            }
        };
        let mut scope = Scope::new(self, line, body)?;
        let program = scope.expression_with_forms(body, args.as_deref())?;
        let program = file::canonical(&self.with_params_read(program), name.text);
        let shown = show::definition_summary(name.text, &program);
        self.redefine([(name.text.to_string(), program)], []);
        Ok(shown)
    }

    /// Adds (or replaces) the definitions `new` and removes `gone`, as one
    /// change: kernels built on what changed are dropped.
    fn redefine(
        &mut self,
        new: impl IntoIterator<Item = (String, Program)>,
        gone: impl IntoIterator<Item = String>,
    ) {
        self.generation += 1;
        let arguments = Arc::make_mut(&mut self.arguments);
        let mut count = |program: &Program, add: bool| {
            for arg in &program.inputs {
                if add {
                    // A name is copied only the first time it is counted.
                    match arguments.get_mut(arg) {
                        Some(n) => *n += 1,
                        None => {
                            arguments.insert(arg.clone(), 1);
                        }
                    }
                } else if let Some(n) = arguments.get_mut(arg) {
                    *n -= 1;
                    if *n == 0 {
                        arguments.remove(arg);
                    }
                }
            }
        };
        for name in gone {
            if let Some(old) = self.defs.shift_remove(&name) {
                count(&old.program, false);
            }
        }
        for (name, program) in new {
            count(&program, true);
            if let Some(old) =
                self.defs.insert(name, Arc::new(Definition { program, generation: self.generation }))
            {
                count(&old.program, false);
            }
        }
        let defs = &self.defs;
        self.kernels.retain(|key| match key {
            KernelKey::Definition { name, generation } => {
                defs.get(name).is_some_and(|d| d.generation == *generation)
            }
            // A form may use any definition.
            KernelKey::Form { .. } => false,
        });
    }

    /// Whether some definition takes an argument named `name`.
    fn is_argument(&self, name: &str) -> bool {
        self.arguments.contains_key(name)
    }

    /// The names of the definitions' arguments, sorted (what a message
    /// suggests must not depend on a hash's order).
    fn argument_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.arguments.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// `name(args)`: a definition at a point through its kernel; anything
    /// else (other arguments, a built-in function) as an expression.
    fn call(
        &mut self,
        line: &Line<'_>,
        name: Name<'_>,
        args: &Args,
        whole: Part,
    ) -> Result<String, SessionError> {
        let def = self.defs.get(name.text).cloned();
        if let Some(def) = def.filter(|d| d.program.inputs.len() == args.items.len()) {
            if let Some(x) = self.numbers(line, args)?.into_iter().collect::<Option<Vec<f64>>>() {
                let key = KernelKey::Definition { name: name.text.to_string(), generation: def.generation };
                let values = self.run_kernel(key, &def.program, &x, line.span(whole))?;
                return Ok(show::number(values[0]));
            }
        }
        let mut scope = Scope::new(self, line, whole)?;
        let program = scope.expression_with_forms(whole, None)?;
        Ok(self.shown(program))
    }

    /// An expression as printed: a number when it has no variables and
    /// each parameter it reads has a value (as a call at numbers is), else
    /// the expression.
    fn shown(&self, program: Program) -> String {
        match self.value_of(&program) {
            Some(value) => show::number(value),
            None => show::program(&program),
        }
    }

    /// The value of `program` at the values its parameters have now, or
    /// `None` if it has variables or reads a parameter without a value.
    fn value_of(&self, program: &Program) -> Option<f64> {
        if !program.inputs.is_empty() {
            return None;
        }
        let program = self.with_params_read(program.clone());
        let p: Option<Vec<f64>> =
            program.params.iter().map(|name| self.params.get(name).copied().flatten()).collect();
        Some(dstar::frontend::eval_program(&program, &p?)[0])
    }

    /// Each argument's value: a number when it has no variables and each
    /// parameter it reads has a value, else `None`.
    fn numbers(&self, line: &Line<'_>, args: &Args) -> Result<Vec<Option<f64>>, SessionError> {
        let mut values = vec![];
        for &arg in &args.items {
            values.push(self.without_variables(line, arg)?.and_then(|p| self.value_of(&p)));
        }
        Ok(values)
    }

    /// The error for `part`, an argument of a point that is no number: it
    /// reads a variable, or a parameter without a value.
    fn not_a_number(&self, line: &Line<'_>, part: Part) -> SessionError {
        let span = line.span(part);
        let no_value = match self.without_variables(line, part) {
            Ok(Some(program)) => self.parameter_values(&self.with_params_read(program).params, span).err(),
            _ => None,
        };
        no_value.unwrap_or_else(|| SessionError::at_span("expected a number", span))
    }

    /// The value of `part` as a constant expression, or `None` if it reads
    /// a variable or a parameter.
    fn constant(&self, line: &Line<'_>, part: Part) -> Result<Option<f64>, SessionError> {
        let program = self.without_variables(line, part)?.filter(|p| p.params.is_empty());
        Ok(program.map(|p| dstar::frontend::eval_program(&p, &[])[0]))
    }

    /// `part` as an expression of no variables (its parameters may have
    /// values or not), or `None` if it reads a variable.
    fn without_variables(&self, line: &Line<'_>, part: Part) -> Result<Option<Program>, SessionError> {
        let mut scope = Scope::new(self, line, part)?;
        scope.build_forms(part)?;
        match dstar::frontend::parse_expr_at(line.text, line.span(part), Some(&[]), &scope) {
            Ok(program) => Ok(Some(program)),
            Err(ParseError { kind: ParseErrorKind::NotAVariable { .. }, .. }) => Ok(None),
            Err(e) => Err(SessionError::from_parse(e)),
        }
    }

    /// A derivative form, symbolically or at a point.
    fn form(
        &mut self,
        line: &Line<'_>,
        form: &Form<'_>,
        point: Option<&Args>,
    ) -> Result<String, SessionError> {
        let mut scope = Scope::new(self, line, form.whole)?;
        for &f in &form.functions {
            scope.build_forms(f)?;
        }
        let mut derived = scope.derive(form)?;
        let Some(point) = point else { return Ok(show::derived(&derived)) };
        derived.program = self.with_params_read(derived.program);
        let vars = &derived.program.inputs;
        let mut x = vec![];
        for (&arg, value) in point.items.iter().zip(self.numbers(line, point)?) {
            x.push(value.ok_or_else(|| self.not_a_number(line, arg))?);
        }
        if x.len() != vars.len() {
            let message =
                format!("expected {}, found {}", crate::commands::listed(vars, "argument"), x.len());
            return Err(SessionError::at_span(message, point.span));
        }
        let key =
            KernelKey::Form { name: form.name, args: line.atoms(form.whole), generation: self.generation };
        let values = self.run_kernel(key, &derived.program, &x, line.span(form.whole))?;
        Ok(show::derived_values(&derived, &x, &values))
    }

    /// Evaluates `program` at `x`, its parameters at their values now, with
    /// the kernel cached under `key`, compiling it on first use; a parameter
    /// without a value is an error about `span`.
    fn run_kernel(
        &mut self,
        key: KernelKey,
        program: &Program,
        x: &[f64],
        span: Span,
    ) -> Result<Vec<f64>, SessionError> {
        let p = self.parameter_values(&program.params, span)?;
        let kernel = match self.kernels.get(&key) {
            Some(kernel) => kernel,
            None => {
                let options = dstar::Options { stop: self.interrupt.clone(), ..dstar::Options::default() };
                let kernel =
                    match dstar::Function::new(program.clone(), options).compile(dstar::Request::Values) {
                        Ok(kernel) => Arc::new(kernel),
                        Err(dstar::Error::Stopped) => return Err(SessionError::interrupted()),
                        Err(e) => return Err(form::internal(e)),
                    };
                self.kernels.insert(key, Arc::clone(&kernel));
                kernel
            }
        };
        let mut out = vec![0.0; kernel.out_len()];
        kernel.eval(dstar::Args::x(x).p(&p), &mut out).map_err(form::internal)?;
        Ok(out)
    }

    /// Completions for the word ending the line: commands, functions,
    /// parameters and definitions.
    pub fn complete(&self, word: &str) -> Vec<String> {
        let mut names: Vec<String> = if word.starts_with(':') {
            COMMANDS.iter().map(|(c, _)| c.split(' ').next().unwrap_or(c).to_string()).collect()
        } else {
            dstar::frontend::Op::function_names()
                .map(String::from)
                .chain(FORMS.map(String::from))
                .chain(["pi".to_string()])
                .chain(self.params.keys().cloned())
                .chain(self.defs.keys().cloned())
                .collect()
        };
        names.retain(|n| n.starts_with(word));
        names.sort();
        names.dedup();
        names
    }

    /// Kernels cached now.
    #[cfg(test)]
    pub fn cached_kernels(&self) -> usize {
        self.kernels.len()
    }

    /// Kernels compiled so far.
    #[cfg(test)]
    pub fn compiled_kernels(&self) -> usize {
        self.kernels.inserted()
    }
}

/// Rejects the names the language reserves: built-in functions, `pi`, `e`,
/// `in`, `out`, `param` and the derivative forms. `role` says what the name
/// would be: "be defined", "be an argument", "be a parameter".
fn check_definable(name: Name<'_>, role: &str) -> Result<(), SessionError> {
    let what = match dstar::frontend::reserved(name.text) {
        Some(what) => what,
        None if FORMS.contains(&name.text) => "a derivative form",
        None if scope::VALUE_NAMES.contains(&name.text) => "a value",
        None => return Ok(()),
    };
    Err(SessionError::at_span(format!("'{}' is {what} and cannot {role}", Shown(name.text)), name.span))
}

#[cfg(test)]
mod tests;
