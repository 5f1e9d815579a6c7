//! Hessians built on the active part ([`factor::active::Active`]): a
//! generated program widened with variables nothing reads, outputs that are
//! constants or read only a parameter, and its own outputs spread among
//! them, must give the Lagrangian Hessian of the program itself at the
//! variables' places: the same pattern, the values of the hyper-dual
//! oracle, the function's values bit for bit, and no entry at an unread
//! variable. 300 programs per run; `DSTAR_LONG=1` runs 10,000.

use factor::active::Active;
use frontend::{ExprDag, Kernel, NodeId, Op};
use testkit::{eval_hyper, generate, Rng, Shape};

/// `case`'s kernel widened: its `n` variables at `places` among `wide`
/// variables, one parameter after them, its outputs at `outputs` among
/// `total` outputs, the others constants or functions of the parameter.
struct Widened {
    kernel: Kernel,
    places: Vec<usize>,
    outputs: Vec<usize>,
}

fn widen(rng: &mut Rng, dag: &ExprDag, roots: &[NodeId], n: usize) -> Widened {
    let wide = n + 1 + rng.below(4);
    let mut places: Vec<usize> = (0..wide).collect();
    while places.len() > n {
        places.remove(rng.below(places.len()));
    }
    let total = roots.len() + 1 + rng.below(4);
    let mut outputs: Vec<usize> = (0..total).collect();
    while outputs.len() > roots.len() {
        outputs.remove(rng.below(outputs.len()));
    }
    let mut dag = dag.clone().renumber_inputs(|k| places[k as usize] as u32);
    let parameter = dag.input(wide);
    let mut wide_roots = Vec::with_capacity(total);
    let mut own = roots.iter();
    for o in 0..total {
        wide_roots.push(if outputs.contains(&o) {
            *own.next().expect("one root per place")
        } else if rng.chance(0.5) {
            dag.constant(rng.uniform(-2.0, 2.0))
        } else {
            let square = dag.mul(parameter, parameter);
            dag.apply(Op::Sin, &[square])
        });
    }
    let kernel = Kernel::new(dag, wide_roots, wide + 1).expect("the widened inputs").with_variables(wide);
    Widened { kernel, places, outputs }
}

#[test]
fn hessians_of_widened_programs_are_the_programs_hessians_in_place() {
    let count = testkit::cases(300, 10_000) as u64;
    let mut restricted = 0;
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let mut shape = Shape::random(&mut rng);
        shape.inputs = shape.inputs.min(6);
        let case = generate(&mut rng, &shape);
        let (n, m) = (case.num_inputs, case.outputs.len());
        let own = factor::lagrangian_hessian(case.kernel());
        let widened = widen(&mut rng, &case.dag, &case.outputs, n);
        let (wide, total) = (widened.kernel.num_variables(), widened.kernel.num_outputs());
        restricted += usize::from(Active::of(&widened.kernel).is_some());
        let hessian = factor::lagrangian_hessian(widened.kernel.clone());

        let place = |k: usize| widened.places[k];
        let expected: Vec<(usize, usize)> =
            own.lower_pattern().positions().map(|(r, c)| (place(r), place(c))).collect();
        let found: Vec<(usize, usize)> = hessian.lower_pattern().positions().collect();
        assert_eq!(found, expected, "seed {seed}: the lower triangle's pattern");
        let gradient: Vec<usize> = own.gradient_pattern().cols.iter().map(|&k| place(k)).collect();
        assert_eq!(*hessian.gradient_pattern().cols, gradient, "seed {seed}: the gradient's pattern");

        // x at the places, junk elsewhere; weights at the outputs, junk elsewhere.
        let mut input: Vec<f64> = (0..wide + 1 + total).map(|_| rng.uniform(-3.0, 3.0)).collect();
        let weights: Vec<f64> = (0..m).map(|_| rng.uniform(0.5, 2.0)).collect();
        for (k, &x) in case.point.iter().enumerate() {
            input[place(k)] = x;
        }
        for (i, &w) in weights.iter().enumerate() {
            input[wide + 1 + widened.outputs[i]] = w;
        }
        let out = hessian.kernel().eval(&input);
        let values = case.kernel().eval(&case.point);
        for (i, &o) in widened.outputs.iter().enumerate() {
            assert_eq!(out[o].to_bits(), values[i].to_bits(), "seed {seed}: value of output {i}");
        }
        let lower = &out[total + hessian.gradient_pattern().nnz()..];
        for ((r, c), value) in own.lower_pattern().positions().zip(lower) {
            let hyper = eval_hyper(&case.dag, &case.outputs, &case.point, r, c);
            let exact: f64 = hyper.outputs.iter().zip(&weights).map(|(h, w)| w * h.d12).sum();
            let magnitude: f64 = hyper.outputs.iter().zip(&weights).map(|(h, w)| w.abs() * h.m12).sum();
            if !exact.is_finite() {
                continue;
            }
            let room = 1e-9 * exact.abs() + 1e-11 * magnitude + 1e-13;
            assert!(
                (value - exact).abs() <= room,
                "seed {seed}: entry ({r}, {c}) is {value}, hyper-duals {exact}"
            );
        }
    }
    assert!(restricted as u64 == count, "every widened program has an inactive part");
}
