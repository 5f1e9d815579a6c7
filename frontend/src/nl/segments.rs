//! The segments after the header, each a key letter and the items it
//! announces: `V`, `C`, `O` expressions, `J`, `G` linear parts, `x` and
//! `d` initial values, `r` and `b` bounds, `k` column counts, `S` suffixes
//! (skipped); `F` and `L` are refused. Read from [`Tokens`], text or binary.

use super::error::NlError;
use super::expr::{balanced, read_expr, Scope};
use super::header::Header;
use super::tokens::Tokens;
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
pub(super) fn read_segments(tokens: &mut impl Tokens, header: &Header) -> Result<Segments, ParseError> {
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
    while let Some(key) = tokens.segment()? {
        s.read_segment(key, tokens)?;
    }
    Ok(s)
}

impl Segments {
    /// Reads the segment whose key letter is `key`.
    fn read_segment(&mut self, key: u8, tokens: &mut impl Tokens) -> Result<(), ParseError> {
        let (n_vars, n_cons, n_objs) = (self.scope.n_vars, self.constraints.len(), self.objectives.len());
        match key {
            b'F' => {
                Err(tokens
                    .item_error(NlError::Unsupported { what: "imported functions (F segments)" }.into()))
            }
            b'L' => {
                Err(tokens
                    .item_error(NlError::Unsupported { what: "logical constraints (L segments)" }.into()))
            }
            b'S' => skip_suffix(tokens),
            b'V' => self.read_defined(tokens),
            b'C' => {
                let i = tokens.index("constraint", n_cons)?;
                once(tokens, 'C', "constraint", i, self.constraints[i].nonlinear)?;
                self.constraints[i].nonlinear = Some(read_expr(tokens, &mut self.dag, &self.scope)?);
                Ok(())
            }
            b'O' => {
                let i = tokens.index("objective", n_objs)?;
                let expected = "the objective's sense (0 or 1)";
                self.senses[i] = match tokens.int(expected)? {
                    0 => Sense::Minimize,
                    1 => Sense::Maximize,
                    n => {
                        let found = n.to_string();
                        return Err(tokens.token_error(ParseErrorKind::Expected { expected, found }));
                    }
                };
                once(tokens, 'O', "objective", i, self.objectives[i].nonlinear)?;
                self.objectives[i].nonlinear = Some(read_expr(tokens, &mut self.dag, &self.scope)?);
                Ok(())
            }
            b'J' | b'G' => {
                let (what, letter, count) =
                    if key == b'J' { ("constraint", 'J', n_cons) } else { ("objective", 'G', n_objs) };
                let i = tokens.index(what, count)?;
                let k = tokens.int("the number of terms")?;
                let body = if key == b'J' { self.constraints[i] } else { self.objectives[i] };
                once(tokens, letter, what, i, body.linear)?;
                let sum = linear_terms(tokens, &mut self.dag, &self.scope, k)?;
                let body = if key == b'J' { &mut self.constraints[i] } else { &mut self.objectives[i] };
                body.linear = sum;
                Ok(())
            }
            b'x' => pairs(tokens, "variable", &mut self.primal),
            b'd' => pairs(tokens, "constraint", &mut self.duals),
            b'r' => bounds(tokens, &mut self.constraint_bounds, Some(n_vars)),
            b'b' => bounds(tokens, &mut self.var_bounds, None),
            b'k' => {
                let m = tokens.int("the number of column counts")?;
                for _ in 0..m {
                    tokens.item("a Jacobian column count")?;
                    tokens.int("a Jacobian column count")?;
                }
                Ok(())
            }
            _ => Err(tokens.item_error(NlError::UnknownSegment { found: tokens.shown_item() }.into())),
        }
    }

    /// A `V` segment: `V i k t`, `k` linear terms, then the expression.
    fn read_defined(&mut self, tokens: &mut impl Tokens) -> Result<(), ParseError> {
        let n_vars = self.scope.n_vars;
        let i = tokens.index("defined variable", n_vars + self.scope.defined.len())?;
        let j = i.checked_sub(n_vars).ok_or_else(|| {
            let expected = "a defined variable's index (the number of variables or more)";
            tokens.token_error(ParseErrorKind::Expected { expected, found: format!("variable {i}") })
        })?;
        let k = tokens.int("the number of linear terms")?;
        tokens.int("the defined variable's use")?;
        once(tokens, 'V', "defined variable", i, self.scope.defined[j])?;
        let linear = linear_terms(tokens, &mut self.dag, &self.scope, k)?;
        let nonlinear = read_expr(tokens, &mut self.dag, &self.scope)?;
        self.scope.defined[j] = Some(Body { nonlinear: Some(nonlinear), linear }.node(&mut self.dag));
        Ok(())
    }
}

/// An error if a segment for `what` `i` was read already (`seen`).
fn once(
    tokens: &impl Tokens,
    segment: char,
    what: &'static str,
    index: usize,
    seen: Option<NodeId>,
) -> Result<(), ParseError> {
    match seen {
        Some(_) => Err(tokens.item_error(NlError::Duplicate { segment, what, index }.into())),
        None => Ok(()),
    }
}

/// `k` items `index coefficient` (variables, or defined variables read
/// already), summed as a balanced tree; zero coefficients, which writers
/// emit to declare a variable's place in the sparsity pattern, add nothing
/// and are left out. `None` for no nonzero term.
fn linear_terms(
    tokens: &mut impl Tokens,
    dag: &mut ExprDag,
    scope: &Scope,
    k: u64,
) -> Result<Option<NodeId>, ParseError> {
    let mut terms = Vec::with_capacity((k as usize).min(tokens.remaining()).min(1 << 20));
    for _ in 0..k {
        tokens.item("a linear term 'index coefficient'")?;
        let index = tokens.int("a variable index")?;
        let x = scope.node(index, dag).map_err(|kind| tokens.token_error(kind))?;
        let coefficient = tokens.real("a coefficient")?;
        if coefficient != 0.0 {
            let c = dag.constant(coefficient);
            terms.push(dag.apply(Op::Mul, &[c, x]));
        }
    }
    Ok((!terms.is_empty()).then(|| balanced(dag, Op::Add, terms)))
}

/// A count `m`, then `m` items `index value` into `values`.
fn pairs(tokens: &mut impl Tokens, what: &'static str, values: &mut [f64]) -> Result<(), ParseError> {
    let m = tokens.int("the number of values")?;
    for _ in 0..m {
        tokens.item("a line 'index value'")?;
        let i = tokens.index(what, values.len())?;
        values[i] = tokens.real("a value")?;
    }
    Ok(())
}

/// One bound item per entry of `bounds`: `0 l u`, `1 u`, `2 l`, `3`, `4 c`,
/// and for constraints (`complements` is the number of variables) `5 k i`,
/// complementarity with variable `i`, counted from 1.
fn bounds(
    tokens: &mut impl Tokens,
    bounds: &mut [Bound],
    complements: Option<usize>,
) -> Result<(), ParseError> {
    let allowed = if complements.is_some() { "0 1 2 3 4 5" } else { "0 1 2 3 4" };
    for bound in bounds.iter_mut() {
        tokens.item("a bound line")?;
        let code = tokens.bound_type()?;
        *bound = match code {
            0 => Bound::Range { lower: tokens.real("a lower bound")?, upper: tokens.real("an upper bound")? },
            1 => Bound::Upper(tokens.real("an upper bound")?),
            2 => Bound::Lower(tokens.real("a lower bound")?),
            3 => Bound::Free,
            4 => Bound::Equal(tokens.real("a value")?),
            5 if complements.is_some() => {
                let flags = tokens.signed("complementarity flags")?;
                let flags = u32::try_from(flags).unwrap_or(u32::MAX);
                let n_vars = complements.unwrap_or(0);
                let var = tokens.index("complemented variable (from 1)", n_vars + 1)?;
                if var == 0 {
                    let kind = NlError::OutOfRange {
                        what: "complemented variable (from 1)",
                        index: 0,
                        count: n_vars,
                    };
                    return Err(tokens.token_error(kind.into()));
                }
                Bound::Complement { flags, var: var - 1 }
            }
            _ => return Err(tokens.token_error(NlError::BadBoundType { code, allowed }.into())),
        };
    }
    Ok(())
}

/// An `S` segment, skipped: `S kind n name` and `n` items `index value`,
/// the values real if `kind & 4`, else integers.
fn skip_suffix(tokens: &mut impl Tokens) -> Result<(), ParseError> {
    let kind = tokens.int("the suffix's kind")?;
    let n = tokens.int("the number of suffix values")?;
    tokens.skip_name()?;
    for _ in 0..n {
        tokens.item("a suffix value 'index value'")?;
        tokens.int("a suffix value's index")?;
        if kind & 4 != 0 {
            tokens.real("a suffix value")?;
        } else {
            tokens.signed("a suffix value")?;
        }
    }
    Ok(())
}
