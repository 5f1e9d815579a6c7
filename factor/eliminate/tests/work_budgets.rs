//! Issue 35: a strategy whose work outgrows its graph stops at a budget
//! counted in its own steps and is skipped, instead of running for minutes.
//!
//! Single shooting (`a_k = a_{k-1} + 0.1·b_{k-1}`, `b_k = b_{k-1} +
//! 0.1·(u_{k-1} − sin a_{k-1})`) under greedy face elimination: the faces
//! multiply along the chain, and the order's heap took 2·10^6 pushes at 40
//! steps (× 4.5 every 10 steps). Short chains and every corpus problem stay
//! well within the budget.

use eliminate::{costs, Elimination, LinearizedGraph, Skip};

fn shooting(steps: usize) -> String {
    let controls: Vec<String> = (0..steps).map(|k| format!("u{k}")).collect();
    let mut source = format!("in a0, b0, {}\n", controls.join(", "));
    for k in 1..=steps {
        source += &format!("a{k} = a{} + 0.1*b{}\n", k - 1, k - 1);
        source += &format!("b{k} = b{} + 0.1*(u{} - sin(a{}))\n", k - 1, k - 1, k - 1);
    }
    source + &format!("out y1 = a{steps}\nout y2 = b{steps}\n")
}

fn face(source: &str) -> Result<(eliminate::Cost, usize), Skip> {
    let program = frontend::parse_program(source).expect("a valid program");
    let mut kernel = program.kernel().expect("a kernel");
    let graph = LinearizedGraph::new(&mut kernel);
    costs(&graph, kernel.dag(), Elimination::Face)
}

#[test]
fn face_elimination_stops_at_its_budget_on_long_chains() {
    assert!(face(&shooting(8)).is_ok());
    for steps in [40, 80] {
        let skipped = face(&shooting(steps));
        assert!(matches!(skipped, Err(Skip::OverBudget { .. })), "{steps} steps: {skipped:?}");
    }
}

#[test]
fn face_elimination_runs_on_every_corpus_problem_within_its_budget() {
    for problem in testkit::corpus() {
        let mut kernel = problem.program.kernel().expect("a kernel");
        let graph = LinearizedGraph::new(&mut kernel);
        if graph.edges().len() > 1 << 10 {
            continue; // the plan never runs face elimination there (FACE_EDGE_LIMIT)
        }
        let result = costs(&graph, kernel.dag(), Elimination::Face);
        assert!(result.is_ok(), "{}: {result:?}", problem.name);
    }
}

/// One input feeding `n` outputs (`sin(c·s) + c·s·s`, `s = exp(x/10)`):
/// the greedy scarcity heuristic rescores every edge of `s` after each
/// move and stops at its queue's bound (`GREEDY_QUEUE_PER_EDGE`: after 106
/// moves at 200 outputs, 25 at 5,000), and the remainder `J·v` kernels are
/// built from is still one nonunit edge per output.
#[test]
fn scarcity_on_one_input_feeding_thousands_of_outputs_keeps_one_edge_per_output() {
    for n in [200, 5000] {
        let mut source = String::from("in x\ns = exp(0.1*x)\n");
        for i in 0..n {
            let c = 0.5 + i as f64 / n as f64;
            source += &format!("out y{i} = sin({c:?}*s) + {c:?}*s*s\n");
        }
        let program = frontend::parse_program(&source).expect("a valid program");
        let kernel = program.kernel().expect("a kernel");
        let remainder = eliminate::scarcity_remainder(&kernel, Elimination::ScarcityHybrid)
            .expect("a partial elimination");
        assert_eq!(remainder.nonunit_edges(), n, "{n} outputs");
    }
}
