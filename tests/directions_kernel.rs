//! `DirectionsKernel`: J·V through the scarcity remainder graph, compiled,
//! against the JIT Jacobian times V on every corpus problem.

use dstar::{compile_program, DirectionsKernel, DirectionsPlan, JitCompiler, Options};

#[test]
fn products_match_the_jacobian_times_the_directions_on_the_corpus() {
    let compiler = JitCompiler::new().expect("host ISA");
    for problem in testkit::corpus() {
        let path = &problem.path;
        let (_, program) = dstar::load_program(path).expect("corpus parses");
        let n = program.inputs.len();
        let k = 3;
        let directions = DirectionsKernel::compile(&program, k, &compiler).expect("compiles");
        assert_eq!((directions.num_inputs(), directions.num_directions()), (n, k));
        let jacobian = compile_program(&program, &Options::default()).expect("compiles");
        let x: Vec<f64> = (0..n).map(|j| 0.3 + 0.1 * (j as f64 * 1.7).sin()).collect();
        let (_, dense) = jacobian.eval_dense(&x).expect("lengths match");
        let mut input = x.clone();
        for d in 0..k {
            input.extend((0..n).map(|j| ((d * n + j) as f64 * 0.61).cos()));
        }
        let mut out = vec![0.0; directions.out_len()];
        directions.eval(&input, &mut out).expect("lengths match");
        for d in 0..k {
            let v = &input[n + d * n..n + (d + 1) * n];
            for (i, row) in dense.iter().enumerate() {
                let want: f64 = row.iter().zip(v).map(|(a, b)| a * b).sum();
                let scale: f64 = row.iter().zip(v).map(|(a, b)| (a * b).abs()).sum();
                let got = out[d * dense.len() + i];
                assert!(
                    (got - want).abs() <= 1e-12 * scale.max(1e-300),
                    "{}: direction {d}, output {i}: {got} vs {want}",
                    path.display()
                );
            }
        }
        assert!(directions.eval(&input[1..], &mut out).is_err(), "a short input is an error");
    }
}

/// One `DirectionsPlan` (one remainder search) compiles every width: each
/// kernel equals, bit for bit, the one `DirectionsKernel::compile` builds
/// from scratch, whose search is seeded and so gives the same remainder.
#[test]
fn a_plan_compiles_every_width_as_a_fresh_search_does() {
    let compiler = JitCompiler::new().expect("host ISA");
    for problem in testkit::corpus() {
        let (_, program) = dstar::load_program(&problem.path).expect("corpus parses");
        let n = program.inputs.len();
        let plan = DirectionsPlan::new(&program).expect("a valid program");
        for k in [1, 2, 5] {
            let from_plan = plan.compile(k, &compiler).expect("compiles");
            let fresh = DirectionsKernel::compile(&program, k, &compiler).expect("compiles");
            assert_eq!(from_plan.nonunit_edges(), plan.nonunit_edges());
            assert_eq!(from_plan.nonunit_edges(), fresh.nonunit_edges());
            let input: Vec<f64> = (0..n * (1 + k)).map(|j| 0.4 + 0.3 * (j as f64 * 0.83).sin()).collect();
            let (mut a, mut b) = (vec![0.0; fresh.out_len()], vec![0.0; fresh.out_len()]);
            from_plan.eval(&input, &mut a).expect("lengths match");
            fresh.eval(&input, &mut b).expect("lengths match");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{}: width {k}", problem.path.display());
        }
    }
}
