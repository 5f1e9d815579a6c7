//! The printing pass ([`simplify::Tidier`]): it keeps values (up to
//! rounding) and collects like terms however far apart a sum holds them.

use frontend::{ExprDag, Kernel, NodeId, Op};
use simplify::Tidier;
use testkit::{close, random_algebra, well_conditioned, Rng, Tol};

fn tidied(kernel: &Kernel) -> Kernel {
    Tidier::new().run(kernel).0
}

/// Collecting and factoring only round differently.
const REL: f64 = 1e-10;

#[test]
fn random_programs_keep_their_values() {
    let count = testkit::cases(300, 5_000) as u64;
    let mut checked = 0;
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let size = 3 + rng.below(30);
        let case = random_algebra(&mut rng, 3, size);
        let kernel = case.kernel();
        if !well_conditioned(kernel.dag(), kernel.roots(), &case.point, 1e3) {
            continue;
        }
        let tidy = tidied(&kernel);
        let before = frontend::eval(kernel.dag(), kernel.roots(), &case.point);
        let after = frontend::eval(tidy.dag(), tidy.roots(), &case.point);
        for (k, (b, a)) in before.iter().zip(&after).enumerate() {
            // Collecting cancels terms that round differently apart.
            let scale = 1e-8 * b.abs().max(1.0);
            assert!(
                close(*b, *a, Tol { rel: REL, abs: scale }),
                "seed {seed}: root {k}: {b} before, {a} after"
            );
        }
        checked += 1;
    }
    assert!(checked * 2 >= count, "only {checked} of {count} random cases were well conditioned");
}

/// Sums and differences in `kernel`'s DAG that its roots reach.
fn additions(dag: &ExprDag, roots: &[NodeId]) -> usize {
    let reach = dag.reachable(roots);
    dag.ids().filter(|id| reach[id.index()] && matches!(dag.op(*id), Op::Add | Op::Sub)).count()
}

/// Issue 31: `-3 * t1 + t1` was printed in the third derivative of
/// `exp(x) * sin(x)`: the rewrites met like terms only by reordering the sum
/// between them within a node limit. Random sums of a few monomials, each
/// written several times with whole coefficients in a random order, print
/// with one term per monomial whose coefficients do not cancel.
#[test]
fn issue_31_like_terms_collect_however_far_apart() {
    let monomials = ["sin(x)", "exp(x) * cos(y)", "x^2 * y", "log(y)", "x", "1"];
    for seed in 0..testkit::cases(200, 5_000) as u64 {
        let mut rng = Rng::new(seed);
        let mut totals = [0i64; 6];
        let mut terms = vec![];
        for _ in 0..2 + rng.below(12) {
            let k = rng.below(monomials.len());
            let c = rng.below(9) as i64 - 4;
            totals[k] += c;
            terms.push(format!("{c} * {}", monomials[k]));
        }
        let source = terms.join(" + ");
        let program = frontend::parse_expr_with_inputs(&source, &["x", "y"]).expect("valid");
        let tidy = tidied(&program.kernel().expect("valid"));
        let distinct = totals.iter().filter(|t| **t != 0).count();
        let sums = additions(tidy.dag(), tidy.roots());
        let text = frontend::print_expr(tidy.dag(), tidy.roots()[0], &program.inputs);
        assert!(sums < distinct.max(1), "seed {seed}: {source}\n  printed {text}");
    }
}
