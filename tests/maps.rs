//! Maps ([`frontend::map`], [`factor::mapped`]): programs of real shape
//! (the zoo's families in function and flat form, `gen.py`'s cart-pole,
//! fit and minimal surface, structured and flat) decomposed with low
//! thresholds so that every family's repetitions become maps, then:
//! - the decomposition computes the program's values (rows bit for bit,
//!   split sums within rounding);
//! - the mapped Jacobian, gradient and Lagrangian Hessian (alone, and with the
//!   values and the gradient `wᵀJ`) equal the whole program's (D*, edge
//!   pushing) within rounding, on the same sparsity patterns;
//! - the compiled map kernel equals the interpreter of the map kernel bit
//!   for bit.
//!
//! Longer sizes under `DSTAR_LONG=1`.

use dstar::frontend::map::{decompose, Decomposition, MapKernel, MapRules};
use dstar::frontend::{parse_program, Kernel, Program};
use dstar::JitCompiler;
use testkit::map_rules::{COMPUTING, COPYING, LIFTING, RULES};
use testkit::zoo::{Form, Zoo};
use testkit::{close, gen_py, same_bits, Rng, Tol};

/// The sizes tried: short always, long under `DSTAR_LONG=1`.
fn sizes() -> Vec<usize> {
    if std::env::var_os("DSTAR_LONG").is_some() {
        vec![3, 17, 64, 300]
    } else {
        vec![3, 17]
    }
}

/// Every zoo family and form, and `gen.py`'s families, at size `n`.
fn programs(n: usize) -> Vec<(String, Program)> {
    let mut programs = Vec::new();
    for family in Zoo::ALL {
        for form in [Form::Functions, Form::Flat] {
            let name = format!("{} {} {n}", family.name(), form.name());
            programs.push((name, parse_program(&family.generate(n, form)).expect("the zoo parses")));
        }
    }
    for family in ["cartpole", "fit", "minsurf"] {
        for form in [&[][..], &["--flat"][..]] {
            let name = format!("gen.py {family} {n} {form:?}");
            programs.push((name, parse_program(&gen_py(family, n, form)).expect("gen.py parses")));
        }
    }
    programs
}

/// A point of the program's inputs and parameters (its own, else seeded).
fn point(program: &Program, rng: &mut Rng) -> Vec<f64> {
    let mut x = program
        .point
        .clone()
        .unwrap_or_else(|| (0..program.inputs.len()).map(|_| rng.uniform(-0.9, 0.9)).collect());
    x.extend((0..program.params.len()).map(|_| rng.uniform(0.5, 1.5)));
    x
}

const TOL: Tol = Tol { rel: 1e-11, abs: 1e-11 };

fn assert_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w, TOL), "{what}: entry {k}: {g} (maps) vs {w} (whole)");
    }
}

/// The values of `d` at `x`: zero plus the rest's, plus each map's results
/// added in (independently of `MapKernel`).
fn values(d: &Decomposition, x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; d.rest.num_outputs()];
    for (o, v) in d.rest.eval(x).into_iter().enumerate() {
        out[o] += v;
    }
    // Leaves past the input read the computed values, then the constants.
    let mut x = x.to_vec();
    if let Some(computed) = &d.computed {
        x.extend(computed.eval(&x));
    }
    x.extend_from_slice(&d.constants);
    for map in &d.maps {
        let (width, t) = (map.body.num_inputs(), map.body.num_outputs());
        // A result every instance adds into the same output: summed over
        // the even instances and over the odd ones, then both added.
        let summed: Vec<bool> =
            (0..t).map(|r| (0..map.instances).all(|i| map.targets[i * t + r] == map.targets[r])).collect();
        let (mut even, mut odd) = (vec![0.0; t], vec![0.0; t]);
        for i in 0..map.instances {
            let leaves: Vec<f64> = map.leaves[i * width..][..width].iter().map(|&k| x[k as usize]).collect();
            let sums = if i % 2 == 0 { &mut even } else { &mut odd };
            for (r, v) in map.body.eval(&leaves).into_iter().enumerate() {
                match summed[r] {
                    true => sums[r] += v,
                    false => out[map.targets[i * t + r] as usize] += v,
                }
            }
        }
        for r in (0..t).filter(|&r| summed[r]) {
            out[map.targets[r] as usize] += even[r] + odd[r];
        }
    }
    out
}

/// The compiled map kernel equals its interpreter bit for bit.
fn assert_compiled_same(what: &str, kernel: &MapKernel, lengths: &[usize], input: &[f64]) {
    let compiled = JitCompiler::new().unwrap().compile_mapped(kernel, lengths).expect("compiles");
    let mut parts = Vec::new();
    let mut at = 0;
    for &len in lengths {
        parts.push(&input[at..at + len]);
        at += len;
    }
    let mut out = vec![0.0; kernel.num_outputs];
    compiled.eval_parts(&parts, &mut out).unwrap();
    assert!(same_bits(&out, &kernel.eval(input)), "{what}: compiled map kernel vs its interpreter");
}

fn check(name: &str, program: &Program, rules: &MapRules, rng: &mut Rng) -> bool {
    let kernel: Kernel = program.kernel().unwrap();
    let Some(d) = decompose(&kernel, rules) else { return false };
    let x = point(program, rng);
    let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());

    let whole = kernel.eval(&x);
    assert_close(&format!("{name}: values"), &values(&d, &x), &whole);
    let mapped = dstar::factor::mapped_values(&d);
    assert!(same_bits(&mapped.eval(&x), &values(&d, &x)), "{name}: mapped values");
    assert_compiled_same(&format!("{name}: values"), &mapped, &[n, q], &x);

    // With computed values, maps that copy them where a Jacobian's rows differ per instance.
    let copied = || decompose(&kernel, &MapRules { compute_common: false, ..*rules }).expect("the same maps");
    let (mapped, pattern) = match dstar::factor::mapped_jacobian(&d) {
        Some(built) => built,
        None => dstar::factor::mapped_jacobian(&copied()).expect("no computed values"),
    };
    let jacobian = dstar::factor::jacobian(kernel.clone());
    assert_eq!(&pattern, jacobian.pattern(), "{name}: the Jacobian's pattern");
    assert_close(&format!("{name}: Jacobian"), &mapped.eval(&x), &jacobian.kernel().eval(&x));
    assert_compiled_same(&format!("{name}: Jacobian"), &mapped, &[n, q], &x);

    let mapped = dstar::factor::mapped_gradient(&d);
    let gradient = dstar::factor::gradient(kernel.clone());
    assert_close(&format!("{name}: gradient"), &mapped.eval(&x), &gradient.eval(&x));
    assert_compiled_same(&format!("{name}: gradient"), &mapped, &[n, q], &x);

    let (mapped, pattern) = match d.computed {
        Some(_) => dstar::factor::mapped_hessian(&copied()),
        None => dstar::factor::mapped_hessian(&d),
    };
    let hessian = dstar::factor::lagrangian_hessian(kernel.clone());
    assert_eq!(&pattern, hessian.lower_pattern(), "{name}: the Hessian's pattern");
    let mut input = x.clone();
    input.extend((0..m).map(|_| rng.uniform(-2.0, 2.0)));
    assert_close(&format!("{name}: Hessian"), &mapped.eval(&input), &hessian.lower_kernel().eval(&input));
    assert_compiled_same(&format!("{name}: Hessian"), &mapped, &[n, q, m], &input);

    // The values, gradient and Hessian in one kernel, as `dstar emit --hessian` writes it.
    let (mapped, gradient, lower) = match d.computed {
        Some(_) => dstar::factor::mapped_lagrangian(&copied()),
        None => dstar::factor::mapped_lagrangian(&d),
    };
    assert_eq!(&gradient, hessian.gradient_pattern(), "{name}: the Lagrangian's gradient pattern");
    assert_eq!(&lower, hessian.lower_pattern(), "{name}: the Lagrangian's Hessian pattern");
    assert_close(&format!("{name}: Lagrangian"), &mapped.eval(&input), &hessian.kernel().eval(&input));
    assert_compiled_same(&format!("{name}: Lagrangian"), &mapped, &[n, q, m], &input);
    true
}

#[test]
fn maps_compute_what_the_program_computes() {
    let mut rng = Rng::new(7);
    for n in sizes() {
        let mut without = Vec::new();
        for (name, program) in programs(n) {
            check(&format!("{name}, copying"), &program, &COPYING, &mut rng);
            check(&format!("{name}, computing"), &program, &COMPUTING, &mut rng);
            check(&format!("{name}, lifting"), &program, &LIFTING, &mut rng);
            if !check(&name, &program, &RULES, &mut rng) {
                without.push(name);
            }
        }
        eprintln!("n = {n}: no maps in {without:?}");
        // Chains (each step reads the one before), trees, and repetitions
        // reading a shared computed value costlier than a copy (one
        // instance each) have none; a dense block's terms differ in their
        // coefficients (maps only where the generator repeats them).
        assert!(without.len() <= 20, "n = {n}: no maps in {without:?}");
        let must = ["cartpole", "minsurf", "multiple"];
        assert!(!without.iter().any(|name| must.iter().any(|m| name.contains(m))), "n = {n}: {without:?}");
    }
}

/// Data written into a program as numbers (a fit's abscissae and
/// observations, a mixture's points): with constants taken out, each
/// point is an instance of one map reading its own numbers, and the
/// exponents stay in the body; without, no two points are alike.
#[test]
fn data_written_as_numbers_becomes_maps_with_constants_taken_out() {
    let mut rng = Rng::new(11);
    for n in sizes().into_iter().filter(|&n| n >= 16) {
        let mut fit = String::from("in a, b, c\n");
        for i in 0..n {
            let (t, y) = (rng.uniform(0.0, 3.0), rng.uniform(-1.0, 1.0));
            fit += &format!("out r{i} = a*exp(-b*{t}) + c*(a - {t})^2 - {y}\n");
        }
        let mut sum = String::from("in a, b, c\nout f = 0");
        for _ in 0..n {
            let (t, y) = (rng.uniform(0.0, 3.0), rng.uniform(-1.0, 1.0));
            sum += &format!(" + (a*exp(-b*{t}) + c*(b - {t})^3 - {y})^2");
        }
        sum += "\n";
        let gmm = gen_py("gmm", n, &["--flat"]);
        for (name, source) in [("fit", fit), ("least squares", sum), ("gmm --flat", gmm)] {
            let program = parse_program(&source).expect("parses");
            let kernel = program.kernel().unwrap();
            let without = decompose(&kernel, &COMPUTING).map_or(0, |d| d.mapped_ops());
            let d = decompose(&kernel, &LIFTING).expect("maps");
            assert!(
                d.mapped_ops() * 10 >= 9 * d.written_out_ops() && d.mapped_ops() > without,
                "{name} {n}: {} of {} operations mapped (without: {without})",
                d.mapped_ops(),
                d.written_out_ops()
            );
            let big = d.maps.iter().max_by_key(|m| m.instances).expect("a map");
            let exponents =
                big.body.dag().ids().filter(|&id| big.body.dag().op(id) == dstar::frontend::Op::Pow);
            for pow in exponents {
                let exponent = big.body.dag().args(pow)[1];
                assert!(big.body.dag().as_const(exponent).is_some(), "{name}: an exponent taken out");
            }
            assert!(check(&format!("{name} {n}, lifting"), &program, &LIFTING, &mut rng));
        }
    }
}

#[test]
fn repeated_intervals_become_one_map_in_both_forms() {
    let rules = MapRules { split_terms: 8, ..RULES };
    // Structured: the 40 intervals' defects (4 outputs, one call each) and
    // the 40 terms of the cost, every column affine in the interval.
    let program = parse_program(&gen_py("cartpole", 40, &[])).unwrap();
    let d = decompose(&program.kernel().unwrap(), &rules).expect("maps");
    let instances: Vec<usize> = d.maps.iter().map(|m| m.instances).collect();
    assert_eq!(instances[..2], [40, 40]);
    let (kernel, _) = dstar::factor::mapped_jacobian(&d).expect("no computed values");
    let tables: usize = kernel.pieces.iter().map(|p| p.gather.table_len() + p.places.table_len()).sum();
    assert_eq!(tables, 0, "every column affine");
    // Written out: the RK4 step of every interval is one instance, the
    // first too (it writes the step's literals first).
    let program = parse_program(&gen_py("cartpole", 40, &["--flat"])).unwrap();
    let d = decompose(&program.kernel().unwrap(), &rules).expect("maps");
    assert!(d.maps.iter().any(|m| m.instances == 40 && m.body.count_ops() >= 100), "the flat steps");
}

/// Hash-consing puts a commutative operation's older argument first, and a
/// literal's node is made where it is first written: the first instance of
/// a written-out run has `2*t` where every later one has `t*2` (in node
/// order), and was a shape of its own. Generated runs whose bodies mix
/// literals with their own values in `+`, `*`, `min`, `max` and `hypot`,
/// written both ways round: every instance is one map, and the maps
/// compute what the program computes.
#[test]
fn the_instance_that_writes_a_literal_first_maps_with_the_others() {
    let mut rng = Rng::new(29);
    for trial in 0..24 {
        let n = 12 + trial;
        let literals: Vec<String> =
            (0..4).map(|k| format!("{:.3}", 0.5 + 0.25 * k as f64 + 0.001 * trial as f64)).collect();
        // The body: steps over the instance's input, its earlier steps and the literals.
        let steps: Vec<(usize, usize, usize, bool)> = (0..3 + trial % 5)
            .map(|j| (rng.below(5), rng.below(j + 1), rng.below(4), rng.chance(0.5)))
            .collect();
        let mut source = format!("in {}\n", (0..n).map(|i| format!("x{i}")).collect::<Vec<_>>().join(", "));
        for i in 0..n {
            let mut values = vec![format!("x{i}")];
            for (j, &(op, earlier, literal, literal_first)) in steps.iter().enumerate() {
                let (a, b) = (values[earlier].clone(), literals[literal].clone());
                let (a, b) = if literal_first { (b, a) } else { (a, b) };
                let expression = match op {
                    0 => format!("{a} + {b}"),
                    1 => format!("{a} * {b}"),
                    2 => format!("min({a}, {b})"),
                    3 => format!("max({a}, {b})"),
                    _ => format!("hypot({a}, {b})"),
                };
                source.push_str(&format!("v{i}_{j} = {expression}\n"));
                values.push(format!("v{i}_{j}"));
            }
            source.push_str(&format!("out y{i} = sin({})\n", values.last().expect("a value")));
        }
        let program = parse_program(&source).unwrap();
        let d = decompose(&program.kernel().unwrap(), &RULES).expect("maps");
        let instances: Vec<usize> = d.maps.iter().map(|m| m.instances).collect();
        assert_eq!(instances, [n], "trial {trial}:\n{source}");
        assert!(check(&format!("literals first, trial {trial}"), &program, &RULES, &mut rng));
    }
}

#[test]
fn a_run_broken_by_one_odd_instance_maps_the_rest() {
    let mut source = String::from("in ");
    source.push_str(&(0..40).map(|i| format!("x{i}")).collect::<Vec<_>>().join(", "));
    source.push('\n');
    for i in 0..39 {
        let body =
            if i == 20 { format!("cos(x{i}) * x{}", i + 1) } else { format!("sin(x{i}) * x{}", i + 1) };
        source.push_str(&format!("out {body}\n"));
    }
    let program = parse_program(&source).unwrap();
    let d = decompose(&program.kernel().unwrap(), &RULES).expect("maps");
    assert_eq!(d.maps.len(), 1);
    assert_eq!(d.maps[0].instances, 38);
    assert!(check("broken run", &program, &RULES, &mut Rng::new(3)));
}

#[test]
fn small_kernels_are_not_mapped_by_the_plan() {
    let program = parse_program(&gen_py("cartpole", 5, &[])).unwrap();
    assert!(dstar::factor::plan::maps(&program.kernel().unwrap()).is_none());
}

#[test]
fn small_kernels_of_large_instances_get_their_derivatives_as_maps() {
    use dstar::factor::request::{build, Build, Searches, Symbolic};
    use dstar::Request;
    let built = |f: &Kernel, request| match build(request, f, &Searches::default()).unwrap() {
        Build::Kernel(built) => Some(matches!(built.kernel, Symbolic::Maps(_))),
        Build::Jacobian => None,
    };
    // Cart-pole's RK4 step, about 140 ops an instance, on both sides of
    // plan::MAP_SMALL_KERNEL_OPS (4,096 ops written out) in both forms:
    // above it the derivatives are maps, the values whole.
    for (n, form) in [(25, &[][..]), (25, &["--flat"][..]), (40, &[][..]), (40, &["--flat"][..])] {
        let what = format!("cartpole {n} {form:?}");
        let f = parse_program(&gen_py("cartpole", n, form)).unwrap().kernel().unwrap();
        let small = dstar::frontend::map::written_out(&f) < dstar::factor::plan::MAP_SMALL_KERNEL_OPS;
        assert_eq!(small, n == 25, "{what}: the sizes straddle the limit");
        assert_eq!(built(&f, Request::Hessian), Some(!small), "{what}: the Hessian");
        let jacobian = if small { None } else { Some(true) };
        assert_eq!(built(&f, Request::Jacobian), jacobian, "{what}: the Jacobian");
        assert_eq!(built(&f, Request::Gradient), Some(!small), "{what}: the gradient");
        assert_eq!(built(&f, Request::Values), Some(false), "{what}: the values are whole");
    }
    // A grid's cells, 9 ops an instance, from 5,625 ops to 19,881: the
    // Hessian as maps, the Jacobian and the gradient whole; from 20,000
    // (MAP_MIN_OPS) all as maps.
    for (n, form) in [(25, &[][..]), (47, &[][..]), (47, &["--flat"][..]), (60, &[][..])] {
        let what = format!("minsurf {n} {form:?}");
        let f = parse_program(&gen_py("minsurf", n, form)).unwrap().kernel().unwrap();
        let written_out = dstar::frontend::map::written_out(&f);
        let found = dstar::factor::plan::maps(&f).expect("the cells are maps");
        let small = dstar::factor::plan::small_bodies(&found, written_out);
        assert_eq!(small, n < 60, "{what}: {written_out} ops straddle MAP_MIN_OPS");
        assert_eq!(built(&f, Request::Hessian), Some(true), "{what}: the Hessian");
        let whole = if small { None } else { Some(true) };
        assert_eq!(built(&f, Request::Jacobian), whole, "{what}: the Jacobian");
        assert_eq!(built(&f, Request::Gradient), Some(!small), "{what}: the gradient");
    }
}

/// Where the maps found computing common values compute none and their
/// bodies are small ([`dstar::factor::plan::copies_nothing`]), the
/// Lagrangian Hessian takes them instead of searching again: the second
/// search must find the same maps, so the Hessians built from either are
/// the same kernel, bit for bit.
#[test]
fn maps_that_copy_nothing_are_the_copied_maps() {
    use dstar::factor::plan::{copied_maps, copies_nothing, maps};
    let mut programs: Vec<(String, Program)> = Vec::new();
    for family in Zoo::ALL {
        for form in [Form::Functions, Form::Flat] {
            let name = format!("{} {} 300", family.name(), form.name());
            programs.push((name, parse_program(&family.generate(300, form)).expect("the zoo parses")));
        }
    }
    for (family, n) in [("cartpole", 40), ("cartpole", 150), ("fit", 1000), ("gmm", 30)] {
        for form in [&[][..], &["--flat"][..]] {
            let program = parse_program(&gen_py(family, n, form)).expect("gen.py parses");
            programs.push((format!("gen.py {family} {n} {form:?}"), program));
        }
    }
    let mut rng = Rng::new(11);
    let mut reused = Vec::new();
    for (name, program) in &programs {
        let f = program.kernel().unwrap();
        let Some(found) = maps(&f).filter(copies_nothing) else { continue };
        let copied = copied_maps(&f).unwrap_or_else(|| panic!("{name}: the second search finds maps"));
        let (a, pattern_a) = dstar::factor::mapped_hessian(&found);
        let (b, pattern_b) = dstar::factor::mapped_hessian(&copied);
        assert_eq!(pattern_a, pattern_b, "{name}: the Hessian's pattern");
        assert_eq!(a.count_ops(), b.count_ops(), "{name}: the Hessian's ops");
        let input = rng.point(f.num_inputs() + f.num_outputs(), -1.0, 1.0);
        assert!(same_bits(&a.eval(&input), &b.eval(&input)), "{name}: the Hessians' values");
        reused.push(name.clone());
    }
    eprintln!("maps reused on {reused:?}");
    assert!(reused.len() >= 4, "maps reused on {reused:?} only");
}

#[test]
fn neighbours_sharing_a_node_become_maps_by_copying() {
    // Collocation: each node's dynamics (a call, or written out) is read by
    // the intervals on both sides, which the first search makes one
    // instance; the second copies the dynamics into both.
    for form in [Form::Functions, Form::Flat] {
        let text = Zoo::Collocation.generate(30, form);
        let program = parse_program(&text).unwrap();
        let kernel = program.kernel().unwrap();
        let strict = decompose(&kernel, &MapRules { split_terms: 8, ..RULES }).expect("the cost");
        let d = decompose(&kernel, &MapRules { split_terms: 8, ..COPYING }).expect("maps");
        // The cost's terms, then each defect (written out, the first
        // interval's second defect adds its node values in the other order).
        let instances: Vec<usize> = d.maps.iter().map(|m| m.instances).collect();
        assert!(instances == [31, 30, 30] || instances == [31, 30, 29], "{form:?}: {instances:?}");
        let unmapped = |d: &Decomposition| d.written_out_ops() - d.mapped_ops();
        assert!(unmapped(&d) * 20 < d.written_out_ops(), "{form:?}");
        assert!(
            unmapped(&strict) * 3 > strict.written_out_ops(),
            "{form:?}: the first search leaves the defects"
        );
        assert!(check(&format!("collocation {form:?}"), &program, &COPYING, &mut Rng::new(5)));
        // The plan tries the second search where the first leaves most unmapped.
        let program = parse_program(&Zoo::Collocation.generate(2000, form)).unwrap();
        let d = dstar::factor::plan::maps(&program.kernel().unwrap()).expect("the plan maps collocation");
        assert!(d.mapped_ops() * 100 >= 99 * d.written_out_ops(), "{form:?}");
    }
}

#[test]
fn a_value_many_instances_read_is_computed_once() {
    // `exp(a)`, read by every instance: summed into one output, its adjoint
    // is summed over the instances and chained through `exp` once; in rows
    // of their own, the Jacobian copies it instead (the gradient still
    // sums), and so does the Hessian.
    let inputs: Vec<String> = (0..20).map(|i| format!("x{i}")).collect();
    let header = format!("in a, {}\n", inputs.join(", "));
    let terms: Vec<String> = (0..20).map(|i| format!("sin(x{i}) * exp(a) * x{i}")).collect();
    let summed = format!("{header}out {}\n", terms.join(" + "));
    let rows = format!("{header}{}", terms.iter().map(|t| format!("out {t}\n")).collect::<String>());
    for (name, source, summed) in [("summed", summed, true), ("rows", rows, false)] {
        let program = parse_program(&source).unwrap();
        let d = decompose(&program.kernel().unwrap(), &COMPUTING).expect("maps");
        assert_eq!(d.computed.as_ref().map(Kernel::num_outputs), Some(1), "{name}");
        assert_eq!(dstar::factor::mapped_jacobian(&d).is_some(), summed, "{name}");
        assert!(check(name, &program, &COMPUTING, &mut Rng::new(11)), "{name}");
    }
}

#[test]
fn a_mixture_model_computes_its_shared_values_once() {
    // gen.py's gmm: every point's term reads exp(q) of all the factors'
    // diagonals and the sums of q: computed once, the adjoints summed.
    let program = parse_program(&gen_py("gmm", 17, &[])).unwrap();
    let d = decompose(&program.kernel().unwrap(), &COMPUTING).expect("maps");
    assert_eq!(d.computed.as_ref().map(Kernel::num_outputs), Some(55), "50 exp(q) and 5 sums");
    assert!(check("gmm 17", &program, &COMPUTING, &mut Rng::new(13)));
}

/// `n` instances of a chain of `steps` steps over `x_i` and the shared
/// `a` and `b`, each summed into `f` and kept in a row of its own.
fn shared_chains(n: usize, steps: usize) -> String {
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let mut s = format!("in a, b, {}\n", xs.join(", "));
    for i in 0..n {
        s += &format!("t{i}_0 = x{i}\n");
        for k in 1..=steps {
            s += &format!("t{i}_{k} = t{i}_{}*a + sin(t{i}_{})*b\n", k - 1, k - 1);
        }
    }
    let ends: Vec<String> = (0..n).map(|i| format!("t{i}_{steps}")).collect();
    s += &format!("out f = {}\n", ends.join(" + "));
    for (i, end) in ends.iter().enumerate() {
        s += &format!("out r{i} = {end}*x{i}\n");
    }
    s
}

/// Bodies large enough to run two instances at once, one per SIMD lane,
/// each lane adding into sums of its own (the value, the shared inputs'
/// gradient and Hessian entries): on both sides of the pairs' threshold,
/// and with an instance left over, the compiled map kernels equal their
/// interpreter bit for bit, and the program within rounding.
#[test]
fn sums_of_instances_run_in_pairs_equal_the_interpreter() {
    let mut rng = Rng::new(19);
    for n in [7, 8, 9, 16, 17] {
        let program = parse_program(&shared_chains(n, 40)).unwrap();
        let d = decompose(&program.kernel().unwrap(), &RULES).expect("maps");
        assert_eq!(d.maps.iter().map(|m| m.instances).collect::<Vec<_>>(), [n], "{n}: one map");
        assert!(d.maps[0].body.count_ops() >= 128, "{n}: a body large enough for pairs");
        assert!(check(&format!("shared chains {n}"), &program, &RULES, &mut rng), "{n}");
    }
}
