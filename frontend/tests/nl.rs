//! The `.nl` reader against Pyomo: fixtures written by Pyomo
//! (`tests/nl/make_fixtures.py`), whose outputs' values and gradients must
//! be Pyomo's own evaluation and differentiation; malformed files give
//! errors at their line and never panic; size is read in linear time.

use frontend::nl::{parse_nl, Bound, NlModel, NlNames, Sense};
use frontend::{NodeId, Op};
use serde_json::Value;
use std::path::PathBuf;
use testkit::{as_vec, close, Tol};

const FIXTURES: [&str; 5] = ["hs71", "chain", "mixed", "constraints_only", "functions"];

fn fixture_path(name: &str, ext: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/nl").join(format!("{name}.{ext}"))
}

fn read(name: &str, ext: &str) -> String {
    let path = fixture_path(name, ext);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture's model, named from its `.row` and `.col` files.
fn model(name: &str) -> NlModel {
    let names = NlNames::from_files(Some(&read(name, "row")), Some(&read(name, "col")));
    parse_nl(&read(name, "nl"), &names).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn reference(name: &str) -> Value {
    serde_json::from_str(&read(name, "json")).expect("JSON")
}

/// The .nl body differs from Pyomo's by the constant Pyomo moved into the
/// bounds: the difference of Pyomo's bound and the .nl's.
fn moved_constant(output: &Value, bound: Bound) -> f64 {
    match (output["lower"].as_f64(), output["upper"].as_f64()) {
        (Some(lower), _) => lower - bound.lower(),
        (None, Some(upper)) => upper - bound.upper(),
        (None, None) => 0.0,
    }
}

#[test]
fn values_and_gradients_are_pyomos() {
    for name in FIXTURES {
        let (model, want) = (model(name), reference(name));
        let program = &model.program;
        let point = as_vec(&want["point"]);
        // serde_json's default float parsing may be an ulp off.
        let initial = as_vec(&want["initial"]);
        assert!(
            testkit::all_close(program.point.as_ref().unwrap(), &initial, Tol::rel(1e-15)),
            "{name}: initial point"
        );
        let outputs = want["outputs"].as_array().expect("outputs");
        assert_eq!(program.outputs.len(), outputs.len(), "{name}");
        let has_objective = model.objective.is_some();
        let values = frontend::eval_program(program, &point);
        let roots = program.output_nodes();
        let duals: Vec<_> =
            (0..point.len()).map(|k| testkit::eval_dual(&program.dag, &roots, &point, k).outputs).collect();
        for (r, output) in outputs.iter().enumerate() {
            let label = format!("{name} output {r} ({})", output["name"]);
            let shift = match r.checked_sub(usize::from(has_objective)) {
                None => 0.0,
                Some(c) => {
                    assert_eq!(model.constraint_names[c], output["name"].as_str().unwrap(), "{label}");
                    moved_constant(output, model.constraint_bounds[c])
                }
            };
            let want_value = output["value"].as_f64().unwrap();
            assert!(
                close(values[r] + shift, want_value, Tol::rel(1e-12)),
                "{label}: {} vs {want_value}",
                values[r]
            );
            let tol = if output["exact_gradient"] == true { Tol::rel(1e-11) } else { Tol::rel(1e-6) };
            for (k, g) in as_vec(&output["gradient"]).into_iter().enumerate() {
                let got = duals[k][r].d;
                assert!(close(got, g, tol), "{label}: d/d{} = {got} vs {g}", program.inputs[k]);
            }
        }
        if let Some(objective) = &model.objective {
            let sense = if objective.sense == Sense::Maximize { "max" } else { "min" };
            assert_eq!(want["sense"][0], sense, "{name}");
            assert_eq!(objective.name, outputs[0]["name"].as_str().unwrap());
        }
    }
}

#[test]
fn names_come_from_the_col_and_row_files_as_identifiers() {
    let model = model("hs71");
    assert_eq!(model.var_names, ["x[1]", "x[2]", "x[3]", "x[4]"]);
    assert_eq!(model.program.inputs, ["x_1", "x_2", "x_3", "x_4"]);
    assert_eq!(model.program.output_names(), ["obj", "product", "squares"]);
    let unnamed = parse_nl(&read("hs71", "nl"), &NlNames::default()).unwrap();
    assert_eq!(unnamed.program.inputs, ["x0", "x1", "x2", "x3"]);
    assert_eq!(unnamed.program.output_names(), ["obj", "c0", "c1"]);
    let text = frontend::print_program(&model.program);
    let reparsed = frontend::parse_program(&text).unwrap();
    assert!(reparsed.same_as(&model.program), "{text}");
}

#[test]
fn bounds_ranges_and_duals_are_kept() {
    let model = model("mixed");
    let codes: Vec<u8> = model.constraint_bounds.iter().map(|b| b.code()).collect();
    assert_eq!(codes, [0, 1, 2, 4, 4, 0], "{:?}", model.constraint_bounds);
    assert_eq!(model.var_bounds[0], Bound::Range { lower: -2.0, upper: 2.0 });
    let by_name = |name: &str| model.var_names.iter().position(|n| n == name).unwrap();
    assert_eq!(model.var_bounds[by_name("y")], Bound::Lower(0.0));
    assert_eq!(model.var_bounds[by_name("z")], Bound::Free);
    assert_eq!(model.var_bounds[by_name("w")], Bound::Upper(4.0));
    assert_eq!(model.objective.as_ref().map(|o| o.sense), Some(Sense::Maximize));
    assert_eq!(model.duals, vec![0.0; 6]);
    let with_duals = read("hs71", "nl").replace("r\t#", "d2\n0 1.5\n1 -2\nr\t#");
    let hs71 = parse_nl(&with_duals, &NlNames::default()).unwrap();
    assert_eq!(hs71.duals, [1.5, -2.0]);
    assert_eq!(hs71.constraint_bounds, [Bound::Lower(25.0), Bound::Equal(40.0)]);
}

/// A solver's program has the objective first: a constant 0 for a model
/// without one; the names beside the file are the `.row` and `.col` files.
#[test]
fn program_with_objective_puts_zero_before_the_constraints() {
    let names = NlNames::beside(&fixture_path("constraints_only", "nl"));
    assert_eq!(
        names,
        NlNames::from_files(Some(&read("constraints_only", "row")), Some(&read("constraints_only", "col")))
    );
    let model = model("constraints_only");
    let program = model.program_with_objective();
    assert_eq!(program.output_names()[0], "obj");
    assert_eq!(&program.output_names()[1..], model.program.output_names());
    let x = model.program.point.clone().unwrap();
    let y = frontend::eval_program(&program, &x);
    assert_eq!(y[0], 0.0);
    assert_eq!(y[1..], frontend::eval_program(&model.program, &x)[..]);
    let hs71 = self::model("hs71");
    assert!(hs71.program_with_objective().same_as(&hs71.program));
    assert_eq!(NlNames::beside(&fixture_path("absent", "nl")), NlNames::default());
}

/// Each `Expression` is one node however many constraints use it: the
/// chain's 21 arc-length integrands `sqrt(1 + u^2)` are 21 square roots.
#[test]
fn defined_variables_are_shared_not_copied() {
    let model = model("chain");
    let dag = &model.program.dag;
    let reach = dag.reachable(&model.program.output_nodes());
    let sqrts = dag.ids().filter(|id| reach[id.index()] && dag.op(*id) == Op::Sqrt).count();
    assert_eq!(sqrts, 21);
    assert_eq!(model.header.defined, 21);
}

/// The error's line and message for `text`.
fn error(text: &str) -> (u32, String) {
    let e = parse_nl(text, &NlNames::default()).expect_err("an error");
    (e.span.start.line, e.to_string())
}

/// hs71.nl with line `line` (from 1) replaced by `with`.
fn hs71_with(line: usize, with: &str) -> String {
    let text = read("hs71", "nl");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[line - 1] = with;
    lines.join("\n") + "\n"
}

#[test]
fn malformed_files_are_errors_at_their_line() {
    let text = read("hs71", "nl");
    let c0 = text.lines().position(|l| l.starts_with("C0")).unwrap() + 1;
    let (line, message) = error(&hs71_with(c0 + 1, "o74"));
    assert_eq!(
        (line as usize, message.as_str()),
        (c0 + 1, &*format!("{}:1: o-code o74 (alldiff) is not supported", c0 + 1))
    );
    let (line, message) = error(&hs71_with(c0 + 1, "o7"));
    assert_eq!(line as usize, c0 + 1);
    assert!(message.ends_with("unknown o-code o7"), "{message}");
    let (line, message) = error(&hs71_with(c0 + 4, "v9\t#x"));
    assert_eq!(line as usize, c0 + 4);
    assert!(message.contains("variable 9 is out of range: the header declares 4"), "{message}");
    let (line, message) = error(&hs71_with(c0 + 4, "nx1"));
    assert!(line as usize == c0 + 4 && message.contains("malformed number 'x1'"), "{message}");
    let truncated: String = text.lines().take(c0 + 3).map(|l| format!("{l}\n")).collect();
    let (line, message) = error(&truncated);
    assert_eq!(line as usize, c0 + 3);
    assert!(message.contains("the file ends where an expression node"), "{message}");
    // A text body under a binary header is read as bytes: an error at a byte.
    let (line, message) = error(&text.replacen("g3", "b3", 1));
    assert!(line == 0 && message.starts_with("byte "), "{message}");
    let (line, message) = error(&hs71_with(2, " 99999999999 2 1 0 1"));
    assert!(line == 2 && message.contains("more than a file of"), "{message}");
    let (_, message) = error(&hs71_with(c0, "C7"));
    assert!(message.contains("constraint 7 is out of range"), "{message}");
    let (_, message) = error(&text.replacen("C1\t#squares", "C0\t#again", 1));
    assert!(message.contains("a second C segment for constraint 0"), "{message}");
    let (_, message) = error(&format!("{text}V2 0 0\nn1\n"));
    assert!(message.contains("expected a defined variable's index"), "{message}");
    let (_, message) = error(&format!("{text}F0 1 -1 myfunc\n"));
    assert!(message.contains("imported functions (F segments) are not supported"), "{message}");
}

/// Every prefix of every fixture, and fixtures with bytes changed at
/// random, read without a panic.
#[test]
fn no_input_panics() {
    let mut rng = testkit::Rng::new(38);
    for name in FIXTURES {
        let text = read(name, "nl");
        let mut end = 0;
        for line in text.split_inclusive('\n') {
            end += line.len();
            let _ = parse_nl(&text[..end], &NlNames::default());
            let _ = parse_nl(&text[..end - line.len() / 2], &NlNames::default());
        }
        let alphabet = b"0123456789ovnbgxrdkJGCOVSLF \n\t-.e#h:f";
        for _ in 0..testkit::cases(300, 5000) {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = alphabet[rng.below(alphabet.len())];
            }
            let _ = parse_nl(&bytes, &NlNames::default());
        }
    }
}

/// A model of `n` variables and `n - 1` constraints `x_i * x_(i+1) +
/// 2 x_i - x_(i+1) <= 1`, and an objective `sum of x_i^2` (one o54 list).
fn chain_nl(n: usize) -> String {
    let mut s = format!(
        "g3 1 1 0\n {n} {} 1 0 0\n {} 1\n 0 0\n {n} {n} {n}\n 0 0 0 1\n 0 0 0 0 0\n {} {n}\n 0 0\n 0 0 0 0 0\n",
        n - 1,
        n - 1,
        2 * (n - 1)
    );
    for i in 0..n - 1 {
        s += &format!("C{i}\no2\nv{i}\nv{}\n", i + 1);
    }
    s += &format!("O0 0\no54\n{n}\n");
    for i in 0..n {
        s += &format!("o5\nv{i}\nn2\n");
    }
    s += "r\n";
    for _ in 0..n - 1 {
        s += "1 1\n";
    }
    s += "b\n";
    for _ in 0..n {
        s += "3\n";
    }
    for i in 0..n - 1 {
        s += &format!("J{i} 2\n{i} 2\n{} -1\n", i + 1);
    }
    s
}

/// Reading time grows linearly: a model 8 times larger takes well under
/// 8² times as long, and sums stay shallow (balanced).
#[test]
fn large_models_read_in_linear_time() {
    let time = |n: usize| {
        let text = chain_nl(n);
        let start = std::time::Instant::now();
        let model = parse_nl(&text, &NlNames::default()).unwrap();
        let elapsed = start.elapsed().as_secs_f64();
        assert_eq!(model.program.outputs.len(), n);
        (elapsed, model)
    };
    let (small, _) = time(25_000);
    let (large, model) = time(200_000);
    assert!(large < 30.0 * small.max(1e-3), "25k: {small:.3}s, 200k: {large:.3}s");
    let x: Vec<f64> = (0..200_000).map(|i| (i % 7) as f64 * 0.25).collect();
    let y = frontend::eval_program(&model.program, &x);
    let sum: f64 = x.iter().map(|v| v * v).sum();
    assert!(close(y[0], sum, Tol::rel(1e-12)));
    assert_eq!(y[1], x[0] * x[1] + 2.0 * x[0] - x[1]);
    assert!(depth(&model.program.dag, model.program.outputs[0].node) < 40);
}

/// The longest path from `root` down to a leaf.
fn depth(dag: &frontend::ExprDag, root: NodeId) -> usize {
    let mut depth = vec![0usize; dag.len()];
    for id in dag.ids() {
        depth[id.index()] = dag.args(id).iter().map(|a| depth[a.index()] + 1).max().unwrap_or(0);
    }
    depth[root.index()]
}
