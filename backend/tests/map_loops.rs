//! Map kernels whose bodies are compiled with their loop over the
//! instances ([`backend::mapped`]), one or two instances a step, against
//! the interpreter of the map kernel, bit for bit: generated bodies using
//! every operation (inline powers and their cold branch, `sin`/`cos`
//! pairs, selects) or mostly arithmetic, inputs
//! shared, strided (steps up and down) and gathered through tables,
//! results summed, in rows (up and down) and scattered through tables
//! that repeat places, two results of an instance at one place; one
//! instance, odd and even counts, far past the instances a loop checks
//! itself on; inputs with specials. Longer under `DSTAR_LONG=1`.

use backend::JitCompiler;
use frontend::map::{Column, Columns, MapKernel, Piece};
use frontend::{ExprDag, Kernel};
use testkit::{same, with_seed, Mix, Rng, Shape};

/// Length of the kernel's input and of its output.
const INPUTS: usize = 60;
const OUTPUTS: usize = 40;

/// A column over `n` instances into `0..len`: the same entry for every
/// instance (if `fixed` allows), affine up or down, or a table.
fn column(rng: &mut Rng, n: usize, len: usize, fixed: bool) -> Column {
    let span = |step: usize| step * (n - 1);
    match rng.below(if fixed { 4 } else { 3 }) {
        0 => {
            let step = 1 + rng.below(3);
            if span(step) >= len {
                return table(rng, n, len);
            }
            let low = rng.below(len - span(step)) as u32;
            if rng.chance(0.5) {
                Column::Affine { base: low, step: step as i64 }
            } else {
                Column::Affine { base: low + span(step) as u32, step: -(step as i64) }
            }
        }
        1 | 2 => table(rng, n, len),
        _ => Column::Affine { base: rng.below(len) as u32, step: 0 },
    }
}

/// A table of `n` entries in `0..len`, some repeated.
fn table(rng: &mut Rng, n: usize, len: usize) -> Column {
    let few = 1 + rng.below(len);
    Column::Table((0..n).map(|_| rng.below(few) as u32).collect())
}

/// A map kernel of `pieces` generated bodies, each of `n` instances, over
/// an input of [`INPUTS`] values.
fn map_kernel(rng: &mut Rng, seed: u64, pieces: usize, n: usize) -> MapKernel {
    let pieces = (0..pieces)
        .map(|p| {
            let inputs = 1 + rng.below(6);
            let every = Shape { outputs: 1 + rng.below(6), ..Shape::every(inputs, 5 + rng.below(60)) };
            // Mostly arithmetic: two instances a step; every operation:
            // mostly calls, one a step.
            let shape = if rng.chance(0.5) { Shape { mix: Mix::Algebra, ..every } } else { every };
            let body = with_seed(seed * 10 + p as u64, &shape).kernel();
            let gather = Columns { columns: (0..inputs).map(|_| column(rng, n, INPUTS, true)).collect() };
            let mut places: Vec<Column> =
                (0..body.num_outputs()).map(|_| column(rng, n, OUTPUTS, true)).collect();
            // Two results of an instance at one place.
            if places.len() > 1 && rng.chance(0.3) {
                places[1] = places[0].clone();
            }
            Piece { body, instances: n, gather, places: Columns { columns: places } }
        })
        .collect();
    let mut rest = ExprDag::new();
    let x0 = rest.input(0);
    MapKernel {
        pre: None,
        constants: Vec::new(),
        rest: Kernel::new(rest, vec![x0], INPUTS).unwrap(),
        rest_places: vec![0],
        pieces,
        scratch: 0,
        post: None,
        num_outputs: OUTPUTS,
    }
}

#[test]
fn looped_bodies_add_what_the_interpreter_adds() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let long = std::env::var("DSTAR_LONG").is_ok();
    let mut rng = Rng::new(36);
    let (mut looped, mut paired) = (0, 0);
    for seed in 0..if long { 3000 } else { 120 } {
        let n = *rng.pick(&[1, 2, 3, 8, 9, 17, 40]);
        let pieces = 1 + rng.below(2);
        let kernel = map_kernel(&mut rng, seed, pieces, n);
        let compiled = compiler.compile_mapped(&kernel, &[INPUTS]).unwrap();
        looped += compiled.looped_maps();
        paired += compiled.loops_in_pairs();
        for point in 0..4 {
            let mut x = rng.point(INPUTS, -2.0, 2.0);
            if point > 0 {
                for _ in 0..point {
                    let k = rng.below(INPUTS);
                    x[k] = *rng.pick(&[0.0, -0.0, f64::INFINITY, f64::NAN, 1e300, -1e-300, 0.5]);
                }
            }
            let mut out = vec![f64::NAN; OUTPUTS];
            compiled.eval_parts(&[&x], &mut out).unwrap();
            let want = kernel.eval(&x);
            for (k, (a, b)) in out.iter().zip(&want).enumerate() {
                assert!(
                    same(*a, *b),
                    "seed {seed}, {n} instances, point {point}, output {k}: {a:e} vs {b:e}"
                );
            }
        }
    }
    // Bodies of the two-point variant (128 operations or more) or of
    // several chunks run an instance at a time; most here are looped.
    assert!(looped > 100, "{looped} maps ran in their compiled loop");
    assert!(paired > 40 && paired < looped, "{paired} of {looped} loops ran two instances a step");
}

#[test]
fn bodies_of_several_chunks_run_an_instance_at_a_time() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let mut rng = Rng::new(37);
    for seed in 0..20 {
        let kernel = map_kernel(&mut rng, 900 + seed, 1, 9);
        let split = compiler.clone().with_chunk_size(2).compile_mapped(&kernel, &[INPUTS]).unwrap();
        let whole = compiler.compile_mapped(&kernel, &[INPUTS]).unwrap();
        assert_eq!(whole.looped_maps(), 1, "seed {seed}: one chunk, looped");
        // A looped body may hold four chunks' operations.
        let big = kernel.pieces[0].body.count_ops() > 4 * 2;
        assert_eq!(split.looped_maps(), usize::from(!big), "seed {seed}: several chunks, not looped");
        let x = rng.point(INPUTS, -2.0, 2.0);
        let (mut a, mut b) = (vec![0.0; OUTPUTS], vec![0.0; OUTPUTS]);
        split.eval_parts(&[&x], &mut a).unwrap();
        whole.eval_parts(&[&x], &mut b).unwrap();
        assert!(a.iter().zip(&b).all(|(a, b)| same(*a, *b)), "seed {seed}");
    }
}
