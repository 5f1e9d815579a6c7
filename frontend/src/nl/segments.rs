//! The segments after the header, each a line starting with a letter and
//! the lines it announces: `V`, `C`, `O` expressions, `J`, `G` linear
//! parts, `x` and `d` initial values, `r` and `b` bounds, `k` column
//! counts, `S` suffixes (skipped); `F` and `L` are refused.

use super::error::NlError;
use super::expr::{balanced, read_expr, Scope};
use super::header::Header;
use super::lines::{Line, Lines};
use super::{Bound, Sense};
use crate::dag::{ExprDag, NodeId};
use crate::error::{ParseError, ParseErrorKind};
use crate::op::Op;

/// Everything the segments hold, indexed as the `.nl` file numbers it.
#[derive(Debug)]
pub(super) struct Segments {
    /// The DAG, inputs `0..n_vars` first.
    pub dag: ExprDag,
    /// Defined variables' nodes.
    pub scope: Scope,
    /// Per constraint, its `C` expression and its `J` linear part.
    pub constraints: Vec<Body>,
    /// Per objective, its `O` expression and its `G` linear part.
    pub objectives: Vec<Body>,
    /// Per objective, its sense.
    pub senses: Vec<Sense>,
    /// Initial primal values (`x`), 0 where not given.
    pub primal: Vec<f64>,
    /// Initial dual values (`d`), 0 where not given.
    pub duals: Vec<f64>,
    /// Variables' bounds (`b`), free where not given.
    pub var_bounds: Vec<Bound>,
    /// Constraints' ranges (`r`), free where not given.
    pub constraint_bounds: Vec<Bound>,
}

/// The two parts of a constraint's or an objective's body.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Body {
    /// The `C` or `O` expression.
    pub nonlinear: Option<NodeId>,
    /// The sum of the `J` or `G` terms.
    pub linear: Option<NodeId>,
}

impl Body {
    /// `nonlinear + linear` (a constant nonlinear part of 0 is left out).
    pub fn node(self, dag: &mut ExprDag) -> NodeId {
        let nonlinear = self.nonlinear.filter(|&n| dag.as_const(n) != Some(0.0));
        match (nonlinear, self.linear) {
            (Some(a), Some(b)) => dag.add(a, b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => dag.constant(0.0),
        }
    }
}

/// Reads the segments up to the end of the file.
pub(super) fn read_segments(lines: &mut Lines<'_>, header: &Header) -> Result<Segments, ParseError> {
    let mut dag = ExprDag::new();
    dag.reserve(header.vars);
    for k in 0..header.vars {
        dag.input(k);
    }
    let mut s = Segments {
        dag,
        scope: Scope { n_vars: header.vars, defined: vec![None; header.defined] },
        constraints: vec![Body::default(); header.constraints],
        objectives: vec![Body::default(); header.objectives],
        senses: vec![Sense::Minimize; header.objectives],
        primal: vec![0.0; header.vars],
        duals: vec![0.0; header.constraints],
        var_bounds: vec![Bound::Free; header.vars],
        constraint_bounds: vec![Bound::Free; header.constraints],
    };
    while let Some(line) = lines.next_line() {
        if !line.text.is_empty() {
            s.read_segment(&line, lines)?;
        }
    }
    Ok(s)
}

impl Segments {
    /// Reads the segment whose first line is `line`.
    fn read_segment(&mut self, line: &Line<'_>, lines: &mut Lines<'_>) -> Result<(), ParseError> {
        let (n_vars, n_cons, n_objs) = (self.scope.n_vars, self.constraints.len(), self.objectives.len());
        let mut fields = line.fields(1);
        match line.text.as_bytes()[0] {
            b'F' => Err(line.error(NlError::Unsupported { what: "imported functions (F segments)" })),
            b'L' => Err(line.error(NlError::Unsupported { what: "logical constraints (L segments)" })),
            b'S' => skip_suffix(line, lines),
            b'V' => self.read_defined(line, lines),
            b'C' => {
                let i = fields.index("constraint", n_cons)?;
                once(line, 'C', "constraint", i, self.constraints[i].nonlinear)?;
                self.constraints[i].nonlinear = Some(read_expr(lines, &mut self.dag, &self.scope)?);
                Ok(())
            }
            b'O' => {
                let i = fields.index("objective", n_objs)?;
                self.senses[i] = match fields.int("the objective's sense (0 or 1)")? {
                    0 => Sense::Minimize,
                    1 => Sense::Maximize,
                    _ => return Err(line.error(expected("the objective's sense (0 or 1)", line))),
                };
                once(line, 'O', "objective", i, self.objectives[i].nonlinear)?;
                self.objectives[i].nonlinear = Some(read_expr(lines, &mut self.dag, &self.scope)?);
                Ok(())
            }
            b'J' | b'G' => {
                let (what, count) =
                    if line.text.starts_with('J') { ("constraint", n_cons) } else { ("objective", n_objs) };
                let i = fields.index(what, count)?;
                let k = fields.int("the number of terms")?;
                let sum = linear_terms(lines, &mut self.dag, &self.scope, k)?;
                let body =
                    if what == "constraint" { &mut self.constraints[i] } else { &mut self.objectives[i] };
                let letter = if what == "constraint" { 'J' } else { 'G' };
                once(line, letter, what, i, body.linear)?;
                body.linear = sum;
                Ok(())
            }
            b'x' => pairs(lines, fields.int("the number of values")?, "variable", &mut self.primal),
            b'd' => pairs(lines, fields.int("the number of values")?, "constraint", &mut self.duals),
            b'r' => bounds(lines, &mut self.constraint_bounds, Some(n_vars)),
            b'b' => bounds(lines, &mut self.var_bounds, None),
            b'k' => {
                let m = fields.int("the number of column counts")?;
                for _ in 0..m {
                    lines.expect("a Jacobian column count")?.fields(0).int("a Jacobian column count")?;
                }
                Ok(())
            }
            _ => {
                let found: String = line.text.chars().take(12).collect();
                Err(line.error(NlError::UnknownSegment { found }))
            }
        }
    }

    /// A `V` segment: `V i k t`, `k` linear terms, then the expression.
    fn read_defined(&mut self, line: &Line<'_>, lines: &mut Lines<'_>) -> Result<(), ParseError> {
        let n_vars = self.scope.n_vars;
        let mut fields = line.fields(1);
        let i = fields.index("defined variable", n_vars + self.scope.defined.len())?;
        let j = i.checked_sub(n_vars).ok_or_else(|| {
            let expected = "a defined variable's index (the number of variables or more)";
            line.error(ParseErrorKind::Expected { expected, found: format!("variable {i}") })
        })?;
        let k = fields.int("the number of linear terms")?;
        once(line, 'V', "defined variable", i, self.scope.defined[j])?;
        let linear = linear_terms(lines, &mut self.dag, &self.scope, k)?;
        let nonlinear = read_expr(lines, &mut self.dag, &self.scope)?;
        self.scope.defined[j] = Some(Body { nonlinear: Some(nonlinear), linear }.node(&mut self.dag));
        Ok(())
    }
}

/// An error if a segment for `what` `i` was read already (`seen`).
fn once(
    line: &Line<'_>,
    segment: char,
    what: &'static str,
    index: usize,
    seen: Option<NodeId>,
) -> Result<(), ParseError> {
    match seen {
        Some(_) => Err(line.error(NlError::Duplicate { segment, what, index })),
        None => Ok(()),
    }
}

/// "expected `what`, found 'text'".
fn expected(what: &'static str, line: &Line<'_>) -> ParseErrorKind {
    ParseErrorKind::Expected { expected: what, found: format!("'{}'", crate::shown::Shown(line.text)) }
}

/// `k` lines `index coefficient` (variables, or defined variables read
/// already), summed as a balanced tree; zero coefficients, which writers
/// emit to declare a variable's place in the sparsity pattern, add nothing
/// and are left out. `None` for no nonzero term.
fn linear_terms(
    lines: &mut Lines<'_>,
    dag: &mut ExprDag,
    scope: &Scope,
    k: u64,
) -> Result<Option<NodeId>, ParseError> {
    let mut terms = Vec::with_capacity((k as usize).min(lines.remaining()).min(1 << 20));
    for _ in 0..k {
        let line = lines.expect("a linear term 'index coefficient'")?;
        let mut fields = line.fields(0);
        let index_field = fields.next("a variable index")?;
        let coefficient = fields.real("a coefficient")?;
        let index = line.int_of(index_field, "a variable index")?;
        let x =
            scope.node(index, dag).map_err(|kind| ParseError { kind, span: line.span_of(index_field) })?;
        if coefficient != 0.0 {
            let c = dag.constant(coefficient);
            terms.push(dag.apply(Op::Mul, &[c, x]));
        }
    }
    Ok((!terms.is_empty()).then(|| balanced(dag, Op::Add, terms)))
}

/// `m` lines `index value` into `values`.
fn pairs(lines: &mut Lines<'_>, m: u64, what: &'static str, values: &mut [f64]) -> Result<(), ParseError> {
    for _ in 0..m {
        let line = lines.expect("a line 'index value'")?;
        let mut fields = line.fields(0);
        let i = fields.index(what, values.len())?;
        values[i] = fields.real("a value")?;
    }
    Ok(())
}

/// One bound line per entry of `bounds`: `0 l u`, `1 u`, `2 l`, `3`, `4 c`,
/// and for constraints (`complements` is the number of variables) `5 k i`,
/// complementarity with variable `i`, counted from 1.
fn bounds(lines: &mut Lines<'_>, bounds: &mut [Bound], complements: Option<usize>) -> Result<(), ParseError> {
    let allowed = if complements.is_some() { "0 1 2 3 4 5" } else { "0 1 2 3 4" };
    for bound in bounds.iter_mut() {
        let line = lines.expect("a bound line")?;
        let mut fields = line.fields(0);
        let code_field = fields.next("a bound type")?;
        let code = line.int_of(code_field, "a bound type")?;
        *bound = match code {
            0 => Bound::Range { lower: fields.real("a lower bound")?, upper: fields.real("an upper bound")? },
            1 => Bound::Upper(fields.real("an upper bound")?),
            2 => Bound::Lower(fields.real("a lower bound")?),
            3 => Bound::Free,
            4 => Bound::Equal(fields.real("a value")?),
            5 if complements.is_some() => {
                let flags = fields.int("complementarity flags")?;
                let flags = u32::try_from(flags).unwrap_or(u32::MAX);
                let n_vars = complements.unwrap_or(0);
                let var = fields.index("complemented variable (from 1)", n_vars + 1)?;
                if var == 0 {
                    let kind = NlError::OutOfRange {
                        what: "complemented variable (from 1)",
                        index: 0,
                        count: n_vars,
                    };
                    return Err(line.error(kind));
                }
                Bound::Complement { flags, var: var - 1 }
            }
            _ => {
                let kind = NlError::BadBoundType { code, allowed };
                return Err(ParseError { kind: kind.into(), span: line.span_of(code_field) });
            }
        };
    }
    Ok(())
}

/// An `S` segment (a suffix: `S kind n name` and `n` lines), skipped.
fn skip_suffix(line: &Line<'_>, lines: &mut Lines<'_>) -> Result<(), ParseError> {
    let mut fields = line.fields(1);
    fields.int("the suffix's kind")?;
    let n = fields.int("the number of suffix values")?;
    for _ in 0..n {
        lines.expect("a suffix value 'index value'")?;
    }
    Ok(())
}
