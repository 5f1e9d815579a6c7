//! The published worked examples, as oracles.

use eliminate::metagraph::{metagraph_size, METAGRAPH_STATE_LIMIT};
use eliminate::{costs as elimination_costs, Cost, Elimination, LinearizedGraph, Skip};
use frontend::parse_program;

/// What each strategy costs on the program, as `dstar elim` lists them.
fn report(source: &str) -> Vec<(Elimination, Result<Cost, Skip>)> {
    let program = parse_program(source).expect("valid program");
    let mut kernel = program.kernel().unwrap();
    let graph = LinearizedGraph::new(&mut kernel);
    Elimination::ALL
        .iter()
        .map(|&s| (s, elimination_costs(&graph, kernel.dag(), s).map(|(c, _)| c)))
        .collect()
}

fn find<'a>(reports: &'a [(Elimination, Result<Cost, Skip>)], name: &str) -> &'a Result<Cost, Skip> {
    &reports.iter().find(|r| r.0.name() == name).unwrap_or_else(|| panic!("{name} listed")).1
}

fn costs(reports: &[(Elimination, Result<Cost, Skip>)], name: &str) -> (usize, usize) {
    let cost = find(reports, name).as_ref().unwrap_or_else(|skip| panic!("{name} skipped: {skip}"));
    (cost.mults, cost.adds)
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
fn size_guards_skip_exact_strategies() {
    let mut source = String::from("in x\nt0 = sin(x)\n");
    for k in 1..40 {
        source.push_str(&format!("t{k} = sin(t{}) * x\n", k - 1));
    }
    source.push_str("out t39\n");
    let reports = report(&source);
    for name in ["optimal_vertex", "optimal_edge"] {
        assert!(find(&reports, name).is_err(), "{name} should be over its guard");
    }
}
