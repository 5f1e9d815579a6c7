//! The kernel's contract: checked lengths, errors at compile time, sharing
//! across threads, batches, and chunking that changes nothing.

use backend::{JitCompiler, KernelError, Regalloc};
use frontend::{ExprDag, InvalidKernel, NodeId};
use testkit::{same, with_seed, Rng, Shape};

fn sum_and_product() -> (ExprDag, Vec<NodeId>) {
    let program = frontend::parse_program("in x, y, z\nout x + y + z\nout x * y * z").expect("parses");
    let outputs = program.output_nodes();
    (std::sync::Arc::unwrap_or_clone(program.dag), outputs)
}

#[test]
fn wrong_lengths_are_errors_and_write_nothing() {
    let (dag, outputs) = sum_and_product();
    let kernel = JitCompiler::new()
        .unwrap()
        .compile(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), 3).unwrap())
        .unwrap();
    assert_eq!((kernel.num_inputs(), kernel.num_outputs()), (3, 2));
    let mut out = [-1.0; 2];
    assert_eq!(kernel.eval(&[1.0, 2.0], &mut out), Err(KernelError::InputLength { expected: 3, found: 2 }));
    assert_eq!(kernel.eval(&[1.0; 4], &mut out), Err(KernelError::InputLength { expected: 3, found: 4 }));
    assert_eq!(
        kernel.eval(&[1.0; 3], &mut out[..1]),
        Err(KernelError::OutputLength { expected: 2, found: 1 })
    );
    assert_eq!(
        kernel.eval(&[1.0; 3], &mut [0.0; 3]),
        Err(KernelError::OutputLength { expected: 2, found: 3 })
    );
    assert_eq!(out, [-1.0; 2]);
    kernel.eval(&[1.0, 2.0, 3.0], &mut out).unwrap();
    assert_eq!(out, [6.0, 6.0]);

    let mut outs = [-1.0; 4];
    let err = kernel.eval_batch(&[1.0; 7], &mut outs).unwrap_err();
    assert!(matches!(err, KernelError::BatchShape { inputs_len: 7, outputs_len: 4, .. }), "{err}");
    assert!(kernel.eval_batch(&[1.0; 6], &mut outs[..3]).is_err());
    assert!(kernel.eval_batch(&[1.0; 9], &mut outs).is_err());
    assert_eq!(outs, [-1.0; 4]);
}

#[test]
fn bad_outputs_and_inputs_are_not_kernels() {
    let (dag, outputs) = sum_and_product();
    let err = frontend::Kernel::new(dag.clone(), outputs.to_vec(), 2).unwrap_err();
    assert!(matches!(err, InvalidKernel::InputOutOfRange { index: 2, num_inputs: 2, .. }), "{err}");
    let beyond = NodeId::from_index(dag.len());
    let err = frontend::Kernel::new(dag.clone(), vec![outputs[0], beyond], 3).unwrap_err();
    assert!(matches!(err, InvalidKernel::UnknownRoot { root: 1, .. }), "{err}");
}

#[test]
#[should_panic(expected = "arguments must be nodes of this DAG")]
fn a_dangling_argument_cannot_be_built() {
    let mut dag = ExprDag::new();
    let x = dag.input(0);
    dag.intern(frontend::Node::new(frontend::Op::Sin, &[NodeId::from_index(5)]));
    let _ = x;
}

#[test]
fn degenerate_kernels_work() {
    let mut dag = ExprDag::new();
    let c = dag.constant(2.5);
    let x = dag.input(0);
    let compiler = JitCompiler::new().unwrap();
    let constant = compiler.compile(&frontend::Kernel::new(dag.clone(), vec![c, c], 0).unwrap()).unwrap();
    let mut out = [0.0; 2];
    constant.eval(&[], &mut out).unwrap();
    assert_eq!(out, [2.5, 2.5]);
    let mut outs = [0.0; 6];
    constant.eval_batch(&[], &mut outs).unwrap();
    assert_eq!(outs, [2.5; 6]);
    let nothing = compiler.compile(&frontend::Kernel::new(dag.clone(), vec![], 1).unwrap()).unwrap();
    nothing.eval(&[1.0], &mut []).unwrap();
    nothing.eval_batch(&[1.0, 2.0], &mut []).unwrap();
    let identity = compiler
        .with_chunk_size(1)
        .compile(&frontend::Kernel::new(dag.clone(), vec![x, c, x], 1).unwrap())
        .unwrap();
    let mut out = [0.0; 3];
    identity.eval(&[-0.0], &mut out).unwrap();
    assert_eq!(out.map(f64::to_bits), [(-0.0f64).to_bits(), 2.5f64.to_bits(), (-0.0f64).to_bits()]);
}

#[test]
fn threads_share_one_kernel() {
    let case = with_seed(1, &Shape::every(4, 120));
    let kernel = JitCompiler::new()
        .unwrap()
        .with_chunk_size(16)
        .compile(&frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), 4).unwrap())
        .unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (kernel, case) = (&kernel, &case);
            s.spawn(move || {
                let mut rng = Rng::new(t);
                let mut out = vec![0.0; case.outputs.len()];
                for _ in 0..300 {
                    let x: Vec<f64> = (0..4).map(|_| rng.uniform(-2.0, 2.0)).collect();
                    kernel.eval(&x, &mut out).unwrap();
                    let want = frontend::eval(&case.dag, &case.outputs, &x);
                    assert!(out.iter().zip(&want).all(|(a, b)| same(*a, *b)), "thread {t} at {x:?}");
                }
            });
        }
    });
}

#[test]
fn eval_batch_equals_eval_per_point() {
    let case = with_seed(2, &Shape::every(3, 100));
    let m = case.outputs.len();
    for chunk_size in [5, 1000] {
        let compiler = JitCompiler::new().unwrap().with_chunk_size(chunk_size);
        let source = frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), 3).unwrap();
        let kernel = compiler.compile(&source).unwrap();
        compiler.compile_two_points(&source, &kernel).unwrap();
        let mut rng = Rng::new(9);
        let points = 1000;
        let xs: Vec<f64> = (0..points * 3).map(|_| rng.uniform(-3.0, 3.0)).collect();
        let mut outs = vec![0.0; points * m];
        kernel.eval_batch(&xs, &mut outs).unwrap();
        let mut out = vec![0.0; m];
        for i in 0..points {
            kernel.eval(&xs[i * 3..(i + 1) * 3], &mut out).unwrap();
            let row = &outs[i * m..(i + 1) * m];
            assert!(row.iter().zip(&out).all(|(a, b)| same(*a, *b)), "point {i}, chunk size {chunk_size}");
        }
    }
}

#[test]
fn chunked_kernels_equal_unchunked_ones() {
    let mut rng = Rng::new(4);
    let mut cases: Vec<_> = (20..30).map(|seed| with_seed(seed, &Shape::every(4, 150))).collect();
    for problem in
        testkit::corpus().into_iter().filter(|p| p.name.starts_with("nbody_pot_5") || p.name == "pollu")
    {
        let (point, program) = (problem.point(), problem.program);
        let num_inputs = program.inputs.len();
        cases.push(testkit::Case {
            outputs: program.output_nodes(),
            dag: std::sync::Arc::unwrap_or_clone(program.dag),
            num_inputs,
            point,
        });
    }
    for (i, case) in cases.iter().enumerate() {
        let whole = JitCompiler::new()
            .unwrap()
            .compile(
                &frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
            )
            .unwrap();
        let mut want = vec![0.0; case.outputs.len()];
        let mut got = want.clone();
        for chunk_size in [1, 2, 7, 64] {
            for regalloc in [Regalloc::Backtracking, Regalloc::SinglePass] {
                let compiler =
                    JitCompiler::new().unwrap().with_chunk_size(chunk_size).with_regalloc(regalloc);
                let chunked = compiler
                    .compile(
                        &frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs)
                            .unwrap(),
                    )
                    .unwrap();
                for x in case.probe_points(&mut rng).into_iter().take(6) {
                    whole.eval(&x, &mut want).unwrap();
                    chunked.eval(&x, &mut got).unwrap();
                    assert!(
                        got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
                        "case {i}, chunk size {chunk_size}, {regalloc:?}, at {x:?}: {got:?} != {want:?}"
                    );
                }
            }
        }
    }
}

/// Issue 31: compiling checks the caller's stop between batches of chunks
/// (units of work), so a huge kernel stops soon after it is asked to; it
/// checked nothing and Ctrl-C waited for the whole compile.
#[test]
fn issue_31_compiling_stops_between_batches_of_chunks() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // A sum of 40,000 products: 80 chunks of 1,000 operations, 5 batches.
    let terms: Vec<String> = (0..40_000).map(|i| format!("x{} * x{}", i % 50, (i * 7 + 1) % 50)).collect();
    let inputs: Vec<String> = (0..50).map(|i| format!("x{i}")).collect();
    let source = format!("in {}\nout f = {}", inputs.join(", "), terms.join(" + "));
    let kernel = frontend::parse_program(&source).unwrap().kernel().unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    // Stop at the third question: two batches compiled, then none.
    let stop = frontend::Stop::new(move || count.fetch_add(1, Ordering::Relaxed) >= 2);
    let Ok(compiler) = backend::JitCompiler::new() else { return };
    let result = compiler.clone().with_stop(stop).compile(&kernel);
    assert!(matches!(result, Err(backend::CodegenError::Stopped)), "{result:?}");
    assert_eq!(asked.load(Ordering::Relaxed), 3, "asked once per batch, until it said stop");
    assert!(compiler.compile(&kernel).is_ok(), "a compiler without the stop compiles it");
}

#[test]
fn kernels_compile_on_every_thread_of_rayons_pool_at_once() {
    // Each compile on a thread of the pool, twice as many as its threads:
    // a compile that blocked a pool thread on work only the pool can do
    // would never finish. A watchdog fails the test instead of hanging.
    use rayon::prelude::*;
    let case = with_seed(5, &Shape { outputs: 4000, ..Shape::every(6, 120_000) });
    let kernel = frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap();
    let reach = case.dag.reachable(&case.outputs);
    let ops = case.dag.ids().filter(|id| reach[id.index()] && !case.dag.op(*id).is_leaf()).count();
    assert!(ops > 32 * JitCompiler::DEFAULT_CHUNK_SIZE, "{ops} operations: batches of 16 chunks, several");
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let compiler = JitCompiler::new().unwrap();
        let x = case.point.clone();
        let outputs: Vec<Vec<f64>> = (0..2 * rayon::current_num_threads())
            .into_par_iter()
            .map(|_| {
                let jit = compiler.compile(&kernel).expect("compiles");
                let mut out = vec![0.0; kernel.num_outputs()];
                jit.eval(&x, &mut out).expect("lengths");
                out
            })
            .collect();
        done.send((outputs, frontend::eval(kernel.dag(), kernel.roots(), &x))).unwrap();
    });
    let (outputs, want) =
        finished.recv_timeout(std::time::Duration::from_secs(120)).expect("every compile finishes");
    for out in outputs {
        assert!(out.iter().zip(&want).all(|(a, b)| same(*a, *b)), "bit for bit the interpreter's");
    }
}
