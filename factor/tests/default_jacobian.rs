//! The plan over random graphs: the default Jacobian is the cheapest of D*
//! and the competing eliminations, and computes D*'s values.

use eliminate::{accumulate_graph, LinearizedGraph};
use testkit::{cases, random_elimination, Case, Rng, Tol};

fn graph_of(case: &Case) -> (LinearizedGraph, frontend::ExprDag) {
    let mut kernel = case.kernel();
    let graph = LinearizedGraph::new(&mut kernel);
    let dag = kernel.into_parts().0;
    (graph, dag)
}

#[test]
fn the_default_jacobian_is_the_cheapest_of_dstar_and_the_eliminations() {
    let mut rng = Rng::new(6);
    let mut eliminations_won = 0;
    for round in 0..cases(80, 1500) {
        let case = random_elimination(&mut rng, 3 + round % 40);
        let default = factor::jacobian(
            frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
        );
        let dstar = factor::dstar_jacobian(
            frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
        );
        let (graph, dag) = graph_of(&case);
        let best = factor::cheapest_elimination(&graph, &dag).expect("small graphs compete");
        let elimination = accumulate_graph(&graph, dag, best).expect("the cheapest one runs");
        let kernel: Vec<_> =
            case.outputs.iter().copied().chain(elimination.entries().iter().map(|e| e.node)).collect();
        let expected = dstar.jacobian_ops().min(elimination.dag.count_ops(&kernel));
        assert_eq!(default.jacobian_ops(), expected, "round {round}: {:?}", default.method());
        eliminations_won += usize::from(matches!(default.method(), factor::Method::Elimination(_)));
        let x = rng.point(case.num_inputs, -1.0, 1.0);
        assert!(testkit::rows_close(&default.eval(&x).1, &dstar.eval(&x).1, Tol::rel(1e-9)), "round {round}");
    }
    assert!(eliminations_won > 0, "some random graph is cheaper by elimination");
}
