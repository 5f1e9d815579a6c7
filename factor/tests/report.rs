//! `strategies` lists every accumulation and `cheapest` picks the cheapest,
//! whose Jacobian is the default's.

use factor::{strategies, Method, StrategyReport};
use frontend::parse_program;

fn find<'a>(reports: &'a [StrategyReport], name: &str) -> &'a StrategyReport {
    reports.iter().find(|r| r.method.name() == name).unwrap_or_else(|| panic!("{name} listed"))
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
