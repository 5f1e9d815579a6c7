//! The derivative graph as Graphviz text.

use crate::Error;
use factor::DerivativeGraph;
use frontend::{print_expr, ExprDag, NodeId, Op, Program};
use std::fmt::Write;

/// The derivative graph of `program`'s outputs with respect to its inputs,
/// in Graphviz `dot` syntax: one box per node, one arrow per edge (two
/// arrows for `x*x`), labeled with its local partial. Parameters are no
/// nodes of it; the partials name them.
///
/// # Errors
/// [`Error::InvalidKernel`] for a hand-built program whose outputs read an
/// input it does not declare.
pub fn derivative_graph_dot(program: &Program) -> Result<String, Error> {
    let mut kernel = program.kernel()?;
    let graph = DerivativeGraph::new(&mut kernel);
    let (dag, roots) = (kernel.dag(), program.output_nodes());
    let (inputs, output_names) = (&program.leaves(), program.output_names());
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
        let mut text = label(dag, id);
        for (r, name) in roots.iter().zip(&output_names) {
            if *r == id {
                text = format!("{name} = {text}");
            }
        }
        let _ = writeln!(s, "  n{} [label=\"{text}\"];", id.index());
    }
    for e in graph.edges() {
        let partial = print_expr(dag, e.label, inputs).replace('"', "\\\"");
        let _ = writeln!(s, "  n{} -> n{} [label=\"{partial}\"];", e.child.index(), e.parent.index());
    }
    s.push_str("}\n");
    Ok(s)
}
