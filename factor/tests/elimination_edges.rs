//! The eliminations' guard counts the linearized graph's edges on the DAG,
//! before building the graph (`plan::linearized_edges`): never more than
//! the built graph has, on every shape of the zoo (written out) and on
//! random programs, so it skips no graph the built one would let compete;
//! and close to it, so it skips most of those the built one would not.

use eliminate::LinearizedGraph;
use frontend::Kernel;
use testkit::zoo::{Form, Zoo};
use testkit::{random_algebra, Rng};

fn built_edges(function: &Kernel) -> usize {
    let mut kernel = function.clone();
    LinearizedGraph::new(&mut kernel).edges().len()
}

#[test]
fn the_counted_edges_bound_the_built_graphs() {
    for zoo in Zoo::ALL {
        for n in [3, 40] {
            let program = frontend::parse_program(&zoo.generate(n, Form::Flat)).expect("the zoo parses");
            let function = program.kernel().unwrap().inlined();
            let counted = factor::plan::linearized_edges(&function).expect("no calls");
            let built = built_edges(&function);
            assert!(
                counted <= built && 10 * counted >= 9 * built,
                "{} at {n}: {counted} of {built}",
                zoo.name()
            );
        }
    }
    let mut rng = Rng::new(35);
    for case in 0..200 {
        let program = random_algebra(&mut rng, 1 + case % 6, 5 + case % 80);
        let function = Kernel::new(program.dag, program.outputs.to_vec(), program.num_inputs).unwrap();
        let counted = factor::plan::linearized_edges(&function).expect("no calls");
        let built = built_edges(&function);
        assert!(counted <= built, "random program {case}: {counted} of {built}");
    }
}
