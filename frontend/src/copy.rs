//! Copying what some roots of a DAG reach into another DAG: the one
//! copy-with-remap of the crate. Inputs may be renamed to nodes of the
//! target, and each call is kept, relinked to another function, or written
//! out ([`Calls`]).

use crate::call::FunctionDef;
use crate::dag::{ExprDag, Node, NodeId};
use crate::op::Op;
use std::sync::Arc;

/// What a copy does with the calls it meets.
#[derive(Clone, Copy)]
pub enum Calls<'a> {
    /// Each call stays a call of the same function (and level).
    Keep,
    /// A call of a function that `relink` maps calls the function it
    /// returns instead (the same arguments and results); others stay.
    Relink(&'a dyn Fn(&Arc<FunctionDef>) -> Option<Arc<FunctionDef>>),
    /// Each call's body is copied in its place, to any depth, node for
    /// node: the values of the calls bit for bit.
    Inline,
    /// The calls of the functions `pick` picks are written out as with
    /// [`Inline`](Calls::Inline) (and the calls in their bodies, to any
    /// depth); the others stay.
    InlineIf(&'a dyn Fn(&FunctionDef) -> bool),
}

impl std::fmt::Debug for Calls<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Calls::Keep => "Keep",
            Calls::Relink(_) => "Relink",
            Calls::Inline => "Inline",
            Calls::InlineIf(_) => "InlineIf",
        })
    }
}

/// Copies the nodes that `roots` reach in `from` into `into` (sharing what
/// is there already) and returns the roots' new ids. Input `k` of `from`
/// becomes `inputs[k]`, or stays input `k` with `None`; calls go as `calls`
/// says. Linear in the nodes copied (and, inlining, in the bodies copied).
pub fn copy(
    into: &mut ExprDag,
    from: &ExprDag,
    roots: &[NodeId],
    inputs: Option<&[NodeId]>,
    calls: Calls<'_>,
) -> Vec<NodeId> {
    let reach = from.reachable(roots);
    let mut map = vec![NodeId::NONE; from.len()];
    // Per site, once: its results in `into`, when its body is written out.
    let mut inlined: Vec<Option<Vec<NodeId>>> = vec![None; from.sites().len()];
    for id in from.ids().filter(|id| reach[id.index()]) {
        let op = from.op(id);
        map[id.index()] = match (op, inputs) {
            (Op::Input(k), Some(inputs)) => inputs[k as usize],
            (Op::Call(c), _) => {
                let site = from.site(c.site);
                let args: Vec<NodeId> = site.args.iter().map(|a| map[a.index()]).collect();
                let inline = match calls {
                    Calls::Inline => true,
                    Calls::InlineIf(pick) => pick(&site.called()),
                    Calls::Keep | Calls::Relink(_) => false,
                };
                match calls {
                    _ if inline => {
                        let results = inlined[c.site as usize].get_or_insert_with(|| {
                            let called = site.called();
                            copy(into, called.body().dag(), called.body().roots(), Some(&args), Calls::Inline)
                        });
                        results[c.out as usize]
                    }
                    _ => {
                        let relinked = match calls {
                            Calls::Relink(relink) => relink(&site.function),
                            _ => None,
                        };
                        let function = relinked.as_ref().unwrap_or(&site.function);
                        into.call_at_level(function, site.level, &args, c.out as usize)
                    }
                }
            }
            _ => {
                let args: Vec<NodeId> = from.args(id).iter().map(|a| map[a.index()]).collect();
                into.intern(Node::new(op, &args))
            }
        };
    }
    roots.iter().map(|r| map[r.index()]).collect()
}
