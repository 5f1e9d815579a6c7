//! The derivative graph as Graphviz text.

use factor::DerivativeGraph;
use frontend::{print_expr, ExprDag, NodeId, Op};
use std::fmt::Write;

/// The derivative graph of `roots` (named `output_names`) with respect to
/// inputs named `inputs`, in Graphviz `dot` syntax: one box per node, one
/// arrow per edge (two arrows for `x*x`), labeled with its local partial.
pub fn derivative_graph_dot(
    dag: &ExprDag,
    roots: &[NodeId],
    inputs: &[String],
    output_names: &[String],
) -> String {
    let mut dag = dag.clone();
    let graph = DerivativeGraph::new(&mut dag, roots, inputs.len());
    let mut s =
        String::from("digraph derivative {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n");
    let label = |dag: &ExprDag, id: NodeId| -> String {
        let text = match dag.op(id) {
            Op::Input(k) => inputs[k as usize].clone(),
            op if op.is_leaf() => print_expr(dag, id, inputs),
            op => op.name().to_string(),
        };
        text.replace('\\', "\\\\").replace('"', "\\\"")
    };
    for id in dag.ids().filter(|id| graph.contains(*id)) {
        let mut text = label(&dag, id);
        for (r, name) in roots.iter().zip(output_names) {
            if *r == id {
                text = format!("{name} = {text}");
            }
        }
        let _ = writeln!(s, "  n{} [label=\"{text}\"];", id.index());
    }
    for e in graph.edges() {
        let partial = print_expr(&dag, e.label, inputs).replace('"', "\\\"");
        let _ = writeln!(s, "  n{} -> n{} [label=\"{partial}\"];", e.child.index(), e.parent.index());
    }
    s.push_str("}\n");
    s
}
