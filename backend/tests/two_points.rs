//! The two-point kernels behind `eval_batch` and `eval_points` (two points
//! per call in the lanes of `f64x2`) against the one-point kernel, bit for
//! bit: generated programs using every operation, at points that reach the
//! specials (NaN, infinities, zeros, the cold branch of inline powers),
//! whole and in small chunks, odd numbers of points; outputs of every
//! layout (stored two at a time where adjacent); and the corpus.

use backend::JitCompiler;
use testkit::{corpus, point_of, same, with_seed, Rng, Shape};

/// Every row of `eval_points` and `eval_batch` equals `eval`'s, bit for
/// bit, once `compiler` compiled the two-point variant of `kernel` (from
/// `source`).
fn assert_batch_parity(
    compiler: &JitCompiler,
    source: &frontend::Kernel,
    kernel: &backend::JitKernel,
    points: &[Vec<f64>],
    what: &str,
) {
    assert_eq!(kernel.points_per_call(), 1, "{what}: a kernel compiles no variant of its own");
    compiler.compile_two_points(source, kernel).unwrap();
    assert_eq!(kernel.points_per_call(), 2, "{what}: the two-point variant compiles");
    let m = kernel.num_outputs();
    let xs: Vec<f64> = points.concat();
    let mut one = vec![0.0; points.len() * m];
    for (x, out) in points.iter().zip(one.chunks_exact_mut(m.max(1))) {
        kernel.eval(x, &mut out[..m]).unwrap();
    }
    let mut serial = vec![f64::NAN; points.len() * m];
    kernel.eval_points(&xs, &mut serial).unwrap();
    let mut parallel = vec![f64::NAN; points.len() * m];
    kernel.eval_batch(&xs, &mut parallel).unwrap();
    for (i, ((a, b), c)) in one.iter().zip(&serial).zip(&parallel).enumerate() {
        assert!(
            same(*a, *b) && same(*a, *c),
            "{what}: point {}, output {}: one point {a:e} ({:#x}), two points {b:e} ({:#x}), batch {c:e}",
            i / m,
            i % m,
            a.to_bits(),
            b.to_bits()
        );
    }
}

#[test]
fn two_points_match_one_point_on_generated_programs() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let long = std::env::var("DSTAR_LONG").is_ok();
    let mut rng = Rng::new(2);
    for seed in 0..if long { 2000 } else { 60 } {
        let num_inputs = 1 + rng.below(6);
        let case = with_seed(1000 + seed, &Shape::every(num_inputs, 20 + rng.below(80)));
        let kernel = frontend::Kernel::new(case.dag.clone(), case.outputs.clone(), num_inputs).unwrap();
        // Specials and random points, and an odd count so one point is left for the one-point kernel.
        let mut points = case.probe_points(&mut rng);
        points.truncate(points.len() | 1);
        for chunk_size in [1000, 5] {
            let compiler = compiler.clone().with_chunk_size(chunk_size);
            let jit = compiler.compile(&kernel).unwrap();
            assert_batch_parity(
                &compiler,
                &kernel,
                &jit,
                &points,
                &format!("seed {seed}, chunks of {chunk_size}"),
            );
        }
    }
}

/// Adjacent outputs are stored two at a time, lane 0 of both to point 0's
/// row and lane 1 to point 1's, each pair once its later value is known:
/// many outputs and odd counts, inputs, constants and repeated nodes among
/// them (side by side too), split over chunks or not.
#[test]
fn two_points_store_outputs_of_every_layout() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let long = std::env::var("DSTAR_LONG").is_ok();
    let mut rng = Rng::new(3);
    for seed in 0..if long { 1000 } else { 40 } {
        let num_inputs = 1 + rng.below(5);
        let shape = Shape { outputs: 1 + rng.below(60), ..Shape::every(num_inputs, 10 + rng.below(60)) };
        let mut case = with_seed(5000 + seed, &shape);
        for _ in 0..rng.below(12) {
            let node = match rng.below(4) {
                0 => case.dag.input(rng.below(num_inputs)),
                1 => case.dag.constant(rng.uniform(-3.0, 3.0)),
                _ => *rng.pick(&case.outputs),
            };
            let at = rng.below(case.outputs.len() + 1);
            case.outputs.insert(at, node);
        }
        let mut points = case.probe_points(&mut rng);
        points.truncate(points.len() | 1);
        for chunk_size in [1000, 3] {
            let (compiler, source) = (compiler.clone().with_chunk_size(chunk_size), case.kernel());
            let jit = compiler.compile(&source).unwrap();
            assert_batch_parity(
                &compiler,
                &source,
                &jit,
                &points,
                &format!("seed {seed}, chunks of {chunk_size}"),
            );
        }
    }
}

#[test]
fn inline_powers_take_pow_lane_by_lane_out_of_range() {
    let Ok(compiler) = JitCompiler::new() else { return };
    for k in [-16, -7, -3, 3, 5, 16] {
        let program = frontend::parse_program(&format!("in x\nout x^{k}")).unwrap();
        let source = program.kernel().unwrap();
        // In range next to out of range (tiny, huge, zero, NaN), in both lanes.
        let values = [1.5, 1e-300, 0.7, 1e300, -2.0, 0.0, 3.0, f64::NAN, -0.0, 1.1, f64::INFINITY, 0.9];
        let points: Vec<Vec<f64>> = values.iter().map(|&v| vec![v]).collect();
        let kernel = compiler.compile(&source).unwrap();
        assert_batch_parity(&compiler, &source, &kernel, &points, &format!("x^{k}"));
        let reversed: Vec<Vec<f64>> = points.iter().rev().cloned().collect();
        let kernel = compiler.compile(&source).unwrap();
        assert_batch_parity(&compiler, &source, &kernel, &reversed, &format!("x^{k}, reversed"));
    }
}

#[test]
fn two_points_match_one_point_on_the_corpus() {
    let Ok(compiler) = JitCompiler::new() else { return };
    for problem in corpus() {
        let (name, program) = (problem.name, problem.program);
        let source = program.kernel().unwrap();
        let kernel = compiler.compile(&source).unwrap();
        let x = point_of(&program);
        let points: Vec<Vec<f64>> =
            (0..7).map(|i| x.iter().map(|v| v * (1.0 + 0.01 * i as f64)).collect()).collect();
        assert_batch_parity(&compiler, &source, &kernel, &points, &name);
    }
}
