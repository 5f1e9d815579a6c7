//! Copying what some roots of a DAG reach into another DAG: the one
//! copy-with-remap of the crate. Inputs may be renamed to nodes of the
//! target, and each call is kept, relinked to another function, or written
//! out ([`Calls`]).

use crate::call::FunctionDef;
use crate::dag::{ExprDag, Node, NodeId};
use crate::op::Op;
use rustc_hash::{FxHashMap, FxHashSet};
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
/// says. Linear in the nodes copied (and, inlining, in the bodies copied),
/// not in `from`: a small cone of a large DAG (an output among thousands,
/// an edge's label) is found by a walk from the roots.
pub fn copy(
    into: &mut ExprDag,
    from: &ExprDag,
    roots: &[NodeId],
    inputs: Option<&[NodeId]>,
    calls: Calls<'_>,
) -> Vec<NodeId> {
    let (nodes, mut map) = match small_cone(from, roots) {
        Some(nodes) => (nodes, Map::Sparse(FxHashMap::default())),
        None => {
            let reach = from.reachable(roots);
            let nodes = from.ids().filter(|id| reach[id.index()]).collect();
            (nodes, Map::Dense(vec![NodeId::NONE; from.len()]))
        }
    };
    // Per site, once: its results in `into`, when its body is written out.
    let mut inlined: FxHashMap<u32, Vec<NodeId>> = FxHashMap::default();
    for id in nodes {
        let op = from.op(id);
        let copied = match (op, inputs) {
            (Op::Input(k), Some(inputs)) => inputs[k as usize],
            (Op::Call(c), _) => {
                let site = from.site(c.site);
                let args: Vec<NodeId> = site.args.iter().map(|&a| map.get(a)).collect();
                let inline = match calls {
                    Calls::Inline => true,
                    Calls::InlineIf(pick) => pick(&site.called()),
                    Calls::Keep | Calls::Relink(_) => false,
                };
                match calls {
                    _ if inline => {
                        let results = inlined.entry(c.site).or_insert_with(|| {
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
                let args: Vec<NodeId> = from.args(id).iter().map(|&a| map.get(a)).collect();
                into.intern(Node::new(op, &args))
            }
        };
        map.set(id, copied);
    }
    roots.iter().map(|&r| map.get(r)).collect()
}

/// Each copied node's id in the target: an array over `from` for a large
/// copy, a hash map for a small one.
enum Map {
    Dense(Vec<NodeId>),
    Sparse(FxHashMap<NodeId, NodeId>),
}

impl Map {
    fn get(&self, id: NodeId) -> NodeId {
        match self {
            Map::Dense(ids) => ids[id.index()],
            Map::Sparse(ids) => ids[&id],
        }
    }

    fn set(&mut self, id: NodeId, copied: NodeId) {
        match self {
            Map::Dense(ids) => ids[id.index()] = copied,
            Map::Sparse(ids) => {
                ids.insert(id, copied);
            }
        }
    }
}

/// The nodes `roots` reach in `from`, ascending, if they are at most a
/// sixteenth of it (past that the walk stops: a large copy passes over
/// `from` with arrays, cheaper per node than hashing).
fn small_cone(from: &ExprDag, roots: &[NodeId]) -> Option<Vec<NodeId>> {
    const DENSE_BELOW: usize = 4096;
    if from.len() < DENSE_BELOW {
        return None;
    }
    let limit = from.len() / 16;
    let mut seen: FxHashSet<NodeId> = roots.iter().copied().collect();
    let mut stack: Vec<NodeId> = seen.iter().copied().collect();
    while let Some(id) = stack.pop() {
        for &a in from.args(id) {
            if seen.insert(a) {
                if seen.len() > limit {
                    return None;
                }
                stack.push(a);
            }
        }
    }
    let mut nodes: Vec<NodeId> = seen.into_iter().collect();
    nodes.sort_unstable();
    Some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;

    /// Cones small and large of a DAG past the walk's threshold, with and
    /// without renamed inputs, copy to the same values and node counts as
    /// the source computes.
    #[test]
    fn small_and_large_cones_copy_alike() {
        let n = 64;
        let mut dag = ExprDag::new();
        let inputs: Vec<NodeId> = (0..n).map(|k| dag.input(k)).collect();
        let mut nodes = inputs.clone();
        for i in 0..20_000usize {
            let (a, b) = (nodes[(i * 7919) % nodes.len()], nodes[nodes.len() - 1 - (i % 5)]);
            let op = [Op::Add, Op::Mul, Op::Sub][i % 3];
            let c = dag.apply(op, &[a, b]);
            let s = dag.apply(Op::Sin, &[c]);
            nodes.push(s);
        }
        assert!(dag.len() > 4096 * 4);
        let x: Vec<f64> = (0..n).map(|k| 0.1 + 0.01 * k as f64).collect();
        let whole = Kernel::new(dag.clone(), nodes.clone(), n).unwrap().eval(&x);
        for &at in &[n + 10, n + 500, nodes.len() / 2, nodes.len() - 1] {
            let roots = [nodes[at], nodes[at - 3]];
            let mut into = ExprDag::new();
            let copied = copy(&mut into, &dag, &roots, None, Calls::Keep);
            assert_eq!(into.count_ops(&copied), dag.count_ops(&roots));
            let got = Kernel::new(into, copied, n).unwrap().eval(&x);
            assert_eq!(got, [whole[at], whole[at - 3]]);
            // Inputs renamed: input k read as the node of input n - 1 - k.
            let mut into = ExprDag::new();
            let renamed: Vec<NodeId> = (0..n).map(|k| into.input(n - 1 - k)).collect();
            let copied = copy(&mut into, &dag, &roots, Some(&renamed), Calls::Keep);
            let reversed: Vec<f64> = x.iter().rev().copied().collect();
            assert_eq!(Kernel::new(into, copied, n).unwrap().eval(&reversed), [whole[at], whole[at - 3]]);
        }
    }
}
