//! Random programs for the oracles: small DAGs of domain-safe operations,
//! and single-expression-use forests.

#![allow(dead_code)]

use eliminate::rng::Rng;
use frontend::{ExprDag, NodeId, Op};

/// A function: its DAG, outputs and number of inputs.
pub struct Case {
    pub dag: ExprDag,
    pub outputs: Vec<NodeId>,
    pub num_inputs: usize,
}

/// A random DAG of `ops` operations over up to 4 inputs, mixing unit
/// (`+ - neg`) and nonunit edges, with outputs that may be inputs,
/// repeated, or used by other nodes.
pub fn random_case(rng: &mut Rng, ops: usize) -> Case {
    let mut dag = ExprDag::new();
    let num_inputs = 1 + rng.below(4);
    let mut nodes: Vec<NodeId> = (0..num_inputs).map(|k| dag.input(k)).collect();
    for _ in 0..ops {
        let pick = |rng: &mut Rng, nodes: &[NodeId]| {
            // Favour recent nodes so that graphs are deep, not flat.
            let back = rng.below(nodes.len().min(4) + 1).min(nodes.len() - 1);
            if rng.below(3) == 0 {
                nodes[rng.below(nodes.len())]
            } else {
                nodes[nodes.len() - 1 - back]
            }
        };
        let a = pick(rng, &nodes);
        let b = pick(rng, &nodes);
        let node = match rng.below(9) {
            0 => dag.add(a, b),
            1 => dag.sub(a, b),
            2 | 3 => dag.mul(a, b),
            4 => dag.apply(Op::Sin, &[a]),
            5 => dag.apply(Op::Cos, &[a]),
            6 => dag.neg(a),
            7 => dag.apply(Op::Tanh, &[a]),
            _ => {
                let c = dag.constant(2.5);
                dag.mul(c, a)
            }
        };
        if !dag.op(node).is_leaf() && !nodes.contains(&node) {
            nodes.push(node);
        }
    }
    let count = 1 + rng.below(3);
    let mut outputs: Vec<NodeId> =
        (0..count).map(|_| nodes[nodes.len() - 1 - rng.below(nodes.len().min(5))]).collect();
    outputs[0] = *nodes.last().expect("nonempty");
    Case { dag, outputs, num_inputs }
}

/// A random single-expression-use forest: `outputs` trees of about
/// `size` operations in total, whose leaves are inputs (reused freely) and
/// whose every operation is used once. Only nonunit operations (`*`, `sin`,
/// `cos`, `atan`, `tanh`) so that the Markowitz counts are the literature's.
/// Returns `None` if hash-consing merged two subtrees (then some
/// intermediate has two uses).
pub fn random_seu(rng: &mut Rng, num_inputs: usize, size: usize, outputs: usize) -> Option<Case> {
    let mut dag = ExprDag::new();
    let inputs: Vec<NodeId> = (0..num_inputs).map(|k| dag.input(k)).collect();
    let mut roots = Vec::new();
    for t in 0..outputs {
        let ops = size / outputs + usize::from(t < size % outputs);
        // Open subtrees: each is used by exactly one later operation.
        let mut open: Vec<NodeId> = Vec::new();
        let mut made = 0;
        let mut attempts = 0;
        while made < ops.max(1) && attempts < 20 * ops.max(1) {
            attempts += 1;
            // Each operand is an open subtree (used here, once) or an input.
            let take = |rng: &mut Rng, open: &mut Vec<NodeId>, taken: &mut Vec<NodeId>| {
                if !open.is_empty() && rng.below(3) != 0 {
                    let node = open.swap_remove(rng.below(open.len()));
                    taken.push(node);
                    node
                } else {
                    inputs[rng.below(inputs.len())]
                }
            };
            let mut taken = Vec::new();
            let before = dag.len();
            let node = if rng.below(2) == 0 {
                let a = take(rng, &mut open, &mut taken);
                let b = take(rng, &mut open, &mut taken);
                dag.mul(a, b)
            } else {
                let a = take(rng, &mut open, &mut taken);
                let op = [Op::Sin, Op::Cos, Op::Atan, Op::Tanh][rng.below(4)];
                dag.apply(op, &[a])
            };
            if dag.len() == before {
                // Hash-consing found this subexpression already: a second use. Undo.
                open.extend(taken);
                continue;
            }
            open.push(node);
            made += 1;
        }
        while open.len() > 1 {
            let a = open.swap_remove(rng.below(open.len()));
            let b = open.swap_remove(rng.below(open.len()));
            open.push(dag.mul(a, b));
        }
        // Every attempt repeated an earlier subtree: no tree to root here.
        roots.push(*open.first()?);
    }
    let case = Case { dag, outputs: roots, num_inputs };
    let mut kernel = frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), num_inputs).unwrap();
    let graph = eliminate::LinearizedGraph::new(&mut kernel);
    let nonunit = graph.edges().iter().all(|e| !e.unit);
    (graph.is_single_expression_use() && nonunit && graph.intermediates().count() > 0).then_some(case)
}

/// A random point in `[-1, 1]^n`.
pub fn point(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.range(-1.0, 1.0)).collect()
}

/// Whether two dense matrices agree to a relative `1e-9`.
pub fn close(a: &[Vec<f64>], b: &[Vec<f64>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(r, s)| {
            r.len() == s.len()
                && r.iter().zip(s).all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + x.abs().max(y.abs())))
        })
}

/// How many random cases to try: a short run always, a long one with `DSTAR_LONG=1`.
pub fn cases(short: usize, long: usize) -> usize {
    if std::env::var_os("DSTAR_LONG").is_some() {
        long
    } else {
        short
    }
}
