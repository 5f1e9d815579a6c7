//! Pairs of like operations a chunk computes with one `f64x2` instruction,
//! as gcc's SLP vectorizer does: seeded by two results stored next to each
//! other in `out`, grown into operands that nothing else uses. Each lane
//! computes exactly what the scalar instruction would, so results agree bit
//! for bit; a pair saves an instruction, a store, and often a register.

use crate::chunk::ChunkPlan;
use crate::convention::InputParts;
use frontend::{ExprDag, NodeId, Op};
use std::cell::RefCell;
use std::collections::HashMap;

/// How a pair's operand vector is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairOperand {
    /// One value in both lanes.
    Splat(NodeId),
    /// `x[i]` and `x[i + 1]`, one load.
    Inputs(u32),
    /// The result of an earlier pair of the chunk.
    Pair(usize),
    /// Two scalars put together.
    Scalars(NodeId, NodeId),
}

/// Two operations `nodes[0]` and `nodes[1]`, both `op`, computed at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pair {
    /// The lanes: `nodes[0]` in lane 0, `nodes[1]` in lane 1.
    pub nodes: [NodeId; 2],
    /// The operation of both.
    pub op: Op,
    /// The operand vectors: `op(args[0], args[1])` lane by lane.
    pub args: [PairOperand; 2],
}

/// The pairs of one chunk, operands before their users.
#[derive(Debug, Default)]
pub(crate) struct ChunkPairs {
    pairs: Vec<Pair>,
    lane_of: HashMap<NodeId, (usize, usize)>,
}

impl ChunkPairs {
    /// Finds the pairs of chunk `chunk`; `op_uses[i]` counts the operations
    /// (in any chunk) that read node `i`; inputs load in pairs within a part.
    pub(crate) fn find(
        dag: &ExprDag,
        plan: &ChunkPlan,
        op_uses: &[u32],
        parts: &InputParts,
        chunk: usize,
    ) -> ChunkPairs {
        let mut finder = Finder {
            dag,
            plan,
            op_uses,
            parts,
            chunk,
            found: ChunkPairs::default(),
            grows: RefCell::default(),
        };
        let mut slots: Vec<(usize, NodeId)> = plan
            .stores(chunk)
            .iter()
            .filter(|(id, _)| plan.chunk_of(*id) == Some(chunk))
            .map(|&(id, k)| (k, id))
            .collect();
        slots.sort_unstable();
        for w in slots.windows(2) {
            let [(k, u), (l, v)] = [w[0], w[1]];
            if l == k + 1
                && op_uses[u.index()] == 0
                && op_uses[v.index()] == 0
                && plan.slot(u).is_none()
                && plan.slot(v).is_none()
                && finder.is_worth_pairing(u, v)
            {
                finder.pair(u, v);
            }
        }
        finder.found
    }

    /// The pair computing `id` and its lane, if any.
    pub(crate) fn lane_of(&self, id: NodeId) -> Option<(usize, usize)> {
        self.lane_of.get(&id).copied()
    }

    /// Pair `p`.
    pub(crate) fn pair(&self, p: usize) -> Pair {
        self.pairs[p]
    }

    /// Number of pairs.
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }
}

/// `op_uses[i]`: how many times operations that `outputs` reach read node `i`.
pub(crate) fn op_uses(dag: &ExprDag, outputs: &[NodeId]) -> Vec<u32> {
    let mut uses = dag.use_counts(outputs);
    for id in outputs {
        uses[id.index()] -= 1;
    }
    uses
}

/// Whether `op` has an `f64x2` instruction with the same rounding.
fn is_vector_op(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Div)
}

struct Finder<'a> {
    dag: &'a ExprDag,
    plan: &'a ChunkPlan,
    op_uses: &'a [u32],
    parts: &'a InputParts,
    chunk: usize,
    found: ChunkPairs,
    /// [`Finder::grows`], memoized: chains would otherwise be walked once per link.
    grows: RefCell<HashMap<(NodeId, NodeId), bool>>,
}

impl Finder<'_> {
    /// Distinct, unpaired operations of this chunk with one vector operation.
    fn can_pair(&self, u: NodeId, v: NodeId) -> bool {
        let op = self.dag.op(u);
        u != v
            && is_vector_op(op)
            && self.dag.op(v) == op
            && self.plan.chunk_of(u) == Some(self.chunk)
            && self.plan.chunk_of(v) == Some(self.chunk)
            && self.found.lane_of(u).is_none()
            && self.found.lane_of(v).is_none()
    }

    /// Whether operands `p` and `q` of a pair can become a pair themselves.
    fn can_grow(&self, p: NodeId, q: NodeId) -> bool {
        self.can_pair(p, q) && self.grows(p, q)
    }

    /// Whether `p` and `q` are like operations of this chunk, each read
    /// once (by the pair using them) and stored nowhere, and some operand
    /// vector of theirs is cheap or grows further: pairs built only from
    /// scalars cost what they save and lengthen the critical path.
    fn grows(&self, p: NodeId, q: NodeId) -> bool {
        if let Some(&known) = self.grows.borrow().get(&(p, q)) {
            return known;
        }
        let once = |id: NodeId| {
            self.op_uses[id.index()] == 1
                && self.plan.chunk_of(id) == Some(self.chunk)
                && self.plan.stores_of(self.chunk, id).is_empty()
                && self.plan.slot(id).is_none()
        };
        let op = self.dag.op(p);
        let grows = p != q && is_vector_op(op) && self.dag.op(q) == op && once(p) && once(q) && {
            self.operands(p, q).1 >= 1
        };
        self.grows.borrow_mut().insert((p, q), grows);
        grows
    }

    /// Whether `p` and `q` are both read by several operations, so that the
    /// vector packing them likely serves several pairs.
    fn is_shared(&self, p: NodeId, q: NodeId) -> bool {
        self.op_uses[p.index()] >= 2 && self.op_uses[q.index()] >= 2
    }

    /// Whether one vector instruction builds `p` and `q`: a splat or a load.
    fn is_cheap(&self, p: NodeId, q: NodeId) -> bool {
        match (self.dag.op(p), self.dag.op(q)) {
            (Op::Input(i), Op::Input(j)) => self.are_neighbours(i, j),
            _ => p == q,
        }
    }

    /// Whether inputs `i` and `j` are next to each other in one part.
    fn are_neighbours(&self, i: u32, j: u32) -> bool {
        j == i + 1 && self.parts.locate(i as usize).0 == self.parts.locate(j as usize).0
    }

    /// The operands of `u` and `v` lane by lane, `[(a, c), (b, d)]` for
    /// `u = a op b` and `v = c op d` (or `d op c` where that fits better),
    /// and how well they fit: 2 per cheap lane, 1 per lane that grows.
    fn operands(&self, u: NodeId, v: NodeId) -> ([(NodeId, NodeId); 2], u32) {
        let [a, b] = [self.dag.args(u)[0], self.dag.args(u)[1]];
        let [c, d] = [self.dag.args(v)[0], self.dag.args(v)[1]];
        // A product's shared operands are typically a matrix row, packed once.
        let product = self.dag.op(u) == Op::Mul;
        let fit = |(p, q): (NodeId, NodeId)| {
            if self.is_cheap(p, q) {
                2
            } else {
                u32::from((product && self.is_shared(p, q)) || self.grows(p, q))
            }
        };
        let cheap = |[x, y]: [(NodeId, NodeId); 2]| fit(x) + fit(y);
        let straight = [(a, c), (b, d)];
        let crossed = [(a, d), (b, c)];
        // x + y and x * y are exactly y + x and y * x.
        if matches!(self.dag.op(u), Op::Add | Op::Mul) && cheap(crossed) > cheap(straight) {
            (crossed, cheap(crossed))
        } else {
            (straight, cheap(straight))
        }
    }

    /// Whether pairing `u` and `v` saves work: some operand vector is cheap
    /// or a pair itself.
    fn is_worth_pairing(&self, u: NodeId, v: NodeId) -> bool {
        self.can_pair(u, v) && self.operands(u, v).1 >= 1
    }

    /// Pairs `u` and `v` (checked by [`can_pair`](Self::can_pair)) and the
    /// operands that can follow; returns the pair's index.
    fn pair(&mut self, u: NodeId, v: NodeId) -> usize {
        let ([(a, c), (b, d)], _) = self.operands(u, v);
        // Claimed before the operands grow, so no operand claims them.
        self.found.lane_of.insert(u, (usize::MAX, 0));
        self.found.lane_of.insert(v, (usize::MAX, 1));
        let args = [self.operand(a, c), self.operand(b, d)];
        let p = self.found.pairs.len();
        self.found.pairs.push(Pair { nodes: [u, v], op: self.dag.op(u), args });
        self.found.lane_of.insert(u, (p, 0));
        self.found.lane_of.insert(v, (p, 1));
        p
    }

    /// The operand vector of `p` in lane 0 and `q` in lane 1.
    fn operand(&mut self, p: NodeId, q: NodeId) -> PairOperand {
        if p == q {
            return PairOperand::Splat(p);
        }
        if let (Op::Input(i), Op::Input(j)) = (self.dag.op(p), self.dag.op(q)) {
            if self.are_neighbours(i, j) {
                return PairOperand::Inputs(i);
            }
        }
        if self.can_grow(p, q) {
            return PairOperand::Pair(self.pair(p, q));
        }
        PairOperand::Scalars(p, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs of a one-chunk kernel computing `outputs`.
    fn pairs_of(dag: &ExprDag, outputs: &[NodeId]) -> ChunkPairs {
        let plan = ChunkPlan::new(dag, outputs, 1000);
        let parts = InputParts::new(&[1 << 20]);
        ChunkPairs::find(dag, &plan, &op_uses(dag, outputs), &parts, 0)
    }

    #[test]
    fn neighbouring_outputs_pair_and_grow_into_their_operands() {
        let mut dag = ExprDag::new();
        let x: Vec<NodeId> = (0..4).map(|k| dag.input(k)).collect();
        // out = [x0*x3 + x2, x3*x1 + x0]: the products pair too, x3 swapped into a splat.
        let p = dag.mul(x[0], x[3]);
        let q = dag.mul(x[3], x[1]);
        let u = dag.add(p, x[2]);
        let v = dag.add(q, x[0]);
        let found = pairs_of(&dag, &[u, v]);
        assert_eq!(found.len(), 2);
        // The DAG may order the arguments of + and *; lanes follow `nodes`.
        let (inner, outer) = (found.pair(0), found.pair(1));
        assert_eq!((inner.nodes, inner.op), ([p, q], Op::Mul));
        assert!(
            inner.args.contains(&PairOperand::Inputs(0)) && inner.args.contains(&PairOperand::Splat(x[3]))
        );
        assert_eq!((outer.nodes, outer.op), ([u, v], Op::Add));
        assert!(
            outer.args.contains(&PairOperand::Pair(0))
                && outer.args.contains(&PairOperand::Scalars(x[2], x[0]))
        );
        assert_eq!(found.lane_of(q), Some((0, 1)));
        assert_eq!(found.lane_of(u), Some((1, 0)));
        assert_eq!(found.lane_of(x[0]), None);
    }

    #[test]
    fn values_other_operations_read_stay_scalar() {
        let mut dag = ExprDag::new();
        let x: Vec<NodeId> = (0..3).map(|k| dag.input(k)).collect();
        let p = dag.mul(x[0], x[1]);
        let q = dag.mul(x[1], x[2]);
        let r = dag.sub(x[0], x[2]);
        let s = dag.add(p, x[2]);
        // p is read by s: [p, q] do not pair; q and r differ in operation.
        assert_eq!(pairs_of(&dag, &[p, q, r, s]).len(), 0);
        // Slots not next to each other do not pair.
        let t = dag.mul(x[0], x[2]);
        assert_eq!(pairs_of(&dag, &[q, r, t]).len(), 0);
        assert_eq!(pairs_of(&dag, &[r, q, t]).len(), 1);
        // Operands stored as outputs themselves stay scalar.
        let a = dag.add(q, x[0]);
        let b = dag.add(t, x[1]);
        let found = pairs_of(&dag, &[a, b, q]);
        assert_eq!(found.len(), 1);
        assert!(found.pair(0).args.contains(&PairOperand::Scalars(q, t)));
        assert!(found.pair(0).args.contains(&PairOperand::Inputs(0)));
    }
}
