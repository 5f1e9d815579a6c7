//! A kernel's function compiled ahead of its other outputs
//! (`compile_function`, then `compile_rest` on a kernel that extends it)
//! against `compile` of the whole kernel, bit for bit: generated functions
//! split over small chunks, with other outputs that read the function's
//! values, its outputs, inputs and constants, and new nodes added after the
//! function compiled (as simplification adds them), some of which read a
//! function value its chunks did not store (then the kernel compiles whole).

use backend::JitCompiler;
use frontend::{Kernel, NodeId, Op};
use testkit::{same, with_seed, Rng, Shape};

#[test]
fn function_first_matches_whole_compile() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let long = std::env::var("DSTAR_LONG").is_ok();
    let mut rng = Rng::new(11);
    let mut split = 0;
    let cases: u64 = if long { 1500 } else { 80 };
    for seed in 0..cases {
        let num_inputs = 1 + rng.below(5);
        let shape = Shape { outputs: 1 + rng.below(8), ..Shape::every(num_inputs, 20 + rng.below(80)) };
        let case = with_seed(9000 + seed, &shape);
        let mut dag = case.dag.clone();
        let function = case.outputs.clone();
        let nodes: Vec<NodeId> = dag.ids().collect();
        // The other outputs before: new operations on the function's nodes,
        // and some of its nodes, leaves and outputs themselves.
        let grow = |dag: &mut frontend::ExprDag, rng: &mut Rng, count: usize| -> Vec<NodeId> {
            let mut made: Vec<NodeId> = Vec::new();
            for _ in 0..count {
                let pool = if made.is_empty() || rng.below(2) == 0 { &nodes } else { &made };
                let (a, b) = (*rng.pick(pool), *rng.pick(&nodes));
                let node = match rng.below(6) {
                    0 => dag.apply(Op::Mul, &[a, b]),
                    1 => dag.apply(Op::Sub, &[a, b]),
                    2 => dag.apply(Op::Sin, &[a]),
                    3 => dag.apply(Op::Cos, &[a]),
                    4 => a,
                    _ => dag.constant(rng.uniform(-2.0, 2.0)),
                };
                made.push(node);
            }
            made
        };
        let count = 1 + rng.below(20);
        let before = grow(&mut dag, &mut rng, count);
        let pre = Kernel::new(dag.clone(), [function.clone(), before.clone()].concat(), num_inputs).unwrap();
        // After: the same, or more nodes and other outputs.
        let post = if rng.below(3) == 0 {
            pre.clone()
        } else {
            let count = 1 + rng.below(20);
            let after = grow(&mut dag, &mut rng, count);
            let mut rest: Vec<NodeId> = after;
            rest.extend(before.iter().filter(|_| rng.below(2) == 0));
            Kernel::new(dag.clone(), [function.clone(), rest].concat(), num_inputs).unwrap()
        };
        let points = case.probe_points(&mut rng);
        for chunk_size in [3, 7] {
            let compiler = compiler.clone().with_chunk_size(chunk_size);
            let first = compiler.compile_function(&pre, function.len(), &[num_inputs]).unwrap();
            split += usize::from(first.compiled_apart());
            let ahead = compiler.compile_rest(first, &post, &[num_inputs]).unwrap();
            let whole = compiler.compile(&post).unwrap();
            for x in &points {
                // Unlike starts, so that an output left unstored shows.
                let mut a = vec![f64::NAN; post.roots().len()];
                let mut b = vec![0.25; post.roots().len()];
                ahead.eval(x, &mut a).unwrap();
                whole.eval(x, &mut b).unwrap();
                for (k, (p, q)) in a.iter().zip(&b).enumerate() {
                    assert!(
                        same(*p, *q),
                        "seed {seed}, chunks of {chunk_size}, output {k} at {x:?}: {p:e} vs {q:e}"
                    );
                }
            }
        }
    }
    assert!(
        split as u64 > cases / 2,
        "the function is compiled apart in most cases ({split} of {})",
        2 * cases
    );
}

/// Issue 25: a banded constraint family, `g_i = -r[i-1]*r[i] - r[i]*r[i+1] +
/// 2*r[i-1]*r[i+1]*ct`, whose neighbouring outputs the function's chunks
/// compute two at a time, while the other outputs read them (as a
/// Jacobian's entries read the function's values). A paired value handed to
/// a later chunk was never stored in its scratch slot, and those outputs
/// read whatever the slot held. Sizes on both sides of the split: the
/// function goes apart from two chunks of operations on.
#[test]
fn paired_function_values_reach_the_other_outputs() {
    let Ok(compiler) = JitCompiler::new() else { return };
    for n in [6, 12, 40, 130] {
        let mut dag = frontend::ExprDag::new();
        let r: Vec<NodeId> = (0..n).map(|i| dag.input(i)).collect();
        let c = dag.constant(0.01);
        let ct = dag.apply(Op::Cos, &[c]);
        let two = dag.constant(2.0);
        let mut function = Vec::new();
        for i in 1..n - 1 {
            let a = dag.mul(r[i - 1], r[i]);
            let b = dag.mul(r[i], r[i + 1]);
            let p = dag.mul(two, r[i - 1]);
            let p = dag.mul(p, r[i + 1]);
            let p = dag.mul(p, ct);
            let minus_a = dag.apply(Op::Neg, &[a]);
            let s = dag.sub(minus_a, b);
            function.push(dag.add(s, p));
        }
        // Each other output reads a function value and a product of the function.
        let rest: Vec<NodeId> = function.iter().map(|&g| dag.mul(g, r[0])).collect();
        let kernel = Kernel::new(dag, [function.clone(), rest].concat(), n).unwrap();
        let x: Vec<f64> = (0..n).map(|i| 1.5 + 0.01 * i as f64).collect();
        let want = kernel.eval(&x);
        for chunk_size in [8, 50] {
            let compiler = compiler.clone().with_chunk_size(chunk_size);
            let first = compiler.compile_function(&kernel, function.len(), &[n]).unwrap();
            let ahead = compiler.compile_rest(first, &kernel, &[n]).unwrap();
            let mut got = vec![f64::NAN; kernel.roots().len()];
            ahead.eval(&x, &mut got).unwrap();
            for (k, (p, q)) in got.iter().zip(&want).enumerate() {
                assert!(
                    same(*p, *q),
                    "n = {n}, chunks of {chunk_size}, output {k}: JIT {p:e}, interpreter {q:e}"
                );
            }
        }
    }
}
