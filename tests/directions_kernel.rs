//! `Request::Jvp`: J·V through the scarcity remainder graph, compiled,
//! against the JIT Jacobian times V on every corpus problem.

use dstar::{Args, Function, Options, Request};

#[test]
fn products_match_the_jacobian_times_the_directions_on_the_corpus() {
    for problem in testkit::corpus() {
        let path = &problem.path;
        let (_, program) = dstar::load_program(path).expect("corpus parses");
        let n = program.inputs.len();
        let k = 3;
        let function = Function::new(program.clone(), Options::default());
        let directions = function.compile(Request::Jvp(k)).expect("compiles");
        assert_eq!((directions.blocks().x, directions.blocks().v), (n, k * n));
        let jacobian = function.compile(Request::Jacobian).expect("compiles");
        let x: Vec<f64> = (0..n).map(|j| 0.3 + 0.1 * (j as f64 * 1.7).sin()).collect();
        let dense = jacobian.eval_dense(Args::x(&x)).expect("lengths match").remove(1);
        let v: Vec<f64> = (0..k * n).map(|j| (j as f64 * 0.61).cos()).collect();
        let mut out = vec![0.0; directions.out_len()];
        directions.eval(Args::x(&x).v(&v), &mut out).expect("lengths match");
        for d in 0..k {
            let v = &v[d * n..(d + 1) * n];
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
        assert!(directions.eval(Args::x(&x).v(&v[1..]), &mut out).is_err(), "a short direction is an error");
    }
}

/// One `Function` (one remainder search) compiles every width: each kernel
/// equals, bit for bit, the one a fresh `Function` builds from scratch,
/// whose search is seeded and so gives the same remainder.
#[test]
fn one_function_compiles_every_width_as_a_fresh_search_does() {
    for problem in testkit::corpus() {
        let (_, program) = dstar::load_program(&problem.path).expect("corpus parses");
        let n = program.inputs.len();
        let shared = Function::new(program.clone(), Options::default());
        for k in [1, 2, 5] {
            let from_shared = shared.compile(Request::Jvp(k)).expect("compiles");
            let fresh = Function::new(program.clone(), Options::default())
                .compile(Request::Jvp(k))
                .expect("compiles");
            assert_eq!(from_shared.ops(), fresh.ops());
            let x: Vec<f64> = (0..n).map(|j| 0.4 + 0.3 * (j as f64 * 0.83).sin()).collect();
            let v: Vec<f64> = (0..k * n).map(|j| 0.1 + 0.3 * (j as f64 * 0.37).cos()).collect();
            let (mut a, mut b) = (vec![0.0; fresh.out_len()], vec![0.0; fresh.out_len()]);
            from_shared.eval(Args::x(&x).v(&v), &mut a).expect("lengths match");
            fresh.eval(Args::x(&x).v(&v), &mut b).expect("lengths match");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{}: width {k}", problem.path.display());
        }
    }
}
