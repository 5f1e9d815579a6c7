//! No command of `dstar` panics on programs with parameters and functions
//! (issue 34): generated programs (`testkit::functions::generate`, with and
//! without their `# @params` line) and written ones (a parameter without a
//! function, a function of several results, nested functions, the README's
//! pendulum) go to every command and the options that change what it
//! computes. Each run ends in status 0, or in a clean error: status 1 or 2
//! and a message, never Rust's panic status 101 or "panicked" on stderr.
//!
//! `DSTAR_LONG=1` tries more generated programs and runs `bench` on them too.

use std::path::{Path, PathBuf};

/// A program to feed to every command, written to a file.
struct Case {
    /// Where it is written (`name.dstar` in the test's directory).
    path: PathBuf,
    text: String,
    /// The names of its inputs, then of its parameters.
    names: Vec<String>,
    inputs: usize,
    outputs: usize,
    params: usize,
    /// What `eval` and `bench` need besides the file: `--at` if it has no
    /// point, `--params` if it has parameters and no values for them.
    needs: String,
    /// Expressions for `dstar diff` (the outputs with every call written out).
    expressions: Vec<String>,
    /// Whether `bench` times it (it takes about a second per run).
    bench: bool,
}

/// The README's example of parameters and functions, with a point.
const PENDULUM: &str = "\
# @point 0.3 -0.2 0.1
# @params 9.81 0.5
param g, len               # parameters: given with every call, never differentiated
in th, om, u
function pendulum(th, om, u, g, len) -> (dth, dom)
  dth = om                 # a body sees its arguments, its own assignments
  dom = -g / len * sin(th) + u   # and the functions defined above it
end
sq(z) = z * z              # one result: usable inside expressions
a, b = pendulum(th, om, u, g, len)   # a call binds every result
out cost = sq(a) + sq(b)
";

/// Programs written by hand: `(name, text)`.
const WRITTEN: [(&str, &str); 9] = [
    ("pendulum", PENDULUM),
    (
        "param_no_function",
        "# @point 0.3 -0.7\n# @params 2.5\nparam a\nin x, y\nout f = a * sin(x) * y\nout g = max(x, a * y)\n",
    ),
    ("param_no_defaults", "# @point 0.3 -0.7\nparam a, b\nin x, y\nout f = a * exp(x) + b * y ^ 2\n"),
    (
        "several_results",
        "# @point 0.4 1.2\n\
         function polar(x, y) -> (r, t, s)\n  r = sqrt(x^2 + y^2)\n  t = atan2(y, x)\n  s = r * t\nend\n\
         in x, y\nr, t, s = polar(x, y)\nu, v, w = polar(y, x * y)\nout r\nout t * u\nout min(s, w)\n",
    ),
    (
        "nested",
        "# @point 0.5 -0.25\n# @params 1.5\nparam c\nin x, y\n\
         f(a) = sin(a) * a\ng(a, b, c) = f(a) + f(b) * c\nh(a, c) = g(f(a), a, c)\n\
         function k(a, b, c) -> (p, q)\n  p = h(a, c) * b\n  q = max(g(a, b, c), h(b, c))\nend\n\
         p1, q1 = k(x, y, c)\nout h(x, c)\nout p1 + q1\nout k2 = g(x, y, c)\n",
    ),
    // Edge cases: an output that is a parameter or an input alone, an
    // unused function, a constant output; no point, so eval needs --at.
    ("edges", "# @params 2\nparam a\nin x\nf(t) = t\nunused(t) = t * t\nout a\nout f(x)\nout x\nout 3\n"),
    (
        "ties",
        "# @point 1 1\nin x, y\nm(a, b) = max(a, b)\nout m(x, y) + min(x * y, y * x)\nout m(2 * x, x + x)\n",
    ),
    // A parameter passed to a function; a function of a parameter alone.
    (
        "param_to_function",
        "# @point 0.1\n# @params 3\nparam k\nin x\nf(t, s) = s * t\ng(s) = s * s\nout f(x, k) + g(k)\nout g(k)\n",
    ),
    ("one_input_no_params", "# @point 0.7\nin x\nsq(t) = t * t\nout sq(sq(x))\n"),
];

/// The case of `text`, written to `dir`.
fn case(dir: &Path, name: &str, text: &str, bench: bool) -> Case {
    let program =
        dstar::frontend::parse_program(text).unwrap_or_else(|e| panic!("{name} parses: {e}\n{text}"));
    let flat = program.inlined();
    let names: Vec<String> = flat.inputs.iter().chain(&flat.params).cloned().collect();
    let expressions = flat
        .outputs
        .iter()
        .filter_map(|o| written_out(&dstar::frontend::print_expr(&flat.dag, o.node, &names)))
        .collect();
    let mut needs = String::new();
    if program.point.is_none() {
        needs += &format!(" --at {}", values(program.inputs.len(), 0.5));
    }
    if !program.params.is_empty() && program.param_values.is_none() {
        needs += &format!(" --params {}", values(program.params.len(), 1.25));
    }
    let path = dir.join(format!("{name}.dstar"));
    std::fs::write(&path, text).unwrap();
    Case {
        path,
        text: text.to_string(),
        names,
        inputs: program.inputs.len(),
        outputs: program.outputs.len(),
        params: program.params.len(),
        expressions,
        needs,
        bench,
    }
}

/// `t1 = a * b; t1 + sin(t1)`, as `print_expr` shares subexpressions, as
/// the one expression `dstar diff` reads: `(a * b) + sin((a * b))`; `None`
/// if that grows past a few thousand characters.
fn written_out(printed: &str) -> Option<String> {
    let mut bindings: Vec<(String, String)> = vec![];
    for part in printed.split("; ") {
        // Each token of the run of [A-Za-z0-9_.] it starts: a name if it starts with a letter.
        let (mut text, mut token) = (String::new(), String::new());
        for c in part.chars().chain([' ']) {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                token.push(c);
                continue;
            }
            match bindings.iter().find(|(name, _)| *name == token) {
                Some((_, value)) => text += &format!("({value})"),
                None => text += &token,
            }
            token.clear();
            text.push(c);
        }
        let text = text.trim_end().to_string();
        if text.len() > 4000 {
            return None;
        }
        match text.split_once(" = ") {
            Some((name, value)) if name.starts_with('t') && !name.contains(' ') => {
                bindings.push((name.to_string(), value.to_string()))
            }
            _ => return Some(text),
        }
    }
    None
}

/// The written programs and `count` generated ones (each also without its
/// `# @params` line if it has one), written into `dir`.
fn cases(dir: &std::path::Path, count: usize) -> Vec<Case> {
    let mut cases: Vec<Case> = WRITTEN.iter().map(|(name, text)| case(dir, name, text, true)).collect();
    let mut rng = testkit::Rng::new(34);
    for k in 0..count {
        let ops = 6 + rng.below(if testkit::long_run() { 60 } else { 20 });
        let text = testkit::functions::generate(&mut rng, ops).structured;
        // The first generated program is benched in the short run, every one in the long run.
        cases.push(case(dir, &format!("generated_{k}"), &text, k == 0 || testkit::long_run()));
        if text.contains("# @params") {
            let without: String =
                text.lines().filter(|l| !l.starts_with("# @params")).map(|l| format!("{l}\n")).collect();
            cases.push(case(dir, &format!("generated_{k}_no_defaults"), &without, false));
        }
    }
    cases
}

/// `count` comma-separated values from `start` in steps of 1/4.
fn values(count: usize, start: f64) -> String {
    let v: Vec<String> = (0..count).map(|k| format!("{}", start + 0.25 * k as f64)).collect();
    v.join(",")
}

/// Runs `dstar args...`; returns its status and a description of the run
/// if it panicked or failed without a message.
fn check(args: &[String], case: &Case) -> (i32, Option<String>) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, _, stderr) = testkit::command::run(env!("CARGO_BIN_EXE_dstar"), &args);
    let clean = status == 0 || ((status == 1 || status == 2) && stderr.contains("error"));
    let failure = (status == 101 || stderr.contains("panicked") || !clean).then(|| {
        format!(
            "dstar {} -> status {status}\n{stderr}\n--- {}:\n{}",
            args.join(" "),
            case.path.display(),
            case.text
        )
    });
    (status, failure)
}

/// Runs every argument list `commands(case)` gives on every case; fails
/// listing every run that panicked or failed without a message (keeping
/// the files). Returns how many runs there were and how many ended in status 0.
fn run_all(tag: &str, count: usize, commands: impl Fn(&Case) -> Vec<Vec<String>>) -> (usize, usize) {
    let scratch = testkit::scratch(&format!("dstar-no-panic-{tag}"));
    let cases = cases(scratch.path(), count);
    let (mut failures, mut runs, mut successes) = (vec![], 0, 0);
    for case in &cases {
        for args in commands(case) {
            let (status, failure) = check(&args, case);
            runs += 1;
            successes += usize::from(status == 0);
            failures.extend(failure);
        }
    }
    eprintln!("{tag}: {runs} runs, {successes} with status 0");
    assert!(
        failures.is_empty(),
        "{} runs panicked or failed silently:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    (runs, successes)
}

/// `dstar <command> FILE <options>` for each option string (split on blanks).
fn with_file(command: &str, case: &Case, options: &[String]) -> Vec<Vec<String>> {
    let file = case.path.display().to_string();
    options
        .iter()
        .map(|o| [command, &file].into_iter().chain(o.split_whitespace()).map(str::to_string).collect())
        .collect()
}

/// How many generated programs: a few in the short run.
fn generated() -> usize {
    testkit::cases(3, 40)
}

#[test]
fn eval_does_not_panic_on_parameters_and_functions() {
    let (runs, successes) = run_all("eval", generated(), |case| {
        let n = case.inputs;
        let (w, v) = (values(case.outputs, 0.5), values(n, -0.5));
        let mut options: Vec<String> = [
            "",
            "--jacobian",
            "--hessian",
            "--hessian --sparse",
            "--interp --jacobian --hessian",
            "--jacobian --no-simplify --no-self-check",
            "--json",
        ]
        .map(str::to_string)
        .to_vec();
        options.extend([
            format!("--hessian --weights {w}"),
            format!("--hessian --weights {w} --each"),
            format!("--hessian --weights {w} --each --sparse --json"),
            format!("--interp --hessian --weights {w} --each"),
            format!("--order 2 --direction {v}"),
            format!("--order 0 --direction {v}"),
            format!("--order 3 --direction {v} --interp"),
            format!("--json --jacobian --hessian --order 2 --direction {v}"),
            // Wrong lengths: clean errors.
            format!("--at {}", values(n + 1, 0.0)),
            format!("--hessian --weights {}", values(case.outputs + 1, 0.0)),
            format!("--order 2 --direction {}", values(n + 1, 0.0)),
            format!("--params {}", values(case.params + 1, 0.0)),
        ]);
        let p = values(case.params, 1.5);
        if case.params > 0 {
            options.push(format!("--at {} --params {p} --hessian --json", values(n, -0.375)));
            options.push(format!("--params {p} --order 1 --direction {v}"));
        } else {
            options.push(format!("--at {} --jacobian", values(n, 0.125)));
        }
        // The first run alone has only what the file gives: an error if it needs more.
        for o in options.iter_mut().skip(1).filter(|o| !o.contains("--at") && !o.contains("--params")) {
            *o += &case.needs;
        }
        with_file("eval", case, &options)
    });
    assert!(successes * 2 > runs, "most runs evaluate: {successes} of {runs}");
}

#[test]
fn stats_elim_and_bench_do_not_panic_on_parameters_and_functions() {
    let (runs, successes) = run_all("stats", generated(), |case| {
        let stats = ["", "--hessian", "--json", "--hessian --json", "--no-simplify"].map(str::to_string);
        let mut runs = with_file("stats", case, &stats);
        runs.extend(with_file("elim", case, &["".to_string(), "--json".to_string()]));
        if case.bench {
            runs.extend(with_file("bench", case, &[format!("--hessian --json{}", case.needs)]));
        }
        runs
    });
    assert_eq!(successes, runs, "stats, elim and bench work on every program");
}

#[test]
fn emit_does_not_panic_on_parameters_and_functions() {
    let (runs, successes) = run_all("emit", generated(), |case| {
        let header = case.path.with_extension("h").display().to_string();
        let mut options = vec![];
        for target in ["text", "c", "rust", "dot", "asm"] {
            options.push(format!("--target {target}"));
            // --hessian with dot is a clean error.
            options.push(format!("--target {target} --hessian"));
        }
        options.extend([
            format!("--target c --header {header}"),
            format!("--target c --hessian --header {header} --name kernel"),
            "--target asm --points 2".to_string(),
            "--target rust --no-simplify --name k2".to_string(),
            // Clean errors: a header of another target, a name C cannot take.
            format!("--target rust --header {header}"),
            "--target c --name 2bad".to_string(),
        ]);
        with_file("emit", case, &options)
    });
    assert!(successes * 2 > runs, "most runs emit: {successes} of {runs}");
}

#[test]
fn diff_does_not_panic_on_the_programs_written_out() {
    let (runs, successes) = run_all("diff", generated(), |case| {
        let mut runs = vec![];
        for expr in &case.expressions {
            let diff = |by: &[&str]| -> Vec<String> {
                ["diff", expr.as_str()].iter().chain(by).map(|s| s.to_string()).collect()
            };
            // Variables the expression has (a name it lacks is a clean error).
            let used: Vec<&str> =
                case.names.iter().map(String::as_str).filter(|n| expr.contains(n)).collect();
            let (first, last) = match (used.first(), used.last()) {
                (Some(first), Some(last)) => (*first, *last),
                _ => ("x", "y"),
            };
            runs.push(diff(&[first]));
            runs.push(diff(&[first, "2", last]));
            runs.push(diff(&[last, first, "3"]));
        }
        runs
    });
    assert!(successes * 2 > runs, "most runs differentiate: {successes} of {runs}");
}
