//! Issue 26: a replayed elimination costs what its plan says. Over
//! generated programs, for every full elimination strategy, the operations
//! the replay adds to the function and its partials are at most the plan's
//! multiplications and additions (a product with a unit edge is free, its
//! sign a flag), plus at most a `neg` per entry whose sign is left over
//! (fewer where negated entries share a factor), and
//! for guarded partials (the branch not taken of `ifelse`, `min`, `max`,
//! `abs`, `pow`'s guards) their selects and at most one addition each (the
//! indicator of a sum of guarded values), which no plan counts and every
//! accumulation builds alike. The replay had materialized the sign of every
//! `-1` edge as a `neg`: coleman_Fb_6's seu_subgraphs Jacobian, planned at
//! 254 operations, added 272, and beat Markowitz (255 planned, 267 built).
//! 150 programs; `DSTAR_LONG=1` runs 5,000.

use eliminate::{accumulate_graph, costs, Elimination, LinearizedGraph};
use frontend::{NodeId, Op};
use std::collections::BTreeMap;
use testkit::{cases, generate, random_elimination, Rng, Shape};

#[test]
fn a_replay_builds_no_more_than_its_plan() {
    let mut checked = 0;
    let mut with_guards = 0;
    for seed in 0..cases(150, 5_000) as u64 {
        let mut rng = Rng::new(seed);
        let case = if seed % 2 == 0 {
            let ops = 5 + rng.below(30);
            random_elimination(&mut rng, ops)
        } else {
            let shape = Shape::calculus(1 + rng.below(4), 1 + rng.below(4), 5 + rng.below(25), 0.5);
            generate(&mut rng, &shape)
        };
        let mut kernel = case.kernel();
        let graph = LinearizedGraph::new(&mut kernel);
        // The function and its partials: what every accumulation starts from.
        let mut base: Vec<NodeId> = kernel.roots().to_vec();
        base.extend(graph.edges().iter().map(|e| e.label));
        // Scarcity's plans are partial: its cost is the remainder's, not a
        // Jacobian's. The exact optima search for seconds; their replay is
        // the vertex and edge orders' own, so short runs leave them out.
        let exact = [Elimination::OptimalVertex, Elimination::OptimalEdge];
        let strategies = Elimination::ALL.into_iter().filter(|s| !s.is_partial());
        for strategy in strategies.filter(|s| testkit::long_run() || !exact.contains(s)) {
            let Ok((plan, _)) = costs(&graph, kernel.dag(), strategy) else { continue };

            let Ok(done) = accumulate_graph(&graph, kernel.dag().clone(), strategy) else { continue };

            let (dag, entries) = done.into_parts();
            let before = dag.reachable(&base);
            let roots: Vec<NodeId> = base.iter().copied().chain(entries.iter().map(|e| e.node)).collect();
            let after = dag.reachable(&roots);
            let mut added: BTreeMap<&str, usize> = BTreeMap::new();
            for id in dag.ids().filter(|id| after[id.index()] && !before[id.index()]) {
                let kind = match dag.op(id) {
                    Op::Mul => "mul",
                    Op::Add | Op::Sub => "add",
                    Op::Neg => "neg",
                    Op::Select(_) => "select",
                    op if op.is_leaf() => continue,
                    op => panic!("seed {seed}, {}: the replay built {op:?}", strategy.name()),
                };
                *added.entry(kind).or_default() += 1;
            }
            let count = |kind| added.get(kind).copied().unwrap_or(0);
            let what = format!("seed {seed}, {}: plan {plan:?}, built {added:?}", strategy.name());
            assert!(count("mul") <= plan.mults, "{what}");
            assert!(count("neg") <= entries.len(), "{what}");
            if count("select") == 0 {
                assert!(count("add") <= plan.adds, "{what}");
            } else {
                // A sum of guarded values is zero-tested: its indicator may add one addition.
                assert!(count("add") <= plan.adds + count("select"), "{what}");
                with_guards += 1;
            }
            checked += 1;
        }
    }
    assert!(checked > 1_000, "{checked} replays checked");
    assert!(with_guards > 0, "some programs have guarded partials");
}
