//! Prints one program of the D* differential test (`tests/generated.rs`) in
//! detail: its Jacobian at a few points beside the dual numbers and central
//! differences of several steps.
//!
//! `cargo run -p dstar-factor --example explain_seed -- SEED` (or `DSTAR_SEED=SEED`).

use testkit::{generate, Rng, Shape};

fn main() {
    let seed = std::env::args().nth(1).or_else(|| std::env::var("DSTAR_SEED").ok());
    let Some(seed) = seed.and_then(|s| s.parse::<u64>().ok()) else {
        eprintln!("usage: explain_seed SEED (the seed a failure of tests/generated.rs names)");
        std::process::exit(2);
    };
    let mut rng = Rng::new(seed);
    let shape = Shape::random(&mut rng);
    let case = generate(&mut rng, &shape);
    println!("outputs: {:#?}", case.describe());
    let jacobian = factor::jacobian(
        frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
    );
    for _ in 0..8 {
        let x: Vec<f64> = (0..case.num_inputs).map(|_| rng.uniform(-1.5, 1.5)).collect();
        let (values, dense) = jacobian.eval(&x);
        println!("x = {x:?}\nvalues = {values:?}");
        for k in 0..case.num_inputs {
            let dual = testkit::eval_dual(&case.dag, &case.outputs, &x, k);
            println!("input {k}: kink margin {}", dual.kink_margin);
            for (i, d) in dual.outputs.iter().enumerate() {
                let cds: Vec<f64> = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
                    .iter()
                    .map(|h| {
                        let mut hi = x.clone();
                        let mut lo = x.clone();
                        hi[k] += h;
                        lo[k] -= h;
                        let a = frontend::eval(&case.dag, &[case.outputs[i]], &hi)[0];
                        let b = frontend::eval(&case.dag, &[case.outputs[i]], &lo)[0];
                        (a - b) / (2.0 * h)
                    })
                    .collect();
                println!("  out{i}: D* {:e} dual {:e} m {:e} cd {cds:?}", dense[i][k], d.d, d.m);
            }
        }
    }
}
