//! Session parameters (`param g = 9.81`): names that expressions read as
//! data, never as variables, whose values are given to every kernel at each
//! call, so that a new value compiles nothing.

use super::statement::{Line, Name, Part};
use super::{check_definable, show, Session, SessionError};
use dstar::frontend::shown::Shown;
use dstar::frontend::{Node, Op, Program, Span};

impl Session {
    /// `param a = 1, b`: declares the parameters not yet declared and sets
    /// the values given; a parameter declared again without a value keeps
    /// its own. Nothing changes if any item fails.
    pub(super) fn declare(
        &mut self,
        line: &Line<'_>,
        items: &[(Name<'_>, Option<Part>)],
    ) -> Result<String, SessionError> {
        let mut declared: Vec<(&str, Option<f64>)> = vec![];
        for &(name, value) in items {
            self.check_parameter_name(name)?;
            if declared.iter().any(|(n, _)| *n == name.text) {
                return Err(SessionError::at_span(
                    format!("'{}' is listed twice", Shown(name.text)),
                    name.span,
                ));
            }
            let value = match value {
                None => None,
                Some(part) => Some(self.constant(line, part)?.ok_or_else(|| {
                    SessionError::at_span(
                        "a parameter's value is a number: a constant expression, nan or inf",
                        line.span(part),
                    )
                })?),
            };
            declared.push((name.text, value));
        }
        let new = declared.iter().any(|(name, _)| !self.params.contains_key(*name));
        for &(name, value) in &declared {
            let slot = self.params.entry(name.to_string()).or_insert(None);
            if value.is_some() {
                *slot = value;
            }
        }
        if new {
            // A form's text may now read a parameter where it read a variable.
            self.redefine([], []);
        }
        let shown: Vec<String> =
            declared.iter().map(|(name, _)| show::parameter(name, self.params[*name])).collect();
        Ok(shown.join("\n"))
    }

    /// Rejects a name that cannot become a parameter: reserved, a
    /// definition, or an argument of one.
    fn check_parameter_name(&self, name: Name<'_>) -> Result<(), SessionError> {
        check_definable(name, "be a parameter")?;
        let message = if self.defs.contains_key(name.text) {
            format!("'{}' is a definition and cannot be a parameter", Shown(name.text))
        } else if let Some(user) = self.argument_of(name.text) {
            format!("'{}' is an argument of '{}' and cannot be a parameter", Shown(name.text), Shown(user))
        } else {
            return Ok(());
        };
        Err(SessionError::at_span(message, name.span))
    }

    /// The first definition with an argument named `name`, if any.
    pub(super) fn argument_of(&self, name: &str) -> Option<&str> {
        if !self.is_argument(name) {
            return None;
        }
        let mut defs = self.defs.iter();
        defs.find(|(_, d)| d.program.inputs.iter().any(|a| a == name)).map(|(n, _)| n.as_str())
    }

    /// The values of the parameters `params`, in that order; one without a
    /// value is an error about `span` that says how to give it one.
    pub(super) fn parameter_values(&self, params: &[String], span: Span) -> Result<Vec<f64>, SessionError> {
        params
            .iter()
            .map(|name| match self.params.get(name) {
                Some(&Some(value)) => Ok(value),
                _ => Err(SessionError::at_span(
                    format!(
                        "the parameter '{0}' has no value; give it one with 'param {0} = VALUE'",
                        Shown(name)
                    ),
                    span,
                )),
            })
            .collect()
    }

    /// The parameters some definition reads, in order of declaration, with
    /// their values.
    pub(super) fn parameters_used(&self) -> Vec<(&str, Option<f64>)> {
        self.params
            .iter()
            .filter(|(name, _)| self.defs.values().any(|d| d.program.params.contains(name)))
            .map(|(name, value)| (name.as_str(), *value))
            .collect()
    }

    /// `program` over only the parameters its outputs read, in their order
    /// of declaration: the parser lists them in order of first appearance,
    /// and a function inlined may bring some that a derivative no longer
    /// reads (`diff(f, x)` for `f(x) = x + c`), which need no value.
    pub(super) fn with_params_read(&self, program: Program) -> Program {
        params_read(program, |name| self.params.get_index_of(name).unwrap_or(usize::MAX))
    }
}

/// `program` over only the parameters its outputs read, ordered by
/// `position` (a stable sort: equal positions keep their order).
pub fn params_read(program: Program, position: impl Fn(&str) -> usize) -> Program {
    let (n, q) = (program.inputs.len(), program.params.len());
    let reach = program.dag.reachable(&program.output_nodes());
    let reads = |j: &usize| {
        let leaf = program.dag.find(&Node::new(Op::Input((n + j) as u32), &[]));
        leaf.is_some_and(|id| reach[id.index()])
    };
    let mut read: Vec<usize> = (0..q).filter(reads).collect();
    read.sort_by_key(|&j| position(&program.params[j]));
    if read.iter().copied().eq(0..q) {
        return program;
    }
    // Parameter `old` becomes `place[old]`; those not read come last, past
    // the program's parameters, where no output reaches them.
    let mut place: Vec<Option<u32>> = vec![None; q];
    for (new, &old) in read.iter().enumerate() {
        place[old] = Some(new as u32);
    }
    let mut unread = read.len() as u32..;
    let place: Vec<u32> =
        place.into_iter().map(|p| p.unwrap_or_else(|| unread.next().expect("unbounded"))).collect();
    let n = n as u32;
    let mut program = program;
    let dag = std::sync::Arc::unwrap_or_clone(std::mem::take(&mut program.dag));
    let dag = dag.renumber_inputs(|k| if k < n { k } else { n + place[(k - n) as usize] });
    let params = read.iter().map(|&j| program.params[j].clone()).collect();
    Program { dag: dag.into(), ..program }.with_params(params, None)
}
