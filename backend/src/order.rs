//! The orders a kernel's operations may run in: id order, or depth first
//! from the outputs (taken first to last, or last to first); in all,
//! `sin(a)` and `cos(a)` sit side by side where `sincos` is available, so
//! one call computes both. The chunk plan ([`crate::chunk`]) picks among
//! them by counting the values each would hand from chunk to chunk; the
//! function compiled first ([`crate::function_first`]) runs depth first.
//!
//! The orders walk [`Operations`], the reached operations numbered in id
//! order with their operation arguments in flat arrays: a kernel of
//! millions of operations is walked several times, and the DAG's nodes
//! (with their leaves) are several times larger.

use crate::sincos;
use frontend::{ExprDag, NodeId};

const NONE: u32 = u32::MAX;

/// The operations some outputs reach (non-leaf nodes), numbered in id
/// order, which is topological.
pub(crate) struct Operations {
    /// By number: the node.
    pub(crate) ids: Vec<NodeId>,
    /// By number: the number of the sin/cos partner where `sincos` is
    /// available and the partner is reached; else `NONE`.
    partner: Vec<u32>,
    /// Operation `i`'s operation arguments (leaves left out), by number:
    /// `args[start[i]..start[i + 1]]`, in the DAG's order, repeats kept.
    start: Vec<u32>,
    args: Vec<u32>,
    /// The outputs that are operations, by number, in order (repeats kept).
    roots: Vec<u32>,
}

impl Operations {
    /// The operations `reach` marks (the nodes `outputs` reach).
    pub(crate) fn new(dag: &ExprDag, outputs: &[NodeId], reach: &[bool]) -> Operations {
        let is_op = |id: NodeId| reach[id.index()] && !dag.op(id).is_leaf();
        let mut number = vec![NONE; dag.len()];
        let mut ids = Vec::new();
        for id in dag.ids().filter(|&id| is_op(id)) {
            number[id.index()] = ids.len() as u32;
            ids.push(id);
        }
        let mut start = Vec::with_capacity(ids.len() + 1);
        let mut args = Vec::with_capacity(2 * ids.len());
        start.push(0);
        for &id in &ids {
            args.extend(dag.args(id).iter().map(|a| number[a.index()]).filter(|&a| a != NONE));
            start.push(args.len() as u32);
        }
        let partner = ids
            .iter()
            .map(|&id| match sincos::partner(dag, id) {
                Some(p) if sincos::AVAILABLE => number[p.index()],
                _ => NONE,
            })
            .collect();
        let roots = outputs.iter().map(|r| number[r.index()]).filter(|&r| r != NONE).collect();
        Operations { ids, partner, start, args, roots }
    }

    /// Number of operations.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The nodes of `order`.
    pub(crate) fn nodes(&self, order: &[u32]) -> Vec<NodeId> {
        order.iter().map(|&i| self.ids[i as usize]).collect()
    }

    fn args(&self, i: u32) -> &[u32] {
        &self.args[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }

    /// Id order, except that the later of each sin/cos pair follows the earlier.
    pub(crate) fn by_id(&self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.len());
        let mut moved_up = vec![false; self.len()];
        for i in 0..self.len() as u32 {
            if moved_up[i as usize] {
                continue;
            }
            order.push(i);
            let p = self.partner[i as usize];
            if p != NONE && p > i {
                order.push(p);
                moved_up[p as usize] = true;
            }
        }
        order
    }

    /// Depth-first post-order from the outputs, first to last (or last to
    /// first if `reversed`), each output's operations together, so that a
    /// value lives from its computation to its uses a short way apart.
    pub(crate) fn depth_first(&self, reversed: bool) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.len());
        let mut seen = vec![false; self.len()];
        let mut stack: Vec<(u32, u32)> = Vec::new();
        let roots: &mut dyn Iterator<Item = &u32> =
            if reversed { &mut self.roots.iter().rev() } else { &mut self.roots.iter() };
        for &root in roots {
            if seen[root as usize] {
                continue;
            }
            seen[root as usize] = true;
            stack.push((root, self.start[root as usize]));
            while let Some((i, next)) = stack.last_mut() {
                if *next < self.start[*i as usize + 1] {
                    let child = self.args[*next as usize];
                    *next += 1;
                    if !seen[child as usize] {
                        seen[child as usize] = true;
                        stack.push((child, self.start[child as usize]));
                    }
                    continue;
                }
                let i = *i;
                stack.pop();
                order.push(i);
                let p = self.partner[i as usize];
                if p != NONE && !seen[p as usize] {
                    // Its only argument is `i`'s, computed already.
                    seen[p as usize] = true;
                    order.push(p);
                }
            }
        }
        order
    }

    /// How many times a chunk would load a value an earlier chunk stored,
    /// with `order` cut into chunks of `chunk_size` (one more where a chunk
    /// would end between sin/cos partners), as [`crate::chunk`] cuts it.
    pub(crate) fn crossings(&self, order: &[u32], chunk_size: usize) -> usize {
        let mut chunk_of = vec![NONE; self.len()];
        let mut loaded_by = vec![NONE; self.len()];
        let mut crossings = 0;
        let mut start = 0;
        let mut c = 0;
        while start < order.len() {
            let end =
                chunk_end(start, chunk_size, order.len(), |a, b| self.partner[order[a] as usize] == order[b]);
            for &i in &order[start..end] {
                chunk_of[i as usize] = c;
            }
            for &i in &order[start..end] {
                for &a in self.args(i) {
                    if chunk_of[a as usize] != c && loaded_by[a as usize] != c {
                        loaded_by[a as usize] = c;
                        crossings += 1;
                    }
                }
            }
            start = end;
            c += 1;
        }
        crossings
    }
}

/// Where the chunk of an order starting at `start` ends: `chunk_size`
/// operations on, at most `limit`, and one more where it would end between
/// sin/cos partners (`partners(end - 1, end)`, positions in the order).
pub(crate) fn chunk_end(
    start: usize,
    chunk_size: usize,
    limit: usize,
    partners: impl Fn(usize, usize) -> bool,
) -> usize {
    let end = (start + chunk_size).min(limit);
    if end < limit && partners(end - 1, end) {
        end + 1
    } else {
        end
    }
}

/// The operations `outputs` reach (`reach`), depth first from the outputs
/// (see [`Operations::depth_first`]).
pub(crate) fn depth_first(dag: &ExprDag, outputs: &[NodeId], reach: &[bool]) -> Vec<NodeId> {
    let ops = Operations::new(dag, outputs, reach);
    ops.nodes(&ops.depth_first(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` products of input pairs, then their sum, in one kernel.
    fn products_then_sum(n: usize) -> (ExprDag, NodeId) {
        let mut dag = ExprDag::new();
        let products: Vec<NodeId> = (0..n)
            .map(|i| {
                let (a, b) = (dag.input(2 * i), dag.input(2 * i + 1));
                dag.mul(a, b)
            })
            .collect();
        let sum = products[1..].iter().fold(products[0], |s, &p| dag.add(s, p));
        (dag, sum)
    }

    #[test]
    fn values_read_by_later_chunks_cross() {
        let (dag, sum) = products_then_sum(20);
        let ops = Operations::new(&dag, &[sum], &dag.reachable(&[sum]));
        // One chunk hands nothing on.
        assert_eq!(ops.crossings(&ops.by_id(), 100), 0);
        // In id order and chunks of 10, the products fill two chunks and the
        // sums two more, which load 11 and 10 values (the last also the
        // tenth sum).
        assert_eq!(ops.crossings(&ops.by_id(), 10), 21);
        // Adding each product as it is made (numbers: products 0-19, sums
        // 20-38), at each of the 3 boundaries the running sum and the next
        // product cross.
        let interleaved: Vec<u32> =
            [0, 1].into_iter().chain((2..20).flat_map(|k| [18 + k, k])).chain([38]).collect();
        assert_eq!(ops.crossings(&interleaved, 10), 6);
    }

    #[test]
    fn a_chain_hands_on_one_value_per_chunk() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let mut v = x;
        for _ in 0..1000 {
            v = dag.mul(v, x);
            v = dag.add(v, x);
        }
        let ops = Operations::new(&dag, &[v], &dag.reachable(&[v]));
        for order in [ops.by_id(), ops.depth_first(false), ops.depth_first(true)] {
            assert_eq!(ops.crossings(&order, 64), 2000 / 64);
        }
    }
}
