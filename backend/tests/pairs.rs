//! Operations the JIT computes two at a time (`f64x2`) agree bit for bit
//! with the interpreter, on programs built of such twins: neighbouring
//! outputs of one operation whose operands are twins, inputs side by side,
//! one value in both lanes, or unrelated scalars; some outputs stored twice.

use backend::JitCompiler;
use frontend::{ExprDag, NodeId, Op};
use testkit::{same, Rng};

const OPS: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];

/// A program of `twins` pairs of like operations and its outputs.
fn twin_program(rng: &mut Rng, num_inputs: usize, twins: usize) -> (ExprDag, Vec<NodeId>) {
    let mut dag = ExprDag::new();
    let inputs: Vec<NodeId> = (0..num_inputs).map(|k| dag.input(k)).collect();
    let mut lanes: Vec<[NodeId; 2]> = Vec::new();
    let mut outputs = Vec::new();
    for _ in 0..twins {
        let mut operand = |dag: &mut ExprDag, rng: &mut Rng| -> [NodeId; 2] {
            match rng.below(4) {
                0 => [inputs[rng.below(num_inputs)]; 2],
                1 => {
                    let i = rng.below(num_inputs - 1);
                    [inputs[i], inputs[i + 1]]
                }
                2 if !lanes.is_empty() => lanes.swap_remove(rng.below(lanes.len())),
                _ => [inputs[rng.below(num_inputs)], dag.constant(rng.uniform(-2.0, 2.0))],
            }
        };
        let op = OPS[rng.below(OPS.len())];
        let [a, c] = operand(&mut dag, rng);
        let [b, d] = operand(&mut dag, rng);
        let twin = [dag.apply(op, &[a, b]), dag.apply(op, &[c, d])];
        if rng.below(3) == 0 {
            lanes.push(twin); // an operand of a later twin
        } else {
            outputs.extend(twin);
            if rng.below(4) == 0 {
                outputs.push(twin[rng.below(2)]); // stored a second time
            }
        }
    }
    outputs.extend(lanes.into_iter().flatten());
    (dag, outputs)
}

/// A value of `x`, often a special one.
fn value(rng: &mut Rng) -> f64 {
    const SPECIAL: [f64; 8] = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, 1e300, -1e-300];
    if rng.below(8) == 0 {
        SPECIAL[rng.below(SPECIAL.len())]
    } else {
        rng.uniform(-3.0, 3.0)
    }
}

#[test]
fn paired_operations_match_the_interpreter_bit_for_bit() {
    let mut rng = Rng::new(11);
    for seed in 0..60 {
        let (dag, outputs) = twin_program(&mut rng, 2 + seed % 7, 4 + seed * 2);
        let n = 2 + seed % 7;
        for chunk_size in [7, 1000] {
            let kernel = JitCompiler::new()
                .expect("a supported host")
                .with_chunk_size(chunk_size)
                .compile(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), n).unwrap())
                .expect("compiles");
            let mut out = vec![0.0; outputs.len()];
            for _ in 0..50 {
                let x: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
                kernel.eval(&x, &mut out).expect("lengths match");
                let want = frontend::eval(&dag, &outputs, &x);
                for (k, (&got, &want)) in out.iter().zip(&want).enumerate() {
                    assert!(
                        same(got, want),
                        "seed {seed}, chunk size {chunk_size}, at {x:?}, output {k}: JIT {got:e}, interpreter {want:e}"
                    );
                }
            }
        }
    }
}
