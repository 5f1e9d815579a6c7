//! Inline integer powers `x^k`, `|k| <= 16`: bit for bit the language's
//! power (`frontend::portable::pow`, which the interpreter calls)
//! everywhere, including the ranges where the kernel falls back to it, and
//! within 1 ulp of the exact power.

use backend::JitCompiler;
use frontend::{ExprDag, Node, Op};
use testkit::{ulps, Rng};

/// Points spread over the whole range, the specials, and the neighbourhoods
/// of `|x^k| = 2^-968` and `2^1000`, where the fast path hands over to `pow`.
fn points(k: i32, rng: &mut Rng) -> Vec<f64> {
    let mut xs = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
    ];
    for _ in 0..3000 {
        let x = rng.uniform(1.0, 2.0) * 2f64.powi(rng.below(80) as i32 - 40);
        xs.push(if rng.below(2) == 0 { x } else { -x });
    }
    for _ in 0..300 {
        xs.push(rng.uniform(-1.0, 1.0) * 2f64.powi(rng.below(2046) as i32 - 1023));
    }
    if k != 0 {
        for edge in [-968.0, 1000.0, 1023.0, -1022.0, -1074.0] {
            for _ in 0..100 {
                let e = edge / k.abs() as f64 + rng.uniform(-0.05, 0.05);
                xs.push(2f64.powf(e) * if rng.below(2) == 0 { 1.0 } else { -1.0 });
            }
        }
    }
    xs
}

#[test]
fn integer_powers_are_the_interpreters_and_within_one_ulp_of_powf() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(3);
    for k in -16..=16 {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let e = dag.constant(k as f64);
        // `intern`, not `apply`: keep x^0 and x^1 as powers.
        let p = dag.intern(Node::new(Op::Pow, &[x, e]));
        let kernel =
            compiler.compile(&frontend::Kernel::new(dag.clone(), vec![p], 1).unwrap()).expect("compiles");
        let mut out = [0.0];
        let mut inexact = 0;
        for x in points(k, &mut rng) {
            kernel.eval(&[x], &mut out).expect("lengths match");
            let reference = frontend::portable::pow(x, k as f64);
            assert!(
                testkit::same(out[0], reference),
                "{x:e}^{k}: JIT {:e}, interpreter {reference:e}",
                out[0]
            );
            let want = x.powf(k as f64);
            let d = ulps(out[0], want);
            assert!(d <= 1, "{x:e}^{k}: JIT {:e}, powf {want:e} ({d} ulps)", out[0]);
            inexact += usize::from(d == 1);
        }
        assert!(inexact < 50, "x^{k} differs by an ulp {inexact} times: rarer than that expected");
    }
}

#[test]
fn other_exponents_call_pow() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(5);
    for k in [17.0, -17.0, 2.5, -0.5, 1e300, f64::INFINITY, f64::NAN] {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let e = dag.constant(k);
        let p = dag.apply(Op::Pow, &[x, e]);
        let kernel =
            compiler.compile(&frontend::Kernel::new(dag.clone(), vec![p], 1).unwrap()).expect("compiles");
        let mut out = [0.0];
        for x in points(0, &mut rng).into_iter().take(500) {
            kernel.eval(&[x], &mut out).expect("lengths match");
            assert!(testkit::same(out[0], x.powf(k)), "{x:e}^{k}: JIT {:e}", out[0]);
        }
    }
}
