//! Splits a kernel's operations into chunks, each compiled as its own
//! Cranelift function, because register allocation is superlinear in the
//! size of a function. Values one chunk hands to a later one travel through
//! a scratch buffer; a slot is reused once its last reader has run.
//!
//! Operations run in one of the orders of [`crate::order`] (id order, or
//! depth first from either end of the outputs), whichever hands fewer
//! values across chunks, and `sin(a)` and `cos(a)` sit next to each other
//! in one chunk, so one `sincos` call computes both.

use crate::function_first::FunctionFirst;
use crate::order::{chunk_end, depth_first, Operations};
use crate::sincos;
use frontend::{ExprDag, NodeId};
use std::ops::Range;

const NONE: u32 = u32::MAX;

/// Which operations each chunk computes, which outputs it stores and where
/// the values crossing chunk boundaries live.
#[derive(Debug)]
pub(crate) struct ChunkPlan {
    /// The operations (non-leaf nodes) the outputs reach, in a topological
    /// order with sin/cos partners side by side.
    ops: Vec<NodeId>,
    /// `chunks[c]` is the range of `ops` chunk `c` computes; never empty of chunks.
    chunks: Vec<Range<usize>>,
    /// Scratch slot per node, for operations read by a later chunk; else `NONE`.
    slot: Vec<u32>,
    /// Chunk computing each operation; `NONE` for leaves and unreached nodes.
    chunk_of: Vec<u32>,
    /// Position of each operation in `ops`; `NONE` for leaves and unreached nodes.
    position: Vec<u32>,
    /// `(node, output index)` pairs each chunk stores, leaves first, then by
    /// node: an operation's chunk stores it, chunk 0 stores leaves.
    stores: Vec<Vec<(NodeId, usize)>>,
    scratch_len: usize,
}

impl ChunkPlan {
    /// Plans chunks of `chunk_size` operations (at least 1; one more where a
    /// chunk would end between sin/cos partners) for `outputs`, in one of
    /// the orders of [`crate::order`], chosen by the values their chunks
    /// hand on:
    /// - id order, unless depth first from the outputs hands fewer on: in
    ///   id order a Hessian's forward values cross every chunk on their way
    ///   to the reverse sweep (the Rosenbrock chain's Hessian ran 2x slower
    ///   than depth first), while one chunk keeps id order, as good or
    ///   better for single functions;
    /// - depth first from the last output instead, where it hands on a
    ///   quarter fewer, and fewer by a twentieth of the operations at
    ///   least. Which end depth first starts from decides whether a chain
    ///   feeding many outputs (a dense Hessian's column) runs beside them
    ///   or ahead of them all, its links waiting in scratch: single
    ///   shooting's Hessian with functions handed on
    ///   906 K values from the first output, compiled to 4.36 M Cranelift
    ///   instructions and ran in 7-9 ms; from the last, 513 K, 3.57 M and
    ///   2.2 ms. Where the two are close, the difference says less than
    ///   the register allocation does (gmm 10's Hessian: 1% fewer from the
    ///   last, and 1.2-1.9x slower; a cart-pole map body of 1,097
    ///   operations: 34 against 54, and 8% slower), so the first is kept.
    ///
    /// The two depth-first orders are walked on two threads.
    pub(crate) fn new(dag: &ExprDag, outputs: &[NodeId], chunk_size: usize) -> ChunkPlan {
        let chunk_size = chunk_size.max(1);
        let ops = Operations::new(dag, outputs, &dag.reachable(outputs));
        let counted = |order: Vec<u32>| {
            let crossings = ops.crossings(&order, chunk_size);
            (order, crossings)
        };
        let by_id = counted(ops.by_id());
        let order = if by_id.1 == 0 {
            by_id.0
        } else {
            let (first, last) =
                rayon::join(|| counted(ops.depth_first(false)), || counted(ops.depth_first(true)));
            let usual = if first.1 < by_id.1 { first } else { by_id };
            let saved = usual.1.saturating_sub(last.1);
            if 4 * saved >= usual.1 && 20 * saved >= ops.len() {
                last.0
            } else {
                usual.0
            }
        };
        ChunkPlan::with_order(dag, outputs, ops.nodes(&order), chunk_size, None)
    }

    /// The plan for a kernel whose first outputs are `function`'s, a
    /// function computed in chunks of their own, ahead of the rest; both
    /// parts depth first from their outputs.
    /// The function's chunks store the nodes `function.exported` marks in
    /// scratch slots that nothing reuses, so that they are the same chunks
    /// whatever the other outputs are (see [`FunctionFirst`]). The caller
    /// makes sure that the other outputs read no other operation of the
    /// function ([`FunctionFirst::fits`]).
    pub(crate) fn function_first(
        dag: &ExprDag,
        outputs: &[NodeId],
        function: &FunctionFirst,
        chunk_size: usize,
    ) -> ChunkPlan {
        let others = &outputs[function.outputs.len()..];
        let mut ops = function.ops.clone();
        let reach = dag.reachable(others);
        let rest: Vec<bool> =
            reach.iter().enumerate().map(|(i, &r)| r && !function.computes(NodeId::from_index(i))).collect();
        ops.extend(depth_first(dag, others, &rest));
        ChunkPlan::with_order(dag, outputs, ops, chunk_size.max(1), Some(function))
    }

    /// The plan computing `ops` (a topological order of the operations
    /// `outputs` reach) in that order; with `function`, as
    /// [`function_first`](Self::function_first) describes.
    fn with_order(
        dag: &ExprDag,
        outputs: &[NodeId],
        ops: Vec<NodeId>,
        chunk_size: usize,
        function: Option<&FunctionFirst>,
    ) -> ChunkPlan {
        let (chunks, first_rest) = split(dag, outputs, &ops, chunk_size, function);
        let mut position = vec![NONE; dag.len()];
        for (i, id) in ops.iter().enumerate() {
            position[id.index()] = i as u32;
        }
        let Readers { chunk_of, mut last_use } = Readers::of(dag, &ops, &chunks);
        if let Some(function) = function {
            // Read after the function's chunks, by the other outputs: live to the end.
            for id in function.exported() {
                last_use[id.index()] = chunks.len() as u32;
            }
        }
        let (slot, scratch_len) = scratch_slots(dag, &ops, &chunks, &last_use);
        let stores = stores(outputs, &chunks, &chunk_of, function, first_rest);
        ChunkPlan { ops, chunks, slot, chunk_of, position, stores, scratch_len }
    }

    /// Number of chunks, at least 1.
    pub(crate) fn num_chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Number of operations, over all chunks.
    pub(crate) fn num_ops(&self) -> usize {
        self.ops.len()
    }

    /// The operations chunk `c` computes, in a topological order.
    pub(crate) fn ops(&self, c: usize) -> &[NodeId] {
        &self.ops[self.chunks[c].clone()]
    }

    /// The `(node, output index)` pairs chunk `c` stores: first those it
    /// does not compute (leaves, and a function's nodes for the other
    /// outputs), then by node.
    pub(crate) fn stores(&self, c: usize) -> &[(NodeId, usize)] {
        &self.stores[c]
    }

    /// The `(id, output index)` pairs chunk `c` stores for operation `id`.
    pub(crate) fn stores_of(&self, c: usize, id: NodeId) -> &[(NodeId, usize)] {
        let stores = &self.stores[c];
        let key = |&(node, _): &(NodeId, usize)| (self.chunk_of[node.index()] == c as u32, node);
        let start = stores.partition_point(|s| key(s) < (true, id));
        let end = stores.partition_point(|s| key(s) <= (true, id));
        &stores[start..end]
    }

    /// The scratch slot holding `id` for later chunks, if any reads it.
    pub(crate) fn slot(&self, id: NodeId) -> Option<usize> {
        match self.slot[id.index()] {
            NONE => None,
            s => Some(s as usize),
        }
    }

    /// The chunk computing operation `id`, or `None` for a leaf.
    pub(crate) fn chunk_of(&self, id: NodeId) -> Option<usize> {
        match self.chunk_of[id.index()] {
            NONE => None,
            c => Some(c as usize),
        }
    }

    /// Whichever of operations `u` and `v` runs later.
    pub(crate) fn later(&self, u: NodeId, v: NodeId) -> NodeId {
        if self.position[u.index()] > self.position[v.index()] {
            u
        } else {
            v
        }
    }

    /// Number of `f64` slots of scratch a call needs; 0 for a single chunk.
    pub(crate) fn scratch_len(&self) -> usize {
        self.scratch_len
    }
}

/// Cuts `ops` into chunks of `chunk_size` (one more where a chunk would end
/// between sin/cos partners), a chunk ending where `function`'s operations
/// do. Returns the chunks, never none, and the first chunk after the
/// function's (0 without a function).
fn split(
    dag: &ExprDag,
    outputs: &[NodeId],
    ops: &[NodeId],
    chunk_size: usize,
    function: Option<&FunctionFirst>,
) -> (Vec<Range<usize>>, usize) {
    let mut chunks: Vec<Range<usize>> = Vec::new();
    // A chunk ends where the function's operations do.
    let boundary = function.map_or(usize::MAX, |f| f.ops.len());
    let mut start = 0;
    while start < ops.len() {
        let limit = if start < boundary { boundary.min(ops.len()) } else { ops.len() };
        let end = chunk_end(start, chunk_size, limit, |a, b| {
            sincos::AVAILABLE && sincos::partner(dag, ops[a]) == Some(ops[b])
        });
        chunks.push(start..end);
        start = end;
    }
    // The first chunk after the function's: it stores the other outputs
    // that no chunk of its own computes, so there is one even if the
    // other outputs need no operation.
    if function.is_some_and(|f| outputs.len() > f.outputs.len()) && ops.len() == boundary {
        chunks.push(boundary..boundary);
    }
    let first_rest = chunks.iter().position(|r| r.start >= boundary).unwrap_or(0);
    if chunks.is_empty() {
        chunks.push(0..0);
    }
    (chunks, first_rest)
}

/// Which chunk computes each operation and which reads it last.
struct Readers {
    /// By node: the chunk computing it; `NONE` for leaves and unreached nodes.
    chunk_of: Vec<u32>,
    /// By node: the last chunk reading it; `NONE` if none does.
    last_use: Vec<u32>,
}

impl Readers {
    /// The readers of the operations `chunks` of `ops` compute.
    fn of(dag: &ExprDag, ops: &[NodeId], chunks: &[Range<usize>]) -> Readers {
        let mut chunk_of = vec![NONE; dag.len()];
        let mut last_use = vec![NONE; dag.len()];
        for (c, range) in chunks.iter().enumerate() {
            let c = c as u32;
            for &id in &ops[range.clone()] {
                chunk_of[id.index()] = c;
            }
            for &id in &ops[range.clone()] {
                for a in dag.args(id) {
                    if !dag.op(*a).is_leaf() {
                        last_use[a.index()] = c; // chunks run in order: the last write is the max
                    }
                }
            }
        }
        Readers { chunk_of, last_use }
    }
}

/// A scratch slot for each operation a later chunk reads (`last_use`), a
/// slot reused once its last reader has run. Returns the slots by node
/// (`NONE` for none) and the number of slots.
fn scratch_slots(
    dag: &ExprDag,
    ops: &[NodeId],
    chunks: &[Range<usize>],
    last_use: &[u32],
) -> (Vec<u32>, usize) {
    let mut slot = vec![NONE; dag.len()];
    let mut free: Vec<u32> = Vec::new();
    let mut release_after: Vec<Vec<u32>> = vec![Vec::new(); chunks.len() + 1];
    let mut scratch_len = 0u32;
    for (c, range) in chunks.iter().enumerate() {
        for &id in &ops[range.clone()] {
            let last = last_use[id.index()];
            if last != NONE && last as usize > c {
                let s = free.pop().unwrap_or_else(|| {
                    scratch_len += 1;
                    scratch_len - 1
                });
                slot[id.index()] = s;
                release_after[last as usize].push(s);
            }
        }
        // Freed only after the last reader ran, so no chunk overwrites a slot it still reads.
        free.append(&mut release_after[c]);
    }
    (slot, scratch_len as usize)
}

/// The `(node, output index)` pairs each chunk stores: an operation's chunk
/// stores it, chunk 0 stores leaves, and with `function` the first chunk
/// after the function's (`first_rest`) stores the other outputs that none
/// of their own computes; leaves first, then by node.
fn stores(
    outputs: &[NodeId],
    chunks: &[Range<usize>],
    chunk_of: &[u32],
    function: Option<&FunctionFirst>,
    first_rest: usize,
) -> Vec<Vec<(NodeId, usize)>> {
    let mut stores = vec![Vec::new(); chunks.len()];
    for (k, &id) in outputs.iter().enumerate() {
        let c = match chunk_of[id.index()] {
            NONE => 0,
            c => c as usize,
        };
        let c = match function {
            // Leaves and the function's nodes, for the other outputs.
            Some(f) if k >= f.outputs.len() && (c < first_rest || chunk_of[id.index()] == NONE) => first_rest,
            _ => c,
        };
        stores[c].push((id, k));
    }
    for (c, list) in stores.iter_mut().enumerate() {
        list.sort_unstable_by_key(|&(id, k)| (chunk_of[id.index()] == c as u32, id, k));
    }
    stores
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x0 -> sin -> cos -> ... ` chain of `n` operations plus a sum with the first.
    fn chain(n: usize) -> (ExprDag, NodeId) {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let first = dag.apply(frontend::Op::Sin, &[x]);
        let mut v = first;
        for _ in 1..n - 1 {
            v = dag.apply(frontend::Op::Cos, &[v]);
        }
        let out = dag.add(v, first);
        (dag, out)
    }

    #[test]
    fn one_chunk_needs_no_scratch() {
        let (dag, out) = chain(10);
        let plan = ChunkPlan::new(&dag, &[out], 100);
        assert_eq!(plan.num_chunks(), 1);
        assert_eq!(plan.scratch_len(), 0);
        assert_eq!(plan.ops(0).len(), 10);
        assert_eq!(plan.stores(0), &[(out, 0)]);
    }

    #[test]
    fn slots_are_reused_after_their_last_reader() {
        let (dag, out) = chain(10);
        let plan = ChunkPlan::new(&dag, &[out], 2);
        assert_eq!(plan.num_chunks(), 5);
        // Live across boundaries: the first sine (until the last chunk) and one link of the chain.
        assert_eq!(plan.scratch_len(), 3);
        for c in 0..plan.num_chunks() {
            for &id in plan.ops(c) {
                for a in dag.args(id) {
                    if let Some(d) = plan.chunk_of(*a) {
                        assert!(d == c || plan.slot(*a).is_some(), "{a:?} crosses into chunk {c}");
                    }
                }
            }
        }
        assert_eq!(plan.stores(4), &[(out, 0)]);
    }

    #[test]
    fn interleaved_chains_run_one_after_the_other() {
        // Two chains built in alternation: in id order every chunk of 2 hands
        // both chains on; depth first, only the first chain's end crosses.
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let (mut a, mut b) = (x, x);
        let (mut chain_a, mut chain_b) = (Vec::new(), Vec::new());
        for _ in 0..6 {
            a = dag.apply(frontend::Op::Sin, &[a]);
            b = dag.apply(frontend::Op::Exp, &[b]);
            chain_a.push(a);
            chain_b.push(b);
        }
        let out = dag.add(a, b);
        let plan = ChunkPlan::new(&dag, &[out], 2);
        let ops: Vec<NodeId> = (0..plan.num_chunks()).flat_map(|c| plan.ops(c).to_vec()).collect();
        let first = if ops[0] == chain_a[0] { [chain_a, chain_b] } else { [chain_b, chain_a] };
        assert_eq!(ops, [first.concat(), vec![out]].concat());
        assert_eq!(
            loads(&dag, &plan),
            6,
            "each chain link crossing into the next chunk, and the first chain's end"
        );
        let ops = Operations::new(&dag, &[out], &dag.reachable(&[out]));
        let by_id = ChunkPlan::with_order(&dag, &[out], ops.nodes(&ops.by_id()), 2, None);
        assert!(loads(&dag, &by_id) > loads(&dag, &plan));
    }

    /// How many times a chunk of `plan` loads a value an earlier chunk
    /// stored, counted from the plan itself.
    fn loads(dag: &ExprDag, plan: &ChunkPlan) -> usize {
        let mut loads = 0;
        for c in 0..plan.num_chunks() {
            let mut loaded = std::collections::HashSet::new();
            for &id in plan.ops(c) {
                for &a in dag.args(id) {
                    if plan.chunk_of(a).is_some_and(|d| d != c) && loaded.insert(a) {
                        assert!(plan.slot(a).is_some(), "{a:?} crosses into chunk {c} without a slot");
                        loads += 1;
                    }
                }
            }
        }
        loads
    }

    /// A chain `v[k] = v[k - 1] * x[k] + x[0]` of `n` links, then an
    /// output `v[k] * v[k]` of each link (so that id order computes the
    /// chain first), listed first to last or last to first: a dense
    /// Hessian's column and its entries, in miniature.
    fn chain_feeding_outputs(n: usize, reversed: bool) -> (ExprDag, Vec<NodeId>) {
        let mut dag = ExprDag::new();
        let x0 = dag.input(0);
        let mut links = vec![x0];
        for k in 1..=n {
            let x = dag.input(k);
            let t = dag.mul(links[k - 1], x);
            links.push(dag.add(t, x0));
        }
        let mut outputs: Vec<NodeId> = links[1..].iter().map(|&v| dag.mul(v, v)).collect();
        if reversed {
            outputs.reverse();
        }
        (dag, outputs)
    }

    #[test]
    fn a_chain_runs_beside_the_outputs_it_feeds_however_they_are_listed() {
        // Id order, and depth first from the output listed first when the
        // outputs are listed last link first, compute the whole chain
        // before any output, every link waiting in scratch; depth first
        // from the other end does not.
        for n in [10, 100, 1000] {
            for chunk_size in [4, 16, 100] {
                for reversed in [false, true] {
                    let (dag, outputs) = chain_feeding_outputs(n, reversed);
                    let plan = ChunkPlan::new(&dag, &outputs, chunk_size);
                    let (chunks, links) = (plan.num_chunks(), 3 * n);
                    assert!(
                        loads(&dag, &plan) < chunks,
                        "{n} links, chunks of {chunk_size}, reversed {reversed}: {} loads in {chunks} chunks",
                        loads(&dag, &plan)
                    );
                    assert!(chunks <= links.div_ceil(chunk_size) + 1);
                }
            }
        }
        let (dag, outputs) = chain_feeding_outputs(100, true);
        let ops = Operations::new(&dag, &outputs, &dag.reachable(&outputs));
        let (first, last) =
            (ops.crossings(&ops.depth_first(false), 16), ops.crossings(&ops.depth_first(true), 16));
        assert!(first >= 100 && last < 300 / 16 + 1, "from the first output {first}, from the last {last}");
    }

    #[test]
    fn every_order_runs_each_operation_once_after_its_operands() {
        // A pseudo-random DAG with sin/cos partners, several outputs.
        let mut dag = ExprDag::new();
        let mut nodes: Vec<NodeId> = (0..4).map(|i| dag.input(i)).collect();
        let mut state = 12345u64;
        let mut next = |m: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize % m
        };
        for _ in 0..400 {
            let (a, b) = (nodes[next(nodes.len())], nodes[next(nodes.len())]);
            let node = match next(4) {
                0 => dag.apply(frontend::Op::Sin, &[a]),
                1 => dag.apply(frontend::Op::Cos, &[a]),
                2 => dag.mul(a, b),
                _ => dag.add(a, b),
            };
            nodes.push(node);
        }
        let outputs: Vec<NodeId> = (0..20).map(|_| nodes[4 + next(nodes.len() - 4)]).collect();
        let ops = Operations::new(&dag, &outputs, &dag.reachable(&outputs));
        for order in [ops.by_id(), ops.depth_first(false), ops.depth_first(true)] {
            let order = ops.nodes(&order);
            assert_eq!(order.len(), ops.len());
            let mut position = vec![usize::MAX; dag.len()];
            for (i, id) in order.iter().enumerate() {
                assert_eq!(position[id.index()], usize::MAX, "{id:?} twice");
                position[id.index()] = i;
            }
            for (i, &id) in order.iter().enumerate() {
                for &a in dag.args(id).iter().filter(|a| !dag.op(**a).is_leaf()) {
                    assert!(position[a.index()] < i, "{a:?} after its user {id:?}");
                }
                if let Some(p) = sincos::partner(&dag, id).filter(|_| sincos::AVAILABLE) {
                    let j = position[p.index()];
                    assert!(j == usize::MAX || j + 1 == i || i + 1 == j, "{id:?} and {p:?} apart");
                }
            }
            for chunk_size in [1, 3, 50] {
                let plan = ChunkPlan::with_order(&dag, &outputs, order.clone(), chunk_size, None);
                let numbers: Vec<u32> =
                    order.iter().map(|id| ops.ids.iter().position(|x| x == id).unwrap() as u32).collect();
                assert_eq!(ops.crossings(&numbers, chunk_size), loads(&dag, &plan), "chunks of {chunk_size}");
            }
        }
    }

    #[test]
    fn leaf_outputs_are_stored_by_the_first_chunk() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let c = dag.constant(2.0);
        let plan = ChunkPlan::new(&dag, &[c, x, x], 4);
        assert_eq!(plan.num_chunks(), 1);
        assert_eq!(plan.stores(0), &[(x, 1), (x, 2), (c, 0)]);
    }

    #[test]
    fn sine_and_cosine_of_one_argument_are_neighbours_in_one_chunk() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let sin = dag.apply(frontend::Op::Sin, &[x]);
        let t = dag.mul(sin, x);
        let u = dag.mul(t, x);
        let cos = dag.apply(frontend::Op::Cos, &[x]);
        let out = dag.add(u, cos);
        for chunk_size in 1..=5 {
            let plan = ChunkPlan::new(&dag, &[out], chunk_size);
            let ops: Vec<NodeId> = (0..plan.num_chunks()).flat_map(|c| plan.ops(c).to_vec()).collect();
            if sincos::AVAILABLE {
                assert_eq!(ops, [sin, cos, t, u, out], "chunk size {chunk_size}");
                assert_eq!(plan.chunk_of(sin), plan.chunk_of(cos), "chunk size {chunk_size}");
            } else {
                assert_eq!(ops, [sin, t, u, cos, out]);
            }
            assert_eq!(plan.stores_of(plan.num_chunks() - 1, out), &[(out, 0)]);
        }
    }
}
