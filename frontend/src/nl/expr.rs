//! One expression of a `C`, `O` or `V` segment: a prefix (Polish) listing
//! of nodes (`o<code>` operations, `n<value>` constants, `v<index>`
//! variables; one a line in text), read with an explicit stack so that nesting depth
//! costs no call stack, into nodes of the DAG.

use super::error::NlError;
use super::opcode::{opcode, Kind};
use super::tokens::Tokens;
use crate::dag::{ExprDag, NodeId};
use crate::error::{ParseError, ParseErrorKind};
use crate::op::{Cmp, Op};

/// What expressions may refer to: `n_vars` variables (inputs `0..n_vars`)
/// and the defined variables read so far (`v<n_vars + j>`).
#[derive(Debug)]
pub(super) struct Scope {
    /// Number of variables.
    pub n_vars: usize,
    /// Per defined variable, its node once its `V` segment is read.
    pub defined: Vec<Option<NodeId>>,
}

/// A node's value as its parent takes it: a number, or a condition
/// (comparisons and logic, whose value is 1 or 0).
#[derive(Clone, Copy, Debug)]
enum Item {
    Value(NodeId),
    Cond(Cond),
}

/// A condition: `a cmp b`, or "`n` is not zero".
#[derive(Clone, Copy, Debug)]
enum Cond {
    Compare(Cmp, NodeId, NodeId),
    Truth(NodeId),
}

/// An operation waiting for its operands.
#[derive(Debug)]
struct Frame {
    kind: Kind,
    need: usize,
    args: Vec<Item>,
}

/// Reads the next expression into `dag`.
pub(super) fn read_expr(
    tokens: &mut impl Tokens,
    dag: &mut ExprDag,
    scope: &Scope,
) -> Result<NodeId, ParseError> {
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        let key = tokens.node()?;
        let mut item = match key {
            b'o' => {
                stack.push(operation(tokens)?);
                continue;
            }
            b'n' | b'l' | b's' => Item::Value(dag.constant(tokens.constant(key)?)),
            b'v' => {
                let index = tokens.int("a variable index")?;
                Item::Value(scope.node(index, dag).map_err(|kind| tokens.item_error(kind))?)
            }
            b'h' => return Err(tokens.item_error(NlError::Unsupported { what: "strings (h)" }.into())),
            b'f' => {
                let what = "calls of imported functions (f)";
                return Err(tokens.item_error(NlError::Unsupported { what }.into()));
            }
            _ => {
                let kind = ParseErrorKind::Expected {
                    expected: "an expression node (o, n or v)",
                    found: tokens.shown_item(),
                };
                return Err(tokens.item_error(kind));
            }
        };
        // Hand the finished item up until an operation still needs operands.
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok(value(dag, item));
            };
            frame.args.push(item);
            if frame.args.len() < frame.need {
                break;
            }
            let frame = stack.pop().expect("the frame just filled");
            item = apply(dag, frame.kind, &frame.args);
        }
    }
}

/// The frame of an `o<code>` node (and its operand count for a list).
fn operation(tokens: &mut impl Tokens) -> Result<Frame, ParseError> {
    let code = tokens.int("an o-code")?;
    let (name, kind) =
        opcode(code).ok_or_else(|| tokens.item_error(NlError::UnknownOpcode { code }.into()))?;
    let code = code as u32; // below 83: opcode() knows it
    if kind == Kind::Unsupported {
        return Err(tokens.item_error(NlError::UnsupportedOpcode { code, name }.into()));
    }
    let need = match kind.arity() {
        Some(n) => n,
        None => {
            tokens.item("the number of operands")?;
            let n = tokens.int("the number of operands")?;
            // Each operand takes a line (in binary, 5 bytes) at least: a larger count is a lie.
            if n == 0 || n > tokens.remaining() as u64 {
                let kind = if n == 0 {
                    NlError::NoOperands { code, name }
                } else {
                    NlError::Truncated { expected: "an operand" }
                };
                return Err(tokens.token_error(kind.into()));
            }
            n as usize
        }
    };
    Ok(Frame { kind, need, args: Vec::with_capacity(need.min(64)) })
}

impl Scope {
    /// The node of variable `index`: an input below `n_vars`, a defined
    /// variable (read already) from there on.
    pub fn node(&self, index: u64, dag: &mut ExprDag) -> Result<NodeId, ParseErrorKind> {
        let count = self.n_vars + self.defined.len();
        let i = usize::try_from(index).ok().filter(|&i| i < count).ok_or(NlError::OutOfRange {
            what: "variable",
            index,
            count,
        })?;
        if i < self.n_vars {
            return Ok(dag.input(i));
        }
        Ok(self.defined[i - self.n_vars].ok_or(NlError::UsedBeforeDefined { index: i })?)
    }
}

/// The operation of `kind` applied to its operands.
fn apply(dag: &mut ExprDag, kind: Kind, args: &[Item]) -> Item {
    let v = |dag: &mut ExprDag, i: usize| value(dag, args[i]);
    let zero = dag.constant(0.0);
    match kind {
        Kind::Unary(op) => {
            let a = v(dag, 0);
            Item::Value(dag.apply(op, &[a]))
        }
        Kind::Binary(op) => {
            let (a, b) = (v(dag, 0), v(dag, 1));
            Item::Value(dag.apply(op, &[a, b]))
        }
        Kind::Square => {
            let (a, two) = (v(dag, 0), dag.constant(2.0));
            Item::Value(dag.apply(Op::Pow, &[a, two]))
        }
        Kind::Sum | Kind::MinList | Kind::MaxList => {
            let op = match kind {
                Kind::Sum => Op::Add,
                Kind::MinList => Op::Min,
                _ => Op::Max,
            };
            let nodes = (0..args.len()).map(|i| v(dag, i)).collect();
            Item::Value(balanced(dag, op, nodes))
        }
        Kind::Less => {
            let (a, b) = (v(dag, 0), v(dag, 1));
            let t = dag.sub(a, b);
            Item::Value(dag.apply(Op::Select(Cmp::Lt), &[t, zero, zero, t]))
        }
        Kind::IntDiv => {
            let (a, b) = (v(dag, 0), v(dag, 1));
            let q = dag.div(a, b);
            let (down, up) = (dag.apply(Op::Floor, &[q]), dag.apply(Op::Ceil, &[q]));
            Item::Value(dag.apply(Op::Select(Cmp::Ge), &[q, zero, down, up]))
        }
        Kind::If | Kind::Implies => {
            let (a, b) = (v(dag, 1), v(dag, 2));
            let n = select(dag, cond(args[0]), a, b);
            Item::Value(n)
        }
        Kind::Compare(cmp) => {
            let (a, b) = (v(dag, 0), v(dag, 1));
            Item::Cond(Cond::Compare(cmp, a, b))
        }
        Kind::Not => Item::Cond(not(dag, cond(args[0]))),
        Kind::And { .. } | Kind::Or { .. } => Item::Cond(all_or_any(dag, kind, args)),
        Kind::Iff => {
            let b = cond(args[1]);
            let yes = ones(dag, b);
            let no = not(dag, b);
            let no = ones(dag, no);
            Item::Cond(Cond::Truth(select(dag, cond(args[0]), yes, no)))
        }
        Kind::Unsupported => unreachable!("unsupported o-codes are refused when read"),
    }
}

/// `c1 and c2 and ...` (each evaluated only where the ones before hold, as
/// AMPL does), or `c1 or c2 or ...`, as "a 0/1 node is not zero".
fn all_or_any(dag: &mut ExprDag, kind: Kind, args: &[Item]) -> Cond {
    let (zero, one) = (dag.constant(0.0), dag.constant(1.0));
    let last = cond(args[args.len() - 1]);
    let mut acc = ones(dag, last);
    for &arg in args[..args.len() - 1].iter().rev() {
        let c = cond(arg);
        acc = match kind {
            Kind::And { .. } => select(dag, c, acc, zero),
            _ => select(dag, c, one, acc),
        };
    }
    Cond::Truth(acc)
}

/// The sum (or min, max) of `nodes` as a balanced tree of binary nodes:
/// depth grows with the log of the count, so long sums stay shallow.
pub(super) fn balanced(dag: &mut ExprDag, op: Op, mut nodes: Vec<NodeId>) -> NodeId {
    while nodes.len() > 1 {
        let pairs = nodes.len() / 2;
        for i in 0..pairs {
            nodes[i] = dag.apply(op, &[nodes[2 * i], nodes[2 * i + 1]]);
        }
        if nodes.len() % 2 == 1 {
            nodes[pairs] = nodes[nodes.len() - 1];
            nodes.truncate(pairs + 1);
        } else {
            nodes.truncate(pairs);
        }
    }
    nodes[0]
}

/// An item as a number: a condition is 1 where it holds, else 0.
fn value(dag: &mut ExprDag, item: Item) -> NodeId {
    match item {
        Item::Value(n) => n,
        Item::Cond(c) => ones(dag, c),
    }
}

/// An item as a condition: a number holds where it is not zero (NaN included, as in C).
fn cond(item: Item) -> Cond {
    match item {
        Item::Value(n) => Cond::Truth(n),
        Item::Cond(c) => c,
    }
}

/// 1 where `c` holds, else 0.
fn ones(dag: &mut ExprDag, c: Cond) -> NodeId {
    let (one, zero) = (dag.constant(1.0), dag.constant(0.0));
    select(dag, c, one, zero)
}

/// `not c`: the branches swapped, so a comparison with NaN (false) is true
/// negated, which `a >= b` for `not (a < b)` would not be.
fn not(dag: &mut ExprDag, c: Cond) -> Cond {
    let (one, zero) = (dag.constant(1.0), dag.constant(0.0));
    Cond::Truth(select(dag, c, zero, one))
}

/// `if c then a else b`.
fn select(dag: &mut ExprDag, c: Cond, a: NodeId, b: NodeId) -> NodeId {
    match c {
        Cond::Compare(cmp, x, y) => dag.apply(Op::Select(cmp), &[x, y, a, b]),
        Cond::Truth(n) => {
            let zero = dag.constant(0.0);
            dag.apply(Op::Select(Cmp::Ne), &[n, zero, a, b])
        }
    }
}
