//! Measurements for issue 7: SEU-optimal vs forward/reverse vertex
//! elimination on random SEU graphs, scarcity hybrid vs greedy on the
//! corpus and random graphs, separator memory, every strategy on the
//! corpus, and what the default Jacobian picks. `cargo run --release -p dstar-factor --example eliminate_measure [corpus|seu|default|scarcity|separators]`.

use eliminate::{
    accumulate_separated, costs, min_cut_separator, natural_separator, seu_plan, Elimination, LinearizedGraph,
};
use std::time::Instant;
use testkit::{random_elimination, seu_forest, Case, Rng};

/// Every corpus problem with its name.
fn corpus() -> Vec<(String, frontend::Program)> {
    testkit::corpus().into_iter().map(|p| (p.name, p.program)).collect()
}

/// A random single-expression-use forest with nonunit edges only.
fn random_seu(rng: &mut Rng, num_inputs: usize, size: usize, outputs: usize) -> Option<Case> {
    let case = seu_forest(rng, num_inputs, size, outputs)?;
    let mut kernel = case.kernel();
    let graph = LinearizedGraph::new(&mut kernel);
    let nonunit = graph.edges().iter().all(|e| !e.unit);
    (graph.is_single_expression_use() && nonunit && graph.intermediates().count() > 0).then_some(case)
}

fn graph_of(program: &frontend::Program) -> (LinearizedGraph, frontend::ExprDag) {
    let mut kernel =
        frontend::Kernel::new(program.dag.clone(), program.output_nodes(), program.inputs.len()).unwrap();
    let graph = LinearizedGraph::new(&mut kernel);
    let dag = kernel.into_parts().0;
    (graph, dag)
}

fn all_strategies() {
    println!(
        "== every strategy on the corpus: mults+adds (nonunit edges); dstar = D* ops beyond the function"
    );
    for (name, program) in corpus() {
        let start = Instant::now();
        let reports = factor::strategies(
            &frontend::Kernel::new(program.dag.clone(), program.output_nodes(), program.inputs.len())
                .unwrap(),
        );
        let jacobian = factor::jacobian(program.kernel().unwrap());
        let dstar = jacobian.jacobian_ops() - jacobian.function_ops();
        let (graph, _) = graph_of(&program);
        print!("{name} (V={} E={} dstar={dstar}):", graph.num_vertices(), graph.edges().len());
        for r in reports {
            match r.outcome {
                Err(_) => print!(" {}=skip", r.method),
                Ok(o) => print!(" {}={}+{}({})", r.method, o.cost.mults, o.cost.adds, o.nonunit_edges),
            }
        }
        println!("  [{:.2?}]", start.elapsed());
    }
}

fn seu() {
    println!("== random SEU graphs: mults of seu_optimal vs forward and reverse vertex elimination");
    let mut rng = Rng::new(11);
    for target in [50usize, 100, 150, 200] {
        let (mut seu_sum, mut fwd_sum, mut rev_sum, mut graphs) = (0usize, 0usize, 0usize, 0usize);
        let (mut max_fwd, mut max_rev): (f64, f64) = (1.0, 1.0);
        let mut tries = 0;
        while graphs < 20 && tries < 10_000 {
            tries += 1;
            let inputs = 4 + rng.below(12);
            let outputs = 1 + rng.below(3);
            let Some(case) = random_seu(&mut rng, inputs, target - inputs, outputs) else {
                continue;
            };
            let mut kernel =
                frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap();
            let graph = LinearizedGraph::new(&mut kernel);
            let dag = kernel.into_parts().0;
            let n = graph.num_vertices();
            if n < target * 9 / 10 || n > target * 11 / 10 {
                continue;
            }
            let plan = seu_plan(&graph).expect("SEU");
            let seu = costs(&graph, &dag, Elimination::SeuOptimal).expect("runs").0;
            assert_eq!(seu.mults, plan.lower_bound);
            let fwd = costs(&graph, &dag, Elimination::ForwardVertex).expect("runs").0;
            let rev = costs(&graph, &dag, Elimination::ReverseVertex).expect("runs").0;
            seu_sum += seu.mults;
            fwd_sum += fwd.mults;
            rev_sum += rev.mults;
            max_fwd = max_fwd.max(fwd.mults as f64 / seu.mults as f64);
            max_rev = max_rev.max(rev.mults as f64 / seu.mults as f64);
            graphs += 1;
        }
        println!(
            "~{target} vertices, {graphs} graphs: seu {seu_sum}, forward {fwd_sum} ({:.3}x, max {max_fwd:.3}x), reverse {rev_sum} ({:.3}x, max {max_rev:.3}x)",
            fwd_sum as f64 / seu_sum as f64,
            rev_sum as f64 / seu_sum as f64
        );
    }
}

fn scarcity_line(
    name: &str,
    graph: &LinearizedGraph,
    dag: &frontend::ExprDag,
) -> (usize, usize, usize, usize) {
    let start = Instant::now();
    let n = |s| costs(graph, dag, s).expect("heuristics always run").1;
    let (greedy, metropolis, hybrid) =
        (n(Elimination::ScarcityGreedy), n(Elimination::ScarcityMetropolis), n(Elimination::ScarcityHybrid));
    let markowitz = n(Elimination::MarkowitzVertex);
    println!(
        "{name}: initial {} jacobian {markowitz} greedy {greedy} metropolis {metropolis} hybrid {hybrid} ({:+.1}% vs greedy) [{:.2?}]",
        graph.nonunit_edges(),
        100.0 * (hybrid as f64 - greedy as f64) / greedy.max(1) as f64,
        start.elapsed()
    );
    (graph.nonunit_edges(), greedy, metropolis, hybrid)
}

fn scarcity() {
    println!("== scarcity: nonunit edges of the remainder graph");
    let mut totals = [0usize; 4];
    for (name, program) in corpus() {
        let (graph, dag) = graph_of(&program);
        let (a, b, c, d) = scarcity_line(&name, &graph, &dag);
        for (t, v) in totals.iter_mut().zip([a, b, c, d]) {
            *t += v;
        }
    }
    println!(
        "corpus totals: initial {} greedy {} metropolis {} hybrid {}",
        totals[0], totals[1], totals[2], totals[3]
    );
    let mut rng = Rng::new(12);
    let mut totals = [0usize; 4];
    for round in 0..30 {
        let case = random_elimination(&mut rng, 20 + round * 2);
        let mut kernel =
            frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap();
        let graph = LinearizedGraph::new(&mut kernel);
        let dag = kernel.into_parts().0;
        let (a, b, c, d) = scarcity_line(&format!("random {round}"), &graph, &dag);
        for (t, v) in totals.iter_mut().zip([a, b, c, d]) {
            *t += v;
        }
    }
    println!(
        "random totals: initial {} greedy {} metropolis {} hybrid {}",
        totals[0], totals[1], totals[2], totals[3]
    );
}

fn separators() {
    println!("== separators: peak live values (edge values held) with / without, and cost");
    for (name, program) in corpus() {
        let (graph, dag) = graph_of(&program);
        for (kind, separator) in
            [("min_cut", min_cut_separator(&graph)), ("natural", natural_separator(&graph))]
        {
            let Some(separator) = separator else { continue };
            let done = accumulate_separated(&graph, dag.clone(), &separator);
            println!(
                "{name} {kind}: cut {} edges, peak {} vs {} without, cost {}+{}",
                separator.cut.len(),
                done.peak_live,
                done.peak_live_without,
                done.accumulation.cost.mults,
                done.accumulation.cost.adds
            );
        }
    }
}

/// What the default Jacobian picks on random graphs, and what it saves
/// against D* alone; Naumann's order on SEU subgraphs against Markowitz.
fn default_choice() {
    println!(
        "== the default on random graphs: kernel ops against D* alone; seu_subgraphs vs markowitz_vertex"
    );
    let mut rng = Rng::new(11);
    for ops in [10, 50, 200] {
        let mut picks = std::collections::BTreeMap::<&str, usize>::new();
        let (mut default_ops, mut dstar_ops, mut seu_sub, mut markowitz) = (0, 0, 0, 0);
        for _ in 0..200 {
            let case = random_elimination(&mut rng, ops);
            let default = factor::jacobian(
                frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
            );
            let dstar = factor::dstar_jacobian(
                frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
            );
            *picks.entry(default.method().name()).or_default() += 1;
            default_ops += default.jacobian_ops();
            dstar_ops += dstar.jacobian_ops();
            let mut kernel =
                frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap();
            let graph = LinearizedGraph::new(&mut kernel);
            let dag = kernel.into_parts().0;
            let cost = |s| costs(&graph, &dag, s).map(|(c, _)| c.mults + c.adds).expect("runs");
            seu_sub += cost(Elimination::SeuSubgraphs);
            markowitz += cost(Elimination::MarkowitzVertex);
        }
        println!(
            "{ops} ops, 200 graphs: kernel ops {default_ops} vs D* {dstar_ops} ({:.3}x); \
             seu_subgraphs {seu_sub} vs markowitz {markowitz} ({:.3}x); picks {picks:?}",
            default_ops as f64 / dstar_ops as f64,
            seu_sub as f64 / markowitz as f64
        );
    }
}

/// Time and cost of every strategy on one problem file: what the size
/// guards are tuned with.
fn time_file(path: &str) {
    let source = std::fs::read_to_string(path).expect("readable file");
    let program = frontend::parse_program(&source).expect("parses");
    let (graph, dag) = graph_of(&program);
    println!("{path}: {} vertices, {} edges", graph.num_vertices(), graph.edges().len());
    for strategy in Elimination::ALL {
        let start = Instant::now();
        let result = costs(&graph, &dag, strategy);
        println!("{:>20} {:>10.1} ms  {result:?}", strategy.name(), start.elapsed().as_secs_f64() * 1e3);
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    if which == "time" {
        for path in std::env::args().skip(2) {
            time_file(&path);
        }
        return;
    }
    if which.is_empty() || which == "corpus" {
        all_strategies();
    }
    if which.is_empty() || which == "seu" {
        seu();
    }
    if which.is_empty() || which == "default" {
        default_choice();
    }
    if which.is_empty() || which == "scarcity" {
        scarcity();
    }
    if which.is_empty() || which == "separators" {
        separators();
    }
}
