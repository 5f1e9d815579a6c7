//! The published worked examples, as oracles.

use eliminate::metagraph::{metagraph_size, METAGRAPH_STATE_LIMIT};
use eliminate::LinearizedGraph;
use factor::{strategies, Method, StrategyReport};
use frontend::parse_program;

fn report(source: &str) -> Vec<StrategyReport> {
    let program = parse_program(source).expect("valid program");
    strategies(&program.kernel().unwrap())
}

fn find<'a>(reports: &'a [StrategyReport], name: &str) -> &'a StrategyReport {
    reports.iter().find(|r| r.method.name() == name).unwrap_or_else(|| panic!("{name} listed"))
}

fn costs(reports: &[StrategyReport], name: &str) -> (usize, usize) {
    let outcome =
        find(reports, name).outcome.as_ref().unwrap_or_else(|skip| panic!("{name} skipped: {skip}"));
    (outcome.cost.mults, outcome.cost.adds)
}

/// `y = x1*sin(x1)/x2`: vertices x1, x2, v1 = sin(x1), v2 = x1*v1, y = v2/x2;
/// edges c(v1,x1) = cos x1, c(v2,x1) = v1, c(v2,v1) = x1, c(y,v2) = 1/x2,
/// c(y,x2) = -y/x2. Forward: eliminating v1 folds into the existing x1 → v2
/// edge (1 mult, 1 add), then v2 (1 mult) = 2 + 1, the optimum; reverse:
/// v2 first has two predecessors (2 mults), then v1 lands on the new x1 → y
/// edge (1 mult, 1 add) = 3 + 1.
#[test]
fn x1_sin_x1_over_x2() {
    let reports = report("in x1, x2\nout x1*sin(x1)/x2");
    assert_eq!(costs(&reports, "optimal_edge"), (2, 1));
    assert_eq!(costs(&reports, "optimal_vertex"), (2, 1));
    assert_eq!(costs(&reports, "reverse_vertex"), (3, 1));
    assert_eq!(costs(&reports, "forward_vertex"), (2, 1));
}

/// `y = x0*sin(x1)*sin(x1)`: x0, x1, v1 = sin(x1), v2 = x0*v1, y = v2*v1
/// (the shared sin is one vertex): 5 vertices, 5 edges.
#[test]
fn x0_sin_x1_sin_x1() {
    let program = parse_program("in x0, x1\nout x0*sin(x1)*sin(x1)").expect("valid program");
    let graph = LinearizedGraph::new(&mut program.kernel().unwrap());
    assert_eq!((graph.num_vertices(), graph.edges().len()), (5, 5));
    assert_eq!(metagraph_size(&graph, METAGRAPH_STATE_LIMIT), Ok(14));
    let reports = report("in x0, x1\nout x0*sin(x1)*sin(x1)");
    assert_eq!(costs(&reports, "forward_edge"), (4, 1));
    assert_eq!(costs(&reports, "backward_edge"), (3, 1));
    assert_eq!(costs(&reports, "forward_vertex"), (4, 1));
    assert_eq!(costs(&reports, "reverse_vertex"), (3, 1));
    assert_eq!(costs(&reports, "optimal_vertex"), (3, 1));
    assert_eq!(costs(&reports, "optimal_edge"), (3, 1));
}

#[test]
fn report_lists_every_strategy_and_picks_the_cheapest() {
    let program =
        parse_program("in x, y\nt = sin(x*y)\nout t\nout t*x\nout x\nout t").expect("valid program");
    let reports = strategies(&program.kernel().unwrap());
    let names: Vec<&str> = reports.iter().map(|r| r.method.name()).collect();
    for name in [
        "forward_vertex",
        "reverse_vertex",
        "markowitz_vertex",
        "optimal_vertex",
        "forward_edge",
        "backward_edge",
        "optimal_edge",
        "face",
        "scarcity_greedy",
        "scarcity_hybrid",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    assert!(!names.contains(&"seu_optimal"), "t has three uses: not SEU");
    let best =
        factor::cheapest(&frontend::Kernel::new(program.dag.clone(), program.output_nodes(), 2).unwrap());
    let total = |r: &StrategyReport| r.outcome.as_ref().expect("ran").cost.total();
    assert_eq!(total(&best), total(find(&reports, "optimal_edge")));
    // Outputs that are inputs, repeated, or used by other outputs.
    let x = [0.3, -0.7];
    let expected =
        factor::jacobian(frontend::Kernel::new(program.dag.clone(), program.output_nodes(), 2).unwrap())
            .eval(&x)
            .1;
    let Method::Elimination(strategy) = best.method else { panic!("D* is not an elimination: {best:?}") };
    let done = eliminate::accumulate(
        &frontend::Kernel::new(program.dag.clone(), program.output_nodes(), 2).unwrap(),
        strategy,
    )
    .expect("runs");
    assert_eq!(done.eval(&x), expected);
}

#[test]
fn size_guards_skip_exact_strategies() {
    let mut source = String::from("in x\nt0 = sin(x)\n");
    for k in 1..40 {
        source.push_str(&format!("t{k} = sin(t{}) * x\n", k - 1));
    }
    source.push_str("out t39\n");
    let reports = report(&source);
    for name in ["optimal_vertex", "optimal_edge"] {
        assert!(find(&reports, name).outcome.is_err(), "{name} should be over its guard");
    }
}
