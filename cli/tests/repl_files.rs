//! What the REPL saves is a problem file: `dstar eval` evaluates it, and a
//! new REPL loads it back with every definition's own arguments (issue 12)
//! and the parameters with their values (issue 27).

use std::path::Path;
use testkit::command::{run, run_with_input, Run};
use testkit::{as_vec, close, Tol};

/// Pipes `script` into `dstar repl`.
fn repl(script: &[u8]) -> Run {
    run_with_input(env!("CARGO_BIN_EXE_dstar"), &["repl"], Path::new(env!("CARGO_MANIFEST_DIR")), script)
}

#[test]
fn issue_12_a_saved_session_is_a_problem_file_and_loads_back() {
    let dir = testkit::scratch("dstar-repl-files");
    let file = dir.path().join("session.dstar");
    let path = file.to_str().unwrap();
    let script = format!(
        "f(x, y) = sin(x*y) + x^2\nh(u) = exp(u)\ng(y, x) = x - y\nc = 3\nx = y^2; k(x) = x + 1\n\
         df(y, x) = diff(f, x)\n:save {path}\n"
    );
    let Run { status, stdout: out, .. } = repl(script.as_bytes());
    assert_eq!(status, 0, "{out}");
    // `dstar eval` takes it, inputs in order of first appearance: x, y, u.
    let (status, stdout, stderr) =
        run(env!("CARGO_BIN_EXE_dstar"), &["eval", path, "--at", "1,2,0", "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["inputs"], serde_json::json!(["x", "y", "u"]));
    assert_eq!(v["outputs"], serde_json::json!(["f", "h", "g", "c", "x_", "k", "df"]));
    let values = as_vec(&v["values"]);
    let want = [2f64.sin() + 1.0, 1.0, -1.0, 3.0, 4.0, 2.0, 2.0 * 2f64.cos() + 2.0];
    for (got, want) in values.iter().zip(want) {
        assert!(close(*got, want, Tol { rel: 1e-15, abs: 1e-18 }), "{values:?}");
    }
    // A new session gets each definition back with its own parameters.
    let script = format!(":load {path}\nf(1, 2)\ng(1, 5)\nh(0)\nc()\nx(3)\nk(3)\ndf(2, 1)\n");
    let Run { status, stdout: out, .. } = repl(script.as_bytes());
    assert_eq!(status, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "loaded f(x, y), h(u), g(y, x), c, x(y), k(x), df(y, x)");
    assert_eq!(
        lines[1..],
        [
            format!("{}", 2f64.sin() + 1.0).as_str(),
            "4",
            "1",
            "3",
            "9",
            "4",
            &format!("{}", 2.0 * 2f64.cos() + 2.0)
        ]
    );
}

/// Issue 27: parameters are saved with their values, which `dstar eval`
/// takes as its defaults and a new session gets back.
#[test]
fn issue_27_a_saved_session_keeps_its_parameters() {
    let dir = testkit::scratch("dstar-repl-params");
    let file = dir.path().join("session.dstar");
    let path = file.to_str().unwrap();
    let script = format!("param g = 9.81, unused = 1\nh(t) = g*t^2/2\nv(t) = diff(h, t)\n:save {path}\n");
    let Run { status, stdout: out, .. } = repl(script.as_bytes());
    assert_eq!(status, 0, "{out}");
    assert!(out.ends_with(&format!("saved 2 definitions and 1 parameter to {path}\n")), "{out}");
    let eval = |extra: &[&str]| {
        let args = [&["eval", path, "--at", "2", "--json"][..], extra].concat();
        let (status, stdout, stderr) = run(env!("CARGO_BIN_EXE_dstar"), &args);
        assert_eq!(status, 0, "{stderr}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["params"], serde_json::json!(["g"]));
        as_vec(&v["values"])
    };
    assert_eq!(eval(&[]), [19.62, 19.62], "the saved value is the default");
    assert_eq!(eval(&["--params", "1.62"]), [1.62 * 4.0 / 2.0, 1.62 * 2.0]);
    let Run { status, stdout: out, .. } = repl(format!(":load {path}\n:vars\nh(2)\n").as_bytes());
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        "loaded h(t), v(t); param g = 9.81\nparam g = 9.81\nh(t) = g * t^2 / 2\nv(t) = t * g\n19.62\n"
    );
}

/// Issue 12: one non-UTF-8 line ended a piped REPL with status 1 and the
/// rest was not run.
#[test]
fn issue_12_a_line_that_is_not_utf8_fails_alone() {
    let out = repl(b"f(x) = 2*x\nf(\xc3\x28)\nf(4)\n");
    assert_eq!(
        out.stdout,
        "f(x) = 2 * x\n  f(\u{fffd}()\n    ^\nerror: 2:3: the line is not valid UTF-8 (byte 0xc3); it was skipped\n8\n"
    );
    assert_eq!(out.status, 2, "errors make the exit status non-zero, after every line ran");
    assert_eq!(out.stderr, "error: 1 of 3 lines failed\n");
}

/// A problem file with tables loads with its entries named as a session
/// can type them (`x[0]` is `x_0`: brackets write lists here), and a file
/// where such a name is taken is refused with a message naming both.
#[test]
fn a_file_with_tables_loads_with_plain_names() {
    let dir = testkit::scratch("dstar-repl-tables");
    let file = dir.path().join("tables.dstar");
    let path = file.to_str().unwrap();
    let text =
        "# @params 10 20\nparam d[2]\nin x[2], w\nfor i in range(2)\n  out g[i] = w * (x[i] - d[i])^2\nend\n";
    std::fs::write(&file, text).unwrap();
    let Run { status, stdout: out, .. } = repl(format!(":load {path}\ng_1(0, 22, 3)\n").as_bytes());
    assert_eq!(status, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, ["loaded g_0(x_0, x_1, w), g_1(x_0, x_1, w); param d_0 = 10, d_1 = 20", "12"]);
    std::fs::write(&file, "in x[2], x_1\nout x_1 + x[0]\n").unwrap();
    let Run { stdout: out, .. } = repl(format!(":load {path}\n").as_bytes());
    assert!(out.contains("'x[1]' and another name of the file would both be 'x_1'"), "{out}");
}

/// `:load` makes every output of a problem file a definition over all its
/// inputs, one output's cone at a time (it walked the whole DAG and
/// searched the argument list per input for every output: 1,000 outputs
/// over 1,250 inputs loaded in 3.7 s, twice that in 22 s). On the shape
/// zoo's many-output families, in both forms, each definition called at
/// the file's point gives what `dstar eval` gives for its output.
#[test]
fn every_output_of_a_loaded_file_is_its_definition() {
    use testkit::zoo::{Form, Zoo};
    let dir = testkit::scratch("dstar-repl-zoo");
    // Both sides of the size where `:load` lists the first definitions only.
    let mut seen = (false, false);
    for (zoo, size) in [Zoo::MultipleShooting, Zoo::Collocation, Zoo::ManyOutputs, Zoo::OneInputEverywhere]
        .into_iter()
        .flat_map(|zoo| [(zoo, 5), (zoo, 12)])
    {
        for form in [Form::Functions, Form::Flat] {
            let file = dir.path().join(format!("{}_{}_{size}.dstar", zoo.name(), form.name()));
            let path = file.to_str().unwrap();
            std::fs::write(&file, zoo.generate(size, form)).unwrap();
            let (status, stdout, stderr) = run(env!("CARGO_BIN_EXE_dstar"), &["eval", path, "--json"]);
            assert_eq!(status, 0, "{stderr}");
            let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let names: Vec<&str> =
                v["outputs"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
            let text = std::fs::read_to_string(&file).unwrap();
            let point =
                text.lines().find_map(|l| l.strip_prefix("# @point ")).expect("the zoo gives a point");
            let args = point.split_whitespace().collect::<Vec<_>>().join(", ");
            let calls: String = names.iter().map(|name| format!("{name}({args})\n")).collect();
            let Run { status, stdout: out, .. } = repl(format!(":load {path}\n{calls}").as_bytes());
            assert_eq!(status, 0, "{out}");
            let lines: Vec<&str> = out.lines().collect();
            let (reply, values) = lines.split_at(lines.len().saturating_sub(names.len()));
            // The reply names what was loaded in a few short lines, however
            // many outputs and inputs (it was every signature: outputs ×
            // inputs names, 9 MB for `gen.py cartpole 250 --flat`).
            if reply.len() == 1 {
                assert!(reply[0].len() <= 4_000 + "loaded ".len(), "{path}: {out}");
                assert!(names.iter().all(|name| reply[0].contains(&format!(" {name}"))), "{reply:?}");
                seen.0 = true;
            } else {
                assert!(reply.len() <= 10 && reply.iter().all(|l| l.chars().count() <= 110), "{path}: {out}");
                // Every output, and the file's one-result functions.
                let count = reply[0].strip_prefix("loaded ").and_then(|r| r.strip_suffix(" definitions:"));
                let count: usize = count.and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("{reply:?}"));
                assert!(count >= names.len(), "{reply:?}");
                let more = format!("  … {} more; :vars lists them", count - (reply.len() - 2));
                assert_eq!(reply.last().unwrap(), &more, "{reply:?}");
                seen.1 = true;
            }
            let got: Vec<f64> = values.iter().map(|l| l.trim().parse().unwrap()).collect();
            let want = as_vec(&v["values"]);
            assert_eq!(got.len(), want.len(), "{path}: {out}");
            for (g, w) in got.iter().zip(&want) {
                assert!(close(*g, *w, Tol { rel: 1e-13, abs: 1e-15 }), "{path}: {g} vs {w}");
            }
        }
    }
    assert_eq!(seen, (true, true), "replies listed whole and listed in part");
}
