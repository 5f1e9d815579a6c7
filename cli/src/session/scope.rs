//! What a statement's expressions can name: the session's definitions and
//! parameters, and the derivative forms of the statement built so far, which
//! the frontend's parser inlines where their text stands
//! (`Functions::prebuilt`).

use super::form::{self, Derived, Shape};
use super::statement::{Form, FormName, Line, Name, Part};
use super::{Session, SessionError};
use dstar::frontend::shown::Shown;
use dstar::frontend::{
    parse_expr_at, DidYouMean, ExprDag, Functions, Node, Op, Output, ParseError, ParseErrorKind, Program,
};
use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

/// The names one statement sees.
pub struct Scope<'a> {
    session: &'a Session,
    line: &'a Line<'a>,
    /// Forms built so far, by the byte offset where their text starts:
    /// where it ends, and the derivative.
    built: BTreeMap<u32, (u32, Program)>,
    /// Names a derivative form's function may use as variables: the
    /// arguments of every definition and the variables of every `diff` of
    /// the statement.
    variables: HashSet<&'a str>,
}

impl Functions for Scope<'_> {
    fn function(&self, name: &str) -> Option<&Program> {
        self.session.defs.get(name).map(|d| &d.program).or_else(|| value_name(name))
    }

    fn prebuilt(&self, offset: u32) -> Option<(u32, &Program)> {
        self.built.get(&offset).map(|(end, program)| (*end, program))
    }

    fn is_parameter(&self, name: &str) -> bool {
        self.session.params.contains_key(name)
    }
}

/// The names of values, which the REPL reads as numbers wherever a number
/// can stand (`f(nan, 1)`, `jacobian(f)(0, inf)`, `-inf`), as points are
/// read everywhere ([`dstar::frontend::value`]); none can be defined.
pub const VALUE_NAMES: [&str; 2] = ["nan", "inf"];

/// The constant that `name` is, if it is one of [`VALUE_NAMES`]: a function
/// of no variables, which the parser inlines.
fn value_name(name: &str) -> Option<&'static Program> {
    static VALUES: OnceLock<Vec<Program>> = OnceLock::new();
    let values = VALUES.get_or_init(|| {
        let constant = |name: &str| {
            let mut dag = ExprDag::new();
            let node = dag.constant(dstar::frontend::value::parse(name).expect("a value"));
            Program::new(dag, vec![], vec![Output { name: name.to_string(), node }])
        };
        VALUE_NAMES.map(constant).into()
    });
    VALUE_NAMES.iter().position(|v| *v == name).map(|i| &values[i])
}

/// A derivative that is one expression.
fn scalar(program: Program) -> Derived {
    Derived { program, shape: Shape::Scalar, rows: vec![] }
}

impl<'a> Scope<'a> {
    /// The scope of the statement `statement` of `line`.
    pub fn new(session: &'a Session, line: &'a Line<'a>, statement: Part) -> Result<Scope<'a>, SessionError> {
        // The definitions' arguments are the session's
        // ([`Session::is_argument`]); `diff(diff(x*y, x), y)` names `y`
        // only outside the inner form.
        let mut variables: HashSet<&str> = HashSet::new();
        for form in line.forms_inside(statement)? {
            variables.extend(form.by.iter().map(|by| by.var.text));
        }
        Ok(Scope { session, line, built: BTreeMap::new(), variables })
    }

    /// Builds the derivative forms inside `part`, innermost first, so that
    /// the expressions holding them can be parsed, and says whether there
    /// were any. Only `diff` and `taylor` are values; the others can only
    /// stand alone.
    pub fn build_forms(&mut self, part: Part) -> Result<bool, SessionError> {
        let forms = self.line.forms_inside(part)?;
        for form in &forms {
            let span = self.line.span(form.whole);
            if !form.name.is_scalar() {
                let word = form.name.word();
                let what = if form.name == FormName::Grad { "vector" } else { "matrix" };
                return Err(SessionError::at_span(
                    format!(
                        "{word} gives a {what} and cannot be part of an expression; \
                         write it alone, as in {word}(f) or {word}(f)(1, 2)"
                    ),
                    span,
                ));
            }
            let derived = self.derive(form)?;
            self.built.insert(span.start.offset, (span.end.offset, derived.program));
        }
        Ok(!forms.is_empty())
    }

    /// `part` as an expression (see [`Scope::expression`]) after building
    /// its derivative forms; when it holds any, the whole is rewritten for
    /// printing, so that derivatives combined read as one expression
    /// (`2 * x * y - 1`, not `2 * x * y + (-1)`). Over given arguments, a
    /// name that is none of them says how it could be.
    pub fn expression_with_forms(
        &mut self,
        part: Part,
        args: Option<&[&str]>,
    ) -> Result<Program, SessionError> {
        let has_forms = self.build_forms(part)?;
        let program = self.parse(part, args).map_err(|e| match e.kind {
            ParseErrorKind::NotAVariable { name } => SessionError::at_span(
                format!(
                    "'{0}' is neither an argument nor a parameter; add it to the arguments, \
                     or declare it with 'param {0}'",
                    Shown(&name)
                ),
                e.span,
            ),
            _ => SessionError::from_parse(e),
        })?;
        Ok(if has_forms { dstar::tidy(&program) } else { program })
    }

    /// `part` as an expression: over `args` in that order if given, else
    /// over its variables in order of first appearance; the session's
    /// parameters are its parameters.
    pub fn expression(&self, part: Part, args: Option<&[&str]>) -> Result<Program, SessionError> {
        self.parse(part, args).map_err(SessionError::from_parse)
    }

    fn parse(&self, part: Part, args: Option<&[&str]>) -> Result<Program, ParseError> {
        parse_expr_at(self.line.text, self.line.span(part), args, self)
    }

    /// A derivative form's function: a definition, or an inline expression
    /// over its variables in order of first appearance (`diff(sin(x*y), x)`).
    /// A bare name must be a definition, an argument of one, or a variable of
    /// a `diff` around or inside it: `grad(fff)` after a typo is an error,
    /// never the function `fff` of the new variable `fff`.
    fn function(&self, part: Part) -> Result<Program, SessionError> {
        let program = self.expression(part, None)?;
        let bare = matches!(program.dag.op(program.outputs[0].node), Op::Input(_));
        for (k, name) in program.inputs.iter().enumerate() {
            if !bare || self.variables.contains(name.as_str()) || self.session.is_argument(name) {
                continue;
            }
            let hint = DidYouMean::closest(name, self.candidates());
            let node = program.dag.find(&Node::new(Op::Input(k as u32), &[]));
            let span = node.and_then(|n| program.spans.get(n)).unwrap_or_else(|| self.line.span(part));
            return Err(SessionError::at_span(
                format!("'{}' is neither a definition nor an argument of one{hint}", Shown(name)),
                span,
            ));
        }
        Ok(program)
    }

    /// The names a misspelt name may have meant, in an order of their own
    /// (the first of equally close ones is suggested).
    fn candidates(&self) -> Vec<&str> {
        let mut variables: Vec<&str> = self.variables.iter().copied().collect();
        variables.sort_unstable();
        let defs = self.session.defs.keys().map(String::as_str);
        defs.chain(self.session.argument_names()).chain(variables).collect()
    }

    /// Builds `form` (whose inner forms are built) symbolically.
    pub fn derive(&self, form: &Form<'a>) -> Result<Derived, SessionError> {
        match form.name {
            FormName::Diff => {
                let f = self.function(form.functions[0])?;
                let mut by = vec![];
                for entry in &form.by {
                    self.check_not_parameter(&f, entry.var)?;
                    let column = self.column(&f, entry.var).map_err(|e| match entry.in_order_place {
                        true => self.not_variable_nor_order(&f, entry.var),
                        false => e,
                    })?;
                    let order = entry.order;
                    match column {
                        Some(col) => by.push((col, order)),
                        // A variable f does not use: the derivative is 0.
                        None if order > 0 => return Ok(scalar(form::zero(&f.inputs))),
                        None => {}
                    }
                }
                let names: Vec<&str> = form.by.iter().map(|by| by.var.text).collect();
                let budget = &self.session.budget;
                Ok(scalar(form::partial(&f, &by, &names, budget, &self.session.interrupt)?))
            }
            FormName::Taylor => {
                let f = self.function(form.functions[0])?;
                let (var, order) = (form.by[0].var, form.by[0].order);
                self.check_not_parameter(&f, var)?;
                let at = self.number(form.at.expect("taylor has a point"))?;
                let program = match self.column(&f, var)? {
                    Some(col) => {
                        form::taylor(&f, col, at, order, &self.session.budget, &self.session.interrupt)?
                    }
                    None => dstar::tidy(&f),
                };
                Ok(scalar(program))
            }
            FormName::Grad => form::gradient(&self.function(form.functions[0])?),
            FormName::Hessian => form::hessian(&self.function(form.functions[0])?),
            FormName::Jacobian => {
                let functions =
                    form.functions.iter().map(|&f| self.function(f)).collect::<Result<Vec<_>, _>>()?;
                let rows = form.functions.iter().map(|&f| self.line.text_of(f).to_string()).collect();
                form::jacobian(&functions, rows)
            }
        }
    }

    /// The value of a constant expression, such as a Taylor polynomial's
    /// point: a parameter, whose value may change, cannot be part of it.
    fn number(&self, part: Part) -> Result<f64, SessionError> {
        let program = self.expression(part, Some(&[]))?;
        if let Some(param) = program.params.first() {
            let message = format!("expected a number; '{}' is a parameter", Shown(param));
            return Err(SessionError::at_span(message, self.line.span(part)));
        }
        Ok(dstar::frontend::eval_program(&program, &[])[0])
    }

    /// Derivatives are taken with respect to variables only: `var` must not
    /// be a parameter (of the session, or read by `f`).
    fn check_not_parameter(&self, f: &Program, var: Name<'_>) -> Result<(), SessionError> {
        if !self.session.params.contains_key(var.text) && !f.params.iter().any(|p| p == var.text) {
            return Ok(());
        }
        let message = format!(
            "'{}' is a parameter; derivatives are taken with respect to variables only",
            Shown(var.text)
        );
        Err(SessionError::at_span(message, var.span))
    }

    /// The input of `f` that `var` names, or `None` for a variable `f`
    /// does not use; a name that is nobody's variable is an error.
    fn column(&self, f: &Program, var: Name<'_>) -> Result<Option<usize>, SessionError> {
        if let Some(col) = f.inputs.iter().position(|i| i == var.text) {
            return Ok(Some(col));
        }
        if self.session.is_argument(var.text) {
            return Ok(None);
        }
        Err(SessionError::at_span(not_a_variable(var.text, &f.inputs), var.span))
    }

    /// The error for a name where either a variable or an order could
    /// stand (`two` in `diff(f, x, two)`), saying both what was expected
    /// and what was found.
    fn not_variable_nor_order(&self, f: &Program, var: Name<'_>) -> SessionError {
        let hint = DidYouMean::closest(var.text, f.inputs.iter().map(String::as_str));
        let vars =
            if f.inputs.is_empty() { "none".to_string() } else { dstar::frontend::shown::list(&f.inputs) };
        SessionError::at_span(
            format!(
                "expected a variable of the function (its variables: {vars}) or a whole-number order, found '{}'{hint}",
                Shown(var.text)
            ),
            var.span,
        )
    }
}

/// The message for `var`, which is not one of the variables `inputs` of the
/// function to differentiate: the REPL's and `dstar diff`'s.
pub fn not_a_variable(var: &str, inputs: &[String]) -> String {
    let hint = DidYouMean::closest(var, inputs.iter().map(String::as_str));
    let vars = if inputs.is_empty() { "none".to_string() } else { dstar::frontend::shown::list(inputs) };
    format!("'{}' is not a variable of the function (its variables: {vars}){hint}", Shown(var))
}
