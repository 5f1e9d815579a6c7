//! `ExprDag → EGraph` and back. Each DAG node becomes one e-node, so the
//! e-graph starts with exactly the DAG's sharing.

use crate::analysis::{ConstantFold, OpGraph};
use crate::language::OpNode;
use egg::{EGraph, Id, Language};
use frontend::{ExprDag, NodeId};

/// The e-graph of the nodes that `roots` reach, and the roots' classes.
pub fn to_egraph(dag: &ExprDag, roots: &[NodeId]) -> (OpGraph, Vec<Id>) {
    let reach = dag.reachable(roots);
    let mut egraph = EGraph::new(ConstantFold);
    let mut class = vec![Id::from(0); dag.len()];
    let mut children = Vec::with_capacity(4);
    for id in dag.ids().filter(|id| reach[id.index()]) {
        children.clear();
        children.extend(dag.args(id).iter().map(|a| class[a.index()]));
        class[id.index()] = egraph.add(OpNode::new(dag.op(id), &children));
    }
    egraph.rebuild();
    let roots = roots.iter().map(|r| egraph.find(class[r.index()])).collect();
    (egraph, roots)
}

/// One chosen e-node per e-class, indexed by class id; `order` lists the
/// chosen classes children first.
#[derive(Debug)]
pub struct Selection {
    /// `chosen[class]` is the e-node that computes class `class`.
    pub chosen: Vec<Option<OpNode>>,
    /// The classes with a chosen node, each after its chosen children.
    pub order: Vec<Id>,
}

impl Selection {
    /// Marks the classes that `roots` need under this selection.
    pub fn reachable(&self, egraph: &OpGraph, roots: &[Id]) -> Vec<bool> {
        let mut reach = vec![false; self.chosen.len()];
        for r in roots {
            reach[usize::from(egraph.find(*r))] = true;
        }
        for class in self.order.iter().rev() {
            if reach[usize::from(*class)] {
                let node = self.chosen[usize::from(*class)].as_ref().expect("ordered classes are chosen");
                for child in node.children() {
                    reach[usize::from(egraph.find(*child))] = true;
                }
            }
        }
        reach
    }

    /// Operations the roots need: chosen non-leaf nodes, each class once, as
    /// [`ExprDag::count_ops`] counts them.
    pub fn count_ops(&self, egraph: &OpGraph, roots: &[Id]) -> usize {
        let reach = self.reachable(egraph, roots);
        self.order
            .iter()
            .filter(|c| reach[usize::from(**c)])
            .filter(|c| !self.chosen[usize::from(**c)].is_some_and(|n| n.op().is_leaf()))
            .count()
    }

    /// A fresh DAG computing `roots` with the chosen nodes, its first nodes
    /// the inputs `0..num_inputs`, and the roots' ids in it.
    pub fn to_dag(&self, egraph: &OpGraph, roots: &[Id], num_inputs: usize) -> (ExprDag, Vec<NodeId>) {
        let reach = self.reachable(egraph, roots);
        let mut dag = ExprDag::new();
        dag.reserve(self.order.len());
        for k in 0..num_inputs {
            dag.input(k);
        }
        let mut node_of = vec![None; self.chosen.len()];
        let mut args = Vec::with_capacity(4);
        for class in self.order.iter().filter(|c| reach[usize::from(**c)]) {
            let node = self.chosen[usize::from(*class)].expect("ordered classes are chosen");
            args.clear();
            args.extend(
                node.children()
                    .iter()
                    .map(|c| node_of[usize::from(egraph.find(*c))].expect("children come first")),
            );
            node_of[usize::from(*class)] = Some(dag.apply(node.op(), &args));
        }
        let roots =
            roots.iter().map(|r| node_of[usize::from(egraph.find(*r))].expect("roots are chosen")).collect();
        (dag, roots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::Op;

    #[test]
    fn each_dag_node_becomes_one_enode() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let p = dag.mul(x, y);
        let s = dag.apply(Op::Sin, &[p]);
        let t = dag.add(s, p);
        dag.apply(Op::Cos, &[x]); // unreachable: not added
        let (egraph, roots) = to_egraph(&dag, &[t, s]);
        assert_eq!(egraph.total_number_of_nodes(), 5);
        assert_eq!(roots.len(), 2);
    }
}
