//! Whatever `:save` writes, `:load` restores exactly: generated sessions of
//! functions with random argument orders, constants, functions of
//! discovered variables, derivatives and redefinitions, some of whose names
//! are also other definitions' arguments, some reading parameters (one of
//! which has no value).

use super::*;
use proptest::prelude::*;
use testkit::same;

/// Definition names; some are argument names too.
const NAMES: [&str; 7] = ["f", "g", "h", "x", "y", "k2", "u"];
const VARS: [&str; 5] = ["x", "y", "z", "u", "w"];
/// The session's parameters, declared first, with their values if any.
const PARAMS: [(&str, Option<f64>); 3] = [("p", Some(0.25)), ("q", Some(-3.0)), ("r", None)];
/// What a parameter without a value is evaluated at.
const NO_VALUE: f64 = 0.5;
const POINTS: [[f64; 5]; 3] =
    [[0.7, -1.3, 2.1, 0.4, 3.0], [-0.2, 0.9, 1.1, -2.5, 0.05], [1.5, 2.5, -0.75, 1e-3, -4.0]];

/// One generated statement, as random numbers that [`statement`] turns into
/// text against the definitions made so far.
type Choice = (u8, [u8; 8]);

fn statement(s: &Session, (kind, r): Choice) -> String {
    let name = NAMES[r[0] as usize % NAMES.len()];
    let defs: Vec<(&String, &Arc<Definition>)> = s.defs.iter().collect();
    match kind % 5 {
        // f(y, x) = ... over a random subset of the variables, in random order.
        0 | 1 => {
            let mut args: Vec<&str> = vec![];
            for (i, v) in VARS.iter().enumerate() {
                if r[1] >> i & 1 == 1 {
                    args.push(v);
                }
            }
            let shift = r[2] as usize % args.len().max(1);
            args.rotate_left(shift);
            if r[3] % 2 == 1 {
                args.reverse();
            }
            let body = expression(&args, &defs, r[4], r[5], 3);
            format!("{name}({}) = {body}", args.join(", "))
        }
        // A constant.
        2 => format!("{name} = {}", ["3", "2^0.5", "-1/3", "pi", "e*2", "sin(1)"][r[1] as usize % 6]),
        // A function of the variables it uses.
        3 => {
            let vars = [VARS[r[1] as usize % 5], VARS[r[2] as usize % 5]];
            format!("{name} = {}", expression(&vars, &defs, r[4], r[5], 3))
        }
        // A derivative of an earlier definition over its arguments, reordered.
        _ => {
            let Some((of, def)) = defs.get(r[1] as usize % defs.len().max(1)) else {
                return format!("{name} = 1");
            };
            let mut args: Vec<&str> = def.program.inputs.iter().map(String::as_str).collect();
            let Some(&var) = args.get(r[2] as usize % args.len().max(1)) else {
                return format!("{name} = 1");
            };
            let shift = r[3] as usize % args.len();
            args.rotate_left(shift);
            format!(
                "{name}({}) = diff({of}, {var}{})",
                args.join(", "),
                [", 1", "", ", 2"][r[6] as usize % 3]
            )
        }
    }
}

/// A random expression over `vars` (in that order) and the definitions.
fn expression(vars: &[&str], defs: &[(&String, &Arc<Definition>)], a: u8, b: u8, depth: u32) -> String {
    let mut rng = u64::from(a) * 7919 + u64::from(b) * 104729 + 17;
    let mut next = |n: u64| {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (rng >> 33) % n
    };
    fn build(
        vars: &[&str],
        defs: &[(&String, &Arc<Definition>)],
        depth: u32,
        next: &mut dyn FnMut(u64) -> u64,
    ) -> String {
        let leaf = |next: &mut dyn FnMut(u64) -> u64| {
            if vars.is_empty() || next(4) == 0 {
                ["2", "0.5", "3", "pi", "p", "q", "r"][next(7) as usize].to_string()
            } else {
                vars[next(vars.len() as u64) as usize].to_string()
            }
        };
        if depth == 0 {
            return leaf(next);
        }
        let choice = next(9);
        let mut sub = || build(vars, defs, depth - 1, next);
        match choice {
            0 => build(vars, defs, 0, next),
            1 => format!("{} + {}", sub(), sub()),
            2 => format!("{} * {}", sub(), sub()),
            3 => format!("({}) / (1 + {}^2)", sub(), sub()),
            4 => format!("sin({})", sub()),
            5 => format!("exp({}) - {}", sub(), sub()),
            6 => format!("ifelse({} < {}, {}, {})", sub(), sub(), sub(), sub()),
            7 => format!("atan2({}, {})", sub(), sub()),
            _ => match defs.get(next(defs.len().max(1) as u64) as usize) {
                // A call of an earlier definition with arguments of ours.
                Some((name, def)) => {
                    let args: Vec<String> =
                        (0..def.program.inputs.len()).map(|_| build(vars, defs, depth - 1, next)).collect();
                    format!("{name}({})", args.join(", "))
                }
                None => leaf(next),
            },
        }
    }
    build(vars, defs, depth, &mut next)
}

fn values(def: &Definition) -> Vec<Vec<f64>> {
    let n = def.program.inputs.len();
    let p = def.program.params.iter().map(|name| {
        let (_, value) = PARAMS.iter().find(|(q, _)| q == name).expect("declared");
        value.unwrap_or(NO_VALUE)
    });
    let leaves = |x: &[f64]| -> Vec<f64> { x[..n].iter().copied().chain(p.clone()).collect() };
    POINTS.iter().map(|x| dstar::frontend::eval_program(&def.program, &leaves(x))).collect()
}

fn saved(s: &Session) -> String {
    let defs: Vec<(&str, &Program)> = s.defs.iter().map(|(n, d)| (n.as_str(), &d.program)).collect();
    file::write(&defs, &s.parameters_used())
}

fn loaded(text: &str) -> Session {
    let mut s = Session::new();
    let contents = file::read(text, "saved.dstar").unwrap_or_else(|e| panic!("{e}\n{text}"));
    s.params = contents.params.into_iter().collect();
    s.redefine(contents.defs.into_iter().map(|(name, p)| (name.clone(), file::canonical(&p, &name))), []);
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(testkit::cases(200, 5_000) as u32))]

    #[test]
    fn save_then_load_restores_every_definition_exactly(choices in prop::collection::vec((any::<u8>(), any::<[u8; 8]>()), 1..10)) {
        let mut s = Session::new();
        let mut script = vec![];
        for (name, value) in PARAMS {
            match value {
                Some(value) => run(&mut s, &format!("param {name} = {value}")),
                None => run(&mut s, &format!("param {name}")),
            };
        }
        for choice in choices {
            let line = statement(&s, choice);
            // Statements that fail (an argument missing, say) change nothing.
            let _ = s.execute(&line);
            script.push(line);
        }
        prop_assume!(!s.defs.is_empty());
        let text = saved(&s);
        // A valid problem file: `dstar eval` reads what `:load` reads.
        prop_assert!(dstar::frontend::parse_program(&text).is_ok(), "{}\n{}", script.join("\n"), text);
        let back = loaded(&text);
        prop_assert_eq!(saved(&back), text.clone(), "save, load, save differ\n{}", script.join("\n"));
        prop_assert_eq!(back.defs.len(), s.defs.len());
        prop_assert_eq!(back.parameters_used(), s.parameters_used());
        for ((name, def), (name2, def2)) in s.defs.iter().zip(&back.defs) {
            prop_assert_eq!(name, name2);
            prop_assert_eq!(&def.program.inputs, &def2.program.inputs, "{}", name);
            prop_assert_eq!(&def.program.params, &def2.program.params, "{}", name);
            for (a, b) in values(def).iter().zip(values(def2)) {
                prop_assert!(same(a[0], b[0]), "{}: {} vs {}\n{}\n{}", name, a[0], b[0], script.join("\n"), text);
            }
        }
    }
}

/// Issue 12: after `f(x,y)=...`, `h(u)=exp(u)`, `g(y,x)=x-y`, the loaded
/// functions all took every input and `g`'s order was lost; after `x = 3`
/// or `x = y^2; f(x) = x+1` the saved file was rejected.
#[test]
fn issue_12_saved_sessions_load_with_their_own_arguments() {
    let dir = testkit::scratch("dstar-save");
    let file = dir.path().join("s.dstar").display().to_string();
    let mut s = Session::new();
    for line in
        ["f(x, y) = sin(x*y) + x^2", "h(u) = exp(u)", "g(y, x) = x - y", "c = 3", "x = y^2; k(x) = x + 1"]
    {
        run(&mut s, line);
    }
    run(&mut s, &format!(":save {file}"));
    let mut t = Session::new();
    assert_eq!(run(&mut t, &format!(":load {file}")), "loaded f(x, y), h(u), g(y, x), c, x(y), k(x)");
    assert_eq!(run(&mut t, "f(1, 2)"), run(&mut s, "f(1, 2)"));
    assert_eq!(run(&mut t, "g(1, 5)"), "4");
    assert_eq!(run(&mut t, "h(0)"), "1");
    assert_eq!(run(&mut t, "c()"), "3");
    assert_eq!(run(&mut t, "x(3)"), "9");
    assert_eq!(run(&mut t, "k(3)"), "4");
    assert_eq!(run(&mut t, ":vars"), run(&mut s, ":vars"));
    // The file is a problem file whose outputs are the definitions.
    let text = std::fs::read_to_string(&file).unwrap();
    let p = dstar::frontend::parse_program(&text).unwrap();
    assert_eq!(p.inputs, ["x", "y", "u"]);
    assert_eq!(p.output_names(), ["f", "h", "g", "c", "x_", "k"]);
    // Only constants: the file still has an input.
    let mut c = Session::new();
    run(&mut c, "a = 3; b = a + 1");
    let text = saved(&c);
    assert!(dstar::frontend::parse_program(&text).is_ok(), "{text}");
    assert_eq!(run(&mut loaded(&text), "b()"), "4");
}

#[test]
fn load_checks_the_def_lines() {
    let read = |text: &str| file::read(text, "p.dstar").map(|c| c.defs.len()).map_err(|e| e.message);
    let good = "in x, y\n# @def f(y, x) = out1\nout x - y\n";
    assert_eq!(read(good), Ok(1));
    assert_eq!(
        read("in x, y\n# @def f(x) = out1\nout x - y\n"),
        Err("p.dstar:2: 'out1' reads the input 'y', which is not one of its arguments".into())
    );
    assert_eq!(read("in x\n# @def f(x) = g\nout x\n"), Err("p.dstar:2: the file has no output 'g'".into()));
    assert_eq!(
        read("in x\n# @def f(z) = out1\nout x\n"),
        Err("p.dstar:2: the argument 'z' is not an input of the file".into())
    );
    assert_eq!(
        read("in x\n# @def sin(x) = out1\nout x\n"),
        Err("p.dstar:2: 'sin' is a function and cannot be defined".into())
    );
    assert_eq!(
        read("in x\n# @def f(x, x) = out1\nout x\n"),
        Err("p.dstar:2: the argument 'x' is listed twice".into())
    );
    assert_eq!(
        read("in x\n# @def f(x) = out1\n# @def f(x) = out1\nout x\n"),
        Err("p.dstar:3: 'f' is defined twice".into())
    );
    assert_eq!(
        read("in x\n# @def f(x) out1\nout x\n"),
        Err("p.dstar:2: expected '# @def NAME(ARGUMENTS) = OUTPUT'".into())
    );
    // '# @value' lines give parameters their values, once each.
    let values = |text: &str| file::read(text, "p.dstar").map(|c| c.params).map_err(|e| e.message);
    assert_eq!(
        values("# @value b = -inf\nparam a, b, c\nin x\n# @value a = 2.5\nout a*x + b + c\n"),
        Ok(vec![("a".into(), Some(2.5)), ("b".into(), Some(f64::NEG_INFINITY)), ("c".into(), None)])
    );
    for (text, error) in [
        ("# @value a 2\nparam a\nin x\nout a*x\n", "p.dstar:1: expected '# @value NAME = VALUE'"),
        ("# @value z = 2\nparam a\nin x\nout a*x\n", "p.dstar:1: 'z' is not a parameter of the file"),
        ("param a\n# @value a = 1\n# @value a = 2\nin x\nout a*x\n", "p.dstar:3: 'a' has a value already"),
        ("# @params 1\nparam a\n# @value a = 2\nin x\nout a*x\n", "p.dstar:3: 'a' has a value already"),
        ("param a\n# @value a = two\nin x\nout a*x\n", "p.dstar:2: malformed number 'two'"),
    ] {
        assert_eq!(values(text), Err(error.into()), "{text}");
    }
    // Without '# @def' lines, every output is a function of every input.
    assert_eq!(read("in x, y\nout x\nout y\n"), Ok(2));
}
