//! Oracles over random graphs: every strategy computes the D* Jacobian, the
//! exact optima are never beaten, and Naumann's SEU order is optimal.

use derivative::{factorize, DerivativeGraph, Strategy};
use eliminate::{
    accumulate_graph, costs, scarcity_remainder, seu_plan, Cost, Elimination, LinearizedGraph, Skip,
};
use testkit::{cases, random_elimination, seu_forest, Case, Rng, Tol};

/// The D* Jacobian of `case` at `x`, dense: what every strategy must compute.
fn dstar(case: &Case, x: &[f64]) -> Vec<Vec<f64>> {
    let mut kernel = case.kernel();
    let graph = DerivativeGraph::new(&mut kernel);
    let entries = factorize(kernel.dag_mut(), &graph, Strategy::ALL[0], &|_, _| true);
    let nodes: Vec<frontend::NodeId> = entries.iter().map(|e| e.node).collect();
    let values = frontend::eval(kernel.dag(), &nodes, x);
    let mut dense = vec![vec![0.0; case.num_inputs]; case.outputs.len()];
    for (entry, value) in entries.iter().zip(values) {
        dense[entry.row][entry.col] = value;
    }
    dense
}

/// A random single-expression-use forest whose edges are all nonunit and
/// which has intermediates (see [`seu_forest`]).
fn random_seu(rng: &mut Rng, num_inputs: usize, size: usize, outputs: usize) -> Option<Case> {
    let case = seu_forest(rng, num_inputs, size, outputs)?;
    let (graph, _) = graph_of(&case);
    let nonunit = graph.edges().iter().all(|e| !e.unit);
    (graph.is_single_expression_use() && nonunit && graph.intermediates().count() > 0).then_some(case)
}

/// A random point in `[-1, 1]^n`.
fn point(rng: &mut Rng, n: usize) -> Vec<f64> {
    rng.point(n, -1.0, 1.0)
}

/// Whether two dense matrices agree to a relative `1e-9`.
fn close(a: &[Vec<f64>], b: &[Vec<f64>]) -> bool {
    testkit::rows_close(a, b, Tol::rel(1e-9))
}

fn graph_of(case: &Case) -> (LinearizedGraph, frontend::ExprDag) {
    let mut kernel = frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap();
    let graph = LinearizedGraph::new(&mut kernel);
    let dag = kernel.into_parts().0;
    (graph, dag)
}

#[test]
fn every_strategy_matches_dstar() {
    let mut rng = Rng::new(1);
    for round in 0..cases(80, 2000) {
        let case = random_elimination(&mut rng, 2 + round % 10);
        let (graph, dag) = graph_of(&case);
        let x = point(&mut rng, case.num_inputs);
        let expected = dstar(&case, &x);
        for strategy in Elimination::ALL {
            if strategy == Elimination::SeuOptimal && !graph.is_single_expression_use() {
                continue;
            }
            match accumulate_graph(&graph, dag.clone(), strategy) {
                Ok(done) => {
                    let got = done.eval(&x);
                    assert!(
                        close(&got, &expected),
                        "round {round} {strategy:?}: {got:?} vs {expected:?}\n{graph:?}"
                    );
                }
                Err(Skip::TooManyStates { .. } | Skip::TooManyEdges { .. }) => {}
                Err(skip) => panic!("round {round} {strategy:?} skipped: {skip}"),
            }
        }
    }
}

#[test]
fn optima_are_never_beaten() {
    let mut rng = Rng::new(2);
    let mut face_below_optimum = 0;
    for round in 0..cases(80, 1500) {
        let case = random_elimination(&mut rng, 2 + round % 8);
        let (graph, dag) = graph_of(&case);
        let cost = |s: Elimination| costs(&graph, &dag, s).map(|(c, _)| c);
        let Ok(optimal_edge) = cost(Elimination::OptimalEdge) else { continue };
        let optimal_vertex = cost(Elimination::OptimalVertex).expect("small graphs");
        let mut vertex =
            vec![Elimination::ForwardVertex, Elimination::ReverseVertex, Elimination::MarkowitzVertex];
        if graph.is_single_expression_use() {
            vertex.push(Elimination::SeuOptimal);
        }
        for s in vertex {
            assert!(optimal_vertex <= cost(s).unwrap(), "round {round}: optimal vertex above {s:?}");
        }
        assert!(optimal_edge <= optimal_vertex, "round {round}: vertex elimination is edge elimination");
        for s in [
            Elimination::ForwardEdge,
            Elimination::BackwardEdge,
            Elimination::SeparatorMinCut,
            Elimination::SeparatorNatural,
        ] {
            assert!(optimal_edge <= cost(s).unwrap(), "round {round}: optimal edge above {s:?}");
        }
        // Face elimination is finer than edge elimination and may go below.
        face_below_optimum += usize::from(cost(Elimination::Face).unwrap() < optimal_edge);
    }
    eprintln!("face elimination below the edge optimum on {face_below_optimum} graphs");
}

#[test]
fn seu_order_is_optimal_on_small_seu_graphs() {
    let mut rng = Rng::new(3);
    let mut checked = 0;
    for round in 0..cases(120, 3000) {
        let Some(case) = random_seu(&mut rng, 1 + round % 4, 2 + round % 7, 1 + round % 2) else { continue };
        let (graph, dag) = graph_of(&case);
        let plan = seu_plan(&graph).expect("an SEU graph");
        let seu: Cost = costs(&graph, &dag, Elimination::SeuOptimal).unwrap().0;
        assert_eq!(seu.mults, plan.lower_bound, "round {round}: the order meets the bound");
        let optimal_vertex = costs(&graph, &dag, Elimination::OptimalVertex).unwrap().0;
        assert_eq!(seu, optimal_vertex, "round {round}");
        let Ok((optimal_edge, _)) = costs(&graph, &dag, Elimination::OptimalEdge) else { continue };
        assert_eq!(seu, optimal_edge, "round {round}: SEU vertex order vs metagraph optimum\n{graph:?}");
        checked += 1;
    }
    assert!(checked >= cases(15, 300), "only {checked} SEU graphs checked");
}

#[test]
fn remainder_graphs_multiply_directions() {
    let mut rng = Rng::new(4);
    for round in 0..cases(60, 600) {
        let case = random_elimination(&mut rng, 3 + round % 12);
        let (graph, _) = graph_of(&case);
        let x = point(&mut rng, case.num_inputs);
        let jacobian = dstar(&case, &x);
        let directions: Vec<Vec<f64>> = (0..3).map(|_| point(&mut rng, case.num_inputs)).collect();
        for strategy in
            [Elimination::ScarcityGreedy, Elimination::ScarcityMetropolis, Elimination::ScarcityHybrid]
        {
            let function =
                frontend::Kernel::new(case.dag.clone(), case.outputs.clone(), case.num_inputs).unwrap();
            let remainder = scarcity_remainder(&function, strategy).expect("partial");
            assert!(
                remainder.nonunit_edges() <= graph.nonunit_edges(),
                "round {round}: {strategy:?} made it worse"
            );
            let (products, mults) = remainder.apply(&x, &directions);
            assert_eq!(mults, 3 * remainder.nonunit_edges());
            let expected: Vec<Vec<f64>> = directions
                .iter()
                .map(|v| jacobian.iter().map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum()).collect())
                .collect();
            assert!(close(&products, &expected), "round {round} {strategy:?}: {products:?} vs {expected:?}");
            // The same products as DAG nodes, with one multiplication per
            // nonunit edge and direction at most.
            let kernel = remainder.directions_kernel(directions.len());
            let (dag, nodes) = (kernel.dag(), kernel.roots());
            let mut inputs = x.clone();
            directions.iter().for_each(|v| inputs.extend(v));
            let values = kernel.eval(&inputs);
            let symbolic: Vec<Vec<f64>> = values.chunks(case.outputs.len()).map(<[f64]>::to_vec).collect();
            assert!(close(&symbolic, &expected), "round {round} {strategy:?}: {symbolic:?} vs {expected:?}");
            let reached = dag.reachable(nodes);
            let new_mults = (remainder.dag.len()..dag.len())
                .map(frontend::NodeId::from_index)
                .filter(|&id| reached[id.index()] && dag.op(id) == frontend::Op::Mul)
                .count();
            assert!(new_mults <= 3 * remainder.nonunit_edges(), "round {round}: {new_mults} multiplications");
        }
    }
}

#[test]
fn seu_subgraph_order_is_seu_optimal_on_seu_graphs_and_meets_its_bound_elsewhere() {
    let mut rng = Rng::new(5);
    for round in 0..cases(120, 3000) {
        // On SEU graphs the trees are the whole graph: the same cost as seu_optimal.
        if let Some(case) = random_seu(&mut rng, 1 + round % 4, 3 + round % 40, 1 + round % 3) {
            let (graph, dag) = graph_of(&case);
            let cost = |s| costs(&graph, &dag, s).expect("runs on SEU graphs").0;
            assert_eq!(cost(Elimination::SeuSubgraphs), cost(Elimination::SeuOptimal), "round {round}");
        }
        // Elsewhere the trees of single-use intermediates are eliminated at
        // their lower bound (no nonunit product is spent beyond it).
        let case = random_elimination(&mut rng, 3 + round % 30);
        let (graph, _) = graph_of(&case);
        let plan = eliminate::seu_subgraph_plan(&graph).expect("small graphs");
        let trees = eliminate::vertex::order_cost(&graph, &plan.order);
        assert!(trees.mults <= plan.lower_bound, "round {round}: {trees:?} above {}", plan.lower_bound);
    }
}
