//! `sin(a)` and `cos(a)` of one argument, which the JIT computes with one
//! `sincos` call, agree bit for bit with `f64::sin` and `f64::cos` (what
//! the interpreter calls), also across chunk boundaries.

use backend::JitCompiler;
use frontend::Op;
use testkit::{same, Rng};

/// Arguments over the whole range: specials, subnormals, huge values where
/// argument reduction is hardest, multiples of pi/2, and random bit patterns.
fn arguments() -> Vec<f64> {
    let mut xs = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        1e-310,
        f64::EPSILON,
        1.0,
        -1.0,
        1e22,
        -1e22,
        2f64.powi(1023),
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    xs.extend((-64..=64).map(|k| k as f64 * std::f64::consts::FRAC_PI_2));
    xs.extend((-64..=64).map(|k| 355.0 * k as f64));
    let mut rng = Rng::new(42);
    xs.extend((0..100_000).map(|_| f64::from_bits(rng.next_u64())));
    xs.extend((0..100_000).map(|_| rng.uniform(-1e3, 1e3)));
    xs.extend((0..20_000).map(|_| rng.uniform(-1.0, 1.0) * f64::MIN_POSITIVE));
    xs
}

#[test]
fn sine_and_cosine_of_one_argument_match_std_bit_for_bit() {
    let program =
        frontend::parse_program("in x\nout sin(x)\nout cos(x)\nout cos(x) * sin(x)").expect("parses");
    let kernel = JitCompiler::new()
        .expect("a supported host")
        .compile(&frontend::Kernel::new(program.dag.clone(), program.output_nodes(), 1).unwrap())
        .expect("compiles");
    let mut out = [0.0; 3];
    for x in arguments() {
        kernel.eval(&[x], &mut out).expect("lengths match");
        let want = [x.sin(), x.cos(), x.cos() * x.sin()];
        for (k, (got, want)) in out.into_iter().zip(want).enumerate() {
            assert!(same(got, want), "output {k} at {x:e} ({:#x}): JIT {got:e}, std {want:e}", x.to_bits());
        }
    }
}

#[test]
fn pairs_far_apart_and_split_by_chunks_match_the_interpreter() {
    // sin(x*y) early, a chain of operations, then cos(x*y) and sin(y), cos(y).
    let mut dag = frontend::ExprDag::new();
    let x = dag.input(0);
    let y = dag.input(1);
    let xy = dag.mul(x, y);
    let sin_xy = dag.apply(Op::Sin, &[xy]);
    let mut chain = sin_xy;
    for _ in 0..20 {
        chain = dag.add(chain, x);
        chain = dag.mul(chain, y);
    }
    let cos_xy = dag.apply(Op::Cos, &[xy]);
    let cos_y = dag.apply(Op::Cos, &[y]);
    let sin_y = dag.apply(Op::Sin, &[y]);
    let last = dag.mul(cos_xy, chain);
    let outputs = [sin_xy, last, cos_y, chain, sin_y, cos_xy];
    let mut rng = Rng::new(3);
    for chunk_size in [1, 2, 3, 5, 1000] {
        let kernel = JitCompiler::new()
            .expect("a supported host")
            .with_chunk_size(chunk_size)
            .compile(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), 2).unwrap())
            .expect("compiles");
        let mut out = [0.0; 6];
        for _ in 0..1000 {
            let point = [rng.uniform(-10.0, 10.0), rng.uniform(-1e6, 1e6)];
            kernel.eval(&point, &mut out).expect("lengths match");
            let want = frontend::eval(&dag, &outputs, &point);
            for (k, (&got, &want)) in out.iter().zip(&want).enumerate() {
                assert!(
                    same(got, want),
                    "chunk size {chunk_size} at {point:?}, output {k}: {got:e} != {want:e}"
                );
            }
        }
    }
}
