//! Spherical harmonics of every order 1..=25, generated here, against dual
//! numbers and central differences; order 5 also against the corpus values.

use testkit::{compare, spherical_harmonics, Verdict};

const POINTS: [[f64; 3]; 3] = [[0.48, -0.36, 0.8], [-0.6, 0.0, 0.8], [0.3, 0.5, -0.7]];

#[test]
fn every_order_matches_oracles() {
    for order in 1..=25 {
        let (dag, outputs) = spherical_harmonics(order);
        let jacobian = factor::jacobian(frontend::Kernel::new(dag.clone(), outputs.to_vec(), 3).unwrap());
        for x in POINTS {
            let (values, dense) = jacobian.eval(&x);
            match compare(&dag, &outputs, &x, &values, &dense) {
                // High orders amplify rounding beyond what central
                // differences resolve at some entries; the dual check still ran.
                Verdict::Agrees | Verdict::Skipped("ill-conditioned") => {}
                Verdict::Skipped(reason) => panic!("order {order} at {x:?} skipped: {reason}"),
                Verdict::Wrong(message) | Verdict::NonFinite(message) => {
                    panic!("order {order} at {x:?}: {message}")
                }
            }
        }
    }
}

#[test]
fn generator_matches_the_corpus_values() {
    let expected = testkit::corpus::reference(&testkit::corpus_file("sh_5.dstar")).values;
    let (dag, outputs) = spherical_harmonics(5);
    let values = frontend::eval(&dag, &outputs, &POINTS[0]);
    assert_eq!(values.len(), expected.len());
    for (a, b) in values.iter().zip(&expected) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
