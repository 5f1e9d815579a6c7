//! The differential test: D* Jacobians of generated programs against dual
//! numbers and central differences. 2,000 programs per run; `DSTAR_LONG=1`
//! runs 100,000. `cargo run -p dstar-factor --example explain_seed -- SEED`
//! prints a failing seed's program in detail.

use factor::Strategy;
use testkit::{compare, generate, Rng, Shape, Verdict};

fn program_count() -> u64 {
    testkit::cases(2_000, 100_000) as u64
}

#[test]
fn dstar_jacobians_of_generated_programs_match_oracles() {
    let count = program_count();
    let mut failures = Vec::new();
    let mut agreed = 0usize;
    let mut skipped = std::collections::BTreeMap::<&str, usize>::new();
    let mut methods = std::collections::BTreeMap::<&str, usize>::new();
    let (mut default_ops, mut dstar_ops) = (0usize, 0usize);
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let shape = Shape::random(&mut rng);
        let case = generate(&mut rng, &shape);
        // The default (the cheapest of D* and the eliminations) at every
        // other point, and every D* strategy, whichever would be chosen by cost.
        let default = factor::jacobian(
            frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
        );
        *methods.entry(default.method().name()).or_default() += 1;
        let jacobians: Vec<_> = Strategy::ALL
            .iter()
            .map(|&s| {
                factor::jacobian_with(
                    frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
                    s,
                )
            })
            .collect();
        default_ops += default.jacobian_ops();
        dstar_ops += jacobians.iter().map(factor::Jacobian::jacobian_ops).min().expect("four");
        for point in 0..10 {
            let x: Vec<f64> = (0..case.num_inputs).map(|_| rng.uniform(-1.5, 1.5)).collect();
            let jacobian = if point % 2 == 0 { &default } else { &jacobians[point / 2 % jacobians.len()] };
            let (values, dense) = jacobian.eval(&x);
            match compare(&case.dag, &case.outputs, &x, &values, &dense) {
                Verdict::Agrees => agreed += 1,
                Verdict::Skipped(reason) => *skipped.entry(reason).or_default() += 1,
                Verdict::NonFinite(_) if overflows(jacobian, &x) => {
                    *skipped.entry("product of partials overflowed").or_default() += 1
                }
                Verdict::Wrong(message) | Verdict::NonFinite(message) => {
                    let names: Vec<String> = (0..case.num_inputs).map(|k| format!("x{k}")).collect();
                    let outputs: Vec<String> =
                        case.outputs.iter().map(|&o| frontend::print_expr(&case.dag, o, &names)).collect();
                    let strategy = jacobian.method().name();
                    failures.push(format!(
                        "seed {seed} ({strategy}) at {x:?}: {message}\n  outputs: {outputs:#?}"
                    ));
                    break;
                }
            }
        }
    }
    eprintln!(
        "{count} programs: {agreed} points agree, skipped {skipped:?}, {} wrong programs; default methods {methods:?}, \
         kernel ops {default_ops} (D* alone {dstar_ops})",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} wrong Jacobians; first:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    assert!(agreed as u64 >= count, "too few points checked: {agreed}");
}

/// Whether some product of finite values overflows to infinity in the
/// Jacobian's kernel at `x`. Accumulations multiply the same local partials
/// in different orders, and where two huge partials meet before a tiny (or
/// zero) one, `inf · 0` gives NaN although the dual numbers, multiplying
/// from the input side, stay finite. Only such a point may excuse a
/// non-finite entry, and the point then counts as skipped.
fn overflows(jacobian: &factor::Jacobian, x: &[f64]) -> bool {
    let roots = jacobian.kernel().roots().to_vec();
    let values = frontend::eval_nodes(jacobian.dag(), &roots, x);
    let reached = jacobian.dag().reachable(&roots);
    jacobian.dag().ids().filter(|id| reached[id.index()]).any(|id| {
        let args = jacobian.dag().args(id);
        jacobian.dag().op(id) == frontend::Op::Mul
            && values[id.index()].is_infinite()
            && args.iter().all(|a| values[a.index()].is_finite())
    })
}
