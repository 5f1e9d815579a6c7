//! Inputs need not come first in the DAG: an expression parsed as text
//! creates each variable where it first appears (`x*x*y` makes `y` after
//! `x*x`). Every Hessian method and the Jacobian give the same values on
//! generated programs rebuilt with their inputs created lazily, at first
//! use, as on the originals (edge pushing panicked with "only inputs
//! remain" on such DAGs).

use factor::{hessian_with, lagrangian_hessian, HessianMethod, Weights};
use frontend::{ExprDag, Kernel, Node, NodeId, Op};
use testkit::{close, with_seed, Shape, Tol};

/// `kernel` rebuilt so that each input node is created just before the
/// first node that reads it.
fn inputs_late(kernel: &Kernel) -> Kernel {
    let old = kernel.dag();
    let mut dag = ExprDag::new();
    let mut map: Vec<Option<NodeId>> = vec![None; old.len()];
    let get = |dag: &mut ExprDag, map: &mut Vec<Option<NodeId>>, id: NodeId| -> NodeId {
        if let Some(new) = map[id.index()] {
            return new;
        }
        let Op::Input(k) = old.op(id) else { unreachable!("non-inputs are mapped in id order") };
        let new = dag.input(k as usize);
        map[id.index()] = Some(new);
        new
    };
    for id in old.ids() {
        if matches!(old.op(id), Op::Input(_)) {
            continue;
        }
        let node = old.node(id);
        let args: Vec<NodeId> = node.args().iter().map(|&a| get(&mut dag, &mut map, a)).collect();
        map[id.index()] = Some(dag.intern(Node::new(node.op, &args)));
    }
    let roots = kernel.roots().iter().map(|&r| get(&mut dag, &mut map, r)).collect();
    Kernel::new(dag, roots, kernel.num_inputs()).expect("the same inputs")
}

#[test]
fn the_example_of_the_report() {
    let program = frontend::parse_expr("x*x*y").unwrap();
    let hessian = lagrangian_hessian(program.kernel().unwrap());
    // H = [[2y, 2x], [2x, 0]] at (3, 5), weight 1.
    let (_, _, h) = hessian.eval(&[3.0, 5.0, 1.0]);
    assert_eq!(h, vec![vec![10.0, 6.0], vec![6.0, 0.0]]);
}

#[test]
fn every_hessian_method_agrees_with_inputs_created_late() {
    let mut late_first = 0;
    for seed in 0..300 {
        let case =
            with_seed(seed, &Shape::calculus(1 + (seed as usize % 4), 1 + (seed as usize % 3), 25, 0.5));
        let kernel = case.kernel();
        let late = inputs_late(&kernel);
        let n = kernel.num_inputs();
        let is_input = |id: NodeId| matches!(late.dag().op(id), Op::Input(_));
        let first_operation = late.dag().ids().find(|&id| !is_input(id));
        if first_operation.is_some_and(|op| late.dag().ids().any(|id| is_input(id) && id > op)) {
            late_first += 1;
        }
        let mut input = case.point.clone();
        input.extend((0..kernel.roots().len()).map(|i| 0.5 + i as f64));
        let methods = [HessianMethod::EdgePushing]
            .into_iter()
            .chain(derivative::Strategy::ALL.into_iter().map(HessianMethod::DstarOnGradient));
        for method in methods {
            let want = hessian_with(kernel.clone(), Weights::Inputs, method).eval(&input);
            let got = hessian_with(late.clone(), Weights::Inputs, method).eval(&input);
            let what = format!("seed {seed} {}", method.name());
            for (a, b) in got.2.iter().flatten().zip(want.2.iter().flatten()) {
                assert!(close(*a, *b, Tol { rel: 1e-10, abs: 1e-12 }), "{what}: {a} vs {b}");
            }
            assert_eq!(got.2.len(), n, "{what}");
        }
        let want = factor::jacobian(kernel.clone()).kernel().eval(&case.point);
        let got = factor::jacobian(late).kernel().eval(&case.point);
        for (a, b) in got.iter().zip(&want) {
            assert!(close(*a, *b, Tol { rel: 1e-10, abs: 1e-12 }), "seed {seed} jacobian: {a} vs {b}");
        }
    }
    assert!(late_first > 200, "most rebuilt cases create an input after an operation: {late_first}");
}
