//! `dstar eval` on the corpus and on bad input.

use testkit::{as_vec, Tol};

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
fn dstar(args: &[&str]) -> (i32, String, String) {
    testkit::command::run(env!("CARGO_BIN_EXE_dstar"), args)
}

/// Whether `a` and `b` agree to relative tolerance `rel` (absolute
/// `rel·1e-3` near 0).
fn close(a: f64, b: f64, rel: f64) -> bool {
    testkit::close(a, b, Tol { rel, abs: rel * 1e-3 })
}

#[test]
fn eval_matches_every_corpus_reference() {
    let corpus = testkit::corpus();
    assert!(corpus.len() >= 17);
    for problem in corpus {
        let (path, want) = (problem.path.display(), &problem.reference.json);
        let (status, stdout, stderr) = dstar(&["eval", problem.path_str(), "--json"]);
        assert_eq!(status, 0, "{path}: {stderr}");
        let got: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
        assert_eq!(got["inputs"], want["inputs"], "{path}");
        assert_eq!(got["outputs"], want["outputs"], "{path}");
        let (got, want) = (as_vec(&got["values"]), as_vec(&want["values"]));
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(*g, *w, 1e-12), "{path} output {i}: {g} vs {w}");
        }
    }
}

#[test]
fn eval_takes_the_point_from_the_command_line() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/lyons.dstar");
    let (status, stdout, _) = dstar(&["eval", file, "--at", "-1,2"]);
    assert_eq!(status, 0);
    let y1 = -(1.0f64.sin());
    assert_eq!(stdout.lines().next(), Some(format!("y1 = {y1}").as_str()));
}

#[test]
fn non_finite_values_are_json_strings() {
    let (_dir, file) =
        problem("nonfinite.dstar", "in x\nout a = log(x)\nout b = -1/x\nout c = sqrt(x - 1)\n");
    let (status, stdout, _) = dstar(&["eval", file.to_str().unwrap(), "--at", "0", "--json"]);
    assert_eq!(status, 0);
    assert_eq!(stdout.trim(), r#"{"inputs":["x"],"outputs":["a","b","c"],"values":["-inf","-inf","nan"]}"#);
}

#[test]
fn parse_errors_exit_2_with_the_rendered_message() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../frontend/tests/golden/errors/unknown_function.dstar");
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1"]);
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("2:9: unknown function 'sine'; did you mean 'sin'?"), "{stderr}");
    assert!(stderr.contains("  |         ^^^^"), "{stderr}");
}

#[test]
fn usage_errors_exit_2_without_panicking() {
    let lyons = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/lyons.dstar");
    for args in [
        vec!["eval", "/nonexistent/file.dstar"],
        vec!["eval", lyons, "--at", "1"],
        vec!["eval", lyons, "--at", "1,zz"],
    ] {
        let (status, _, stderr) = dstar(&args);
        assert_eq!(status, 2, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn jacobians_match_every_corpus_reference_through_jit_and_interpreter() {
    for problem in testkit::corpus() {
        let want = &problem.reference.json;
        for mode in [None, Some("--interp")] {
            let mut args = vec!["eval", problem.path_str(), "--jacobian", "--json"];
            args.extend(mode);
            let (status, stdout, stderr) = dstar(&args);
            assert_eq!(status, 0, "{}: {stderr}", problem.path.display());
            let got: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
            let (rows, want_rows) =
                (got["jacobian"].as_array().unwrap(), want["jacobian"].as_array().unwrap());
            assert_eq!(rows.len(), want_rows.len());
            for (i, (g, w)) in rows.iter().zip(want_rows).enumerate() {
                for (j, (g, w)) in as_vec(g).iter().zip(as_vec(w)).enumerate() {
                    assert!(
                        close(*g, w, 1e-9),
                        "{} {mode:?} J[{i}][{j}]: {g} vs {w}",
                        problem.path.display()
                    );
                }
            }
        }
    }
}

#[test]
fn hessians_are_symmetric_matrices_per_output() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/lyons.dstar");
    let (status, stdout, _) = dstar(&["eval", file, "--hessian", "--json", "--at", "0.7,1.3"]);
    assert_eq!(status, 0);
    let got: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let h = got["hessian"].as_array().unwrap();
    assert_eq!(h.len(), 2);
    // y1 = x1*sin(x1 + x2): d2/dx2^2 = -x1*sin(x1 + x2).
    let s = (2.0f64).sin();
    let h1: Vec<Vec<f64>> = h[0].as_array().unwrap().iter().map(as_vec).collect();
    assert!(close(h1[1][1], -0.7 * s, 1e-12));
    assert_eq!(h1[0][1], h1[1][0]);
}

/// Issue 26: with --weights the user asked for the Lagrangian's Hessian
/// (n×n), not every output's; `--each` adds those. Each output's Hessian
/// is its own: `sqrt`'s infinite second derivative at 0 does not turn
/// `x^2`'s into NaN.
#[test]
fn weights_ask_for_the_lagrangian_and_each_output_stands_alone() {
    let scratch = testkit::scratch("dstar-cli-each");
    let dir = scratch.path();
    let file = dir.join("two.dstar");
    std::fs::write(&file, "in x\nout x^2\nout sqrt(x)\n").unwrap();
    let file = file.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let (status, stdout, stderr) = dstar(&[&["eval", file, "--at", "0", "--json"], args].concat());
        assert_eq!(status, 0, "{stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let each = json(&["--hessian"]);
    assert_eq!(each["hessian"], serde_json::json!([[[2.0]], [["-inf"]]]));
    assert!(each.get("lagrangian_hessian").is_none());
    let weighted = json(&["--hessian", "--weights", "1,0.5"]);
    assert!(weighted.get("hessian").is_none(), "{weighted}");
    assert_eq!(weighted["lagrangian_hessian"], serde_json::json!([["-inf"]]));
    let both = json(&["--hessian", "--weights", "2,0", "--each", "--sparse"]);
    assert_eq!(both["hessian_sparse"][0]["values"], serde_json::json!([2.0]));
    assert_eq!(
        both["lagrangian_hessian_sparse"]["values"],
        serde_json::json!(["nan"]),
        "0 · -inf, as IEEE says"
    );
    // A Lagrangian over many outputs is n×n, not outputs × n × n.
    let wide = dir.join("wide.dstar");
    let m = 3_000;
    let lines: Vec<String> = (0..m).map(|i| format!("out g{i} = x{} * x{}", i % 60, (i + 1) % 60)).collect();
    let inputs: Vec<String> = (0..60).map(|i| format!("x{i}")).collect();
    std::fs::write(&wide, format!("in {}\n{}\n", inputs.join(", "), lines.join("\n"))).unwrap();
    let wide = wide.to_str().unwrap();
    let at = vec!["1"; 60].join(",");
    let weights = vec!["1"; m].join(",");
    let (status, _, stderr) = dstar(&["eval", wide, "--at", &at, "--hessian", "--json"]);
    assert_eq!(status, 2, "10.8 million numbers for every output: refused");
    assert!(stderr.contains("add --sparse"), "{stderr}");
    let (status, stdout, stderr) =
        dstar(&["eval", wide, "--at", &at, "--hessian", "--weights", &weights, "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let got: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(got["lagrangian_hessian"].as_array().unwrap().len(), 60);
}

/// A problem file `name` with `source` in a scratch directory of its own
/// (removed when dropped).
fn problem(name: &str, source: &str) -> (testkit::Scratch, std::path::PathBuf) {
    let dir = testkit::scratch("dstar-cli");
    let file = dir.path().join(name);
    std::fs::write(&file, source).unwrap();
    (dir, file)
}

/// Issue 31: the text output wrote 1e-150 as 0.000…0001 (150 zeros); it
/// shows values as --json and the REPL do.
#[test]
fn issue_31_text_output_shows_huge_and_tiny_values_with_an_exponent() {
    let (_dir, file) = problem("square.dstar", "in x\nout y = x*x\n");
    let file = file.to_str().unwrap();
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1e-150", "--jacobian"]);
    assert_eq!((status, stdout.as_str()), (0, "y = 1e-300\n  gradient: [2e-150]\n"), "{stderr}");
    let (status, stdout, _) = dstar(&["eval", file, "--at", "1e150", "--hessian", "--sparse"]);
    let y = format!("{:e}", 1e150f64 * 1e150); // 9.999999999999999e299
    assert_eq!((status, stdout), (0, format!("y = {y}\n  hessian:\n    d2/dx dx = 2\n")));
    let (status, stdout, _) = dstar(&["eval", file, "--at", "-1e200", "--order", "2", "--direction", "1"]);
    assert_eq!(status, 0);
    assert!(stdout.contains("taylor coefficients along v: [inf, -2e200, 1]"), "{stdout}");
    let (_, stdout, _) = dstar(&["eval", file, "--at", "nan", "--jacobian"]);
    assert_eq!(stdout, "y = nan\n  gradient: [nan]\n");
}

/// Issue 31: values are read by one rule: blanks after the commas, `nan`,
/// `inf`, `-inf`; a number too large for double precision is an error (it
/// read as infinity), as it is in a file.
#[test]
fn issue_31_values_on_the_command_line_read_as_everywhere() {
    let (_dir, file) = problem("pair.dstar", "in x, y\nout f = x*y\nout g = x + y\n");
    let file = file.to_str().unwrap();
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1, 2"]);
    assert_eq!((status, stdout.as_str()), (0, "f = 2\ng = 3\n"), "{stderr}");
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "inf, -inf"]);
    assert_eq!((status, stdout.as_str()), (0, "f = -inf\ng = nan\n"), "{stderr}");
    let (status, stdout, stderr) =
        dstar(&["eval", file, "--at", "1,2", "--hessian", "--weights", "1, 0.5", "--sparse"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.ends_with("lagrangian hessian:\n    d2/dy dx = 1\n"), "{stdout}");
    let (status, stdout, stderr) =
        dstar(&["eval", file, "--at", "1,2", "--order", "1", "--direction", " 1, 0"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("taylor coefficients along v: [2, 2]"), "{stdout}");
    for (at, direction) in [("1e400,1", "1,0"), ("1, -1e309", "1,0"), ("1,2", "1e999, 0")] {
        let (status, stdout, stderr) =
            dstar(&["eval", file, "--at", at, "--order", "1", "--direction", direction]);
        assert_eq!(status, 2, "{at} {direction}: {stdout}");
        assert!(stderr.contains("too large for double precision"), "{stderr}");
    }
    for value in ["infinity,1", "NaN,1", "1 2x"] {
        let (status, _, stderr) = dstar(&["eval", file, "--at", value]);
        assert_eq!(status, 2, "{value}: {stderr}");
        assert!(stderr.contains("malformed number"), "{stderr}");
    }
    for value in ["1,,2", "1,2,", ",1 2"] {
        let (status, _, stderr) = dstar(&["eval", file, "--at", value]);
        assert_eq!(status, 2, "{value}: {stderr}");
        assert!(stderr.contains("expected a value before and after each comma"), "{stderr}");
    }
    let (_dir, point) = problem("overflow.dstar", "# @point 1e400 1\nin x, y\nout x*y\n");
    let (status, _, stderr) = dstar(&["eval", point.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("1:1: the number '1e400' is too large"), "{stderr}");
}

/// Issue 34 (item 12): one rule for lists of values everywhere, in a file's
/// comments as on the command line: commas, blanks, or both.
#[test]
fn values_are_separated_by_commas_or_blanks_everywhere() {
    for separator in [", ", ",", " ", " ,  "] {
        let source = format!(
            "# @point 1{separator}2\n# @params 3{separator}4\nparam a, b\nin x, y\nout f = a*x + b*y\n"
        );
        let (_dir, file) = problem("lists.dstar", &source);
        let file = file.to_str().unwrap();
        let (status, stdout, stderr) = dstar(&["eval", file]);
        assert_eq!((status, stdout.as_str()), (0, "f = 11\n"), "{separator:?}: {stderr}");
        let at = format!("2{separator}1");
        let params = format!("1{separator}1");
        let (status, stdout, stderr) = dstar(&["eval", file, "--at", &at, "--params", &params]);
        assert_eq!((status, stdout.as_str()), (0, "f = 3\n"), "{separator:?}: {stderr}");
        let (status, _, stderr) = dstar(&["bench", file, "--at", &at, "--params", &params]);
        assert_eq!(status, 0, "{separator:?}: {stderr}");
    }
    let (_dir, file) = problem("noparams.dstar", "in x, y\nout f = x*y\n");
    let (status, _, stderr) = dstar(&["eval", file.to_str().unwrap(), "--at", "1 2", "--params", "0"]);
    assert_eq!(status, 2);
    assert!(stderr.ends_with("--params has 1 value but the function has 0 parameters\n"), "{stderr}");
    let (_dir, file) = problem("short.dstar", "# @point 1\nin x, y\nout f = x*y\n");
    let (status, _, stderr) = dstar(&["eval", file.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("'# @point' gives 1 number for 2 inputs"), "{stderr}");
}

/// Issue 27: parameters come from `--params`, else the file's `# @params`;
/// none, or the wrong number, is an error that says how many; `--json`
/// names them, the Jacobian has no column for them and `stats` counts them.
#[test]
fn parameters_come_from_the_command_line_or_the_file() {
    let source = "# @params 2\nparam a\nin x, y\nout f = a*x*y\n";
    let (_dir, file) = problem("param.dstar", source);
    let file = file.to_str().unwrap();
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1,3", "--jacobian"]);
    assert_eq!((status, stdout.as_str()), (0, "f = 6\n  gradient: [6, 2]\n"), "{stderr}");
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1,3", "--params", "5", "--jacobian"]);
    assert_eq!((status, stdout.as_str()), (0, "f = 15\n  gradient: [15, 5]\n"), "{stderr}");
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1,3", "--params", "5", "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["params"], serde_json::json!(["a"]));
    assert_eq!(json["inputs"], serde_json::json!(["x", "y"]));
    for bad in ["5,6", "5,6,7"] {
        let (status, stdout, stderr) = dstar(&["eval", file, "--at", "1,3", "--params", bad]);
        assert_eq!(status, 2, "--params {bad:?}: {stdout}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.contains("1 parameter"), "--params {bad:?}: {stderr}");
    }
    let (_dir, bare) = problem("bare.dstar", "param a, b\nin x\nout f = a*x + b\n");
    let (status, _, stderr) = dstar(&["eval", bare.to_str().unwrap(), "--at", "1"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("no '# @params' comment; give their values with --params"), "{stderr}");
    let (status, _, stderr) = dstar(&["bench", bare.to_str().unwrap(), "--at", "1", "--params", "1"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("--params has 1 value but the function has 2 parameters"), "{stderr}");
    let (status, stdout, stderr) = dstar(&["stats", file]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("1 parameter"), "{stdout}");
    let (_dir, wrong) = problem("wrong.dstar", "# @params 1 2\nparam a\nin x\nout a*x\n");
    let (status, _, stderr) = dstar(&["eval", wrong.to_str().unwrap(), "--at", "1"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("1:1:"), "{stderr}");
}

/// One output's Hessian is the Lagrangian's with weight 1, built as the
/// library builds it (from maps where the plan finds them): a mixture
/// model's `eval --hessian` took 20 s at 20 points and failed at 1,000
/// after minutes and 18 GB when it was built written out. Against the
/// output Hessians the program's copy with a second output gets (the
/// written-out path), on the same pattern, within rounding.
#[test]
fn one_outputs_hessian_is_the_lagrangians_and_equals_the_written_out_one() {
    let dir = testkit::scratch("dstar-eval-hessian");
    for (name, text) in [
        ("gmm", testkit::gen_py("gmm", 3, &[])),
        ("fit", testkit::gen_py("fit", 40, &[])),
        (
            "tables",
            "# @point 0.3 -0.5 0.8\nin x[3]\nfor i in range(3)\n  s[i] = exp(x[i] * x[2 - i])\nend\nout f = sum(s)\n".to_string(),
        ),
    ] {
        let one = dir.path().join(format!("{name}.dstar"));
        std::fs::write(&one, &text).unwrap();
        // A second output (a constant) keeps the first's Hessian on the
        // per-output path.
        let two = dir.path().join(format!("{name}_2.dstar"));
        std::fs::write(&two, format!("{text}\nout 1\n")).unwrap();
        let hessian = |path: &std::path::Path| {
            let (status, stdout, stderr) =
                dstar(&["eval", path.to_str().unwrap(), "--hessian", "--sparse", "--json"]);
            assert_eq!(status, 0, "{name}: {stderr}");
            let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            v["hessian_sparse"][0].clone()
        };
        let (mine, written) = (hessian(&one), hessian(&two));
        assert_eq!(mine["rows"], written["rows"], "{name}: the same pattern");
        assert_eq!(mine["cols"], written["cols"], "{name}: the same pattern");
        let (a, b) = (as_vec(&mine["values"]), as_vec(&written["values"]));
        assert!(!a.is_empty());
        for (x, y) in a.iter().zip(&b) {
            assert!(close(*x, *y, 1e-12), "{name}: {x} vs {y}");
        }
    }
}

/// Every output's own Hessian where one output is large written out (a fit
/// over 600 data points through a function: it gets the Hessian the
/// library builds for it alone, maps and all) beside small ones, one of
/// them singular at the point: each equals hyper-dual numbers, the
/// singular one leaks into no other (its infinite second derivative), and
/// the patterns are the written-out path's. The large output's Hessian
/// was built written out, seconds per 20 mixture points.
#[test]
fn a_large_outputs_hessian_beside_small_ones_is_built_alone() {
    let points = 600;
    let data: Vec<String> = (0..points)
        .flat_map(|i| {
            let t = 0.01 * i as f64;
            [t, (0.7 * t).sin() + 0.1 * (13.0 * t).cos()]
        })
        .map(|v| v.to_string())
        .collect();
    let text = format!(
        "# @point 0.5 1.5 0.25\n# @params {}\nin a, b, c\nparam d[{points}, 2]\n\
         function r(a, b, c, t, y) -> (q)\n  q = (a * exp(-b * t) + c * sin(t) - y)^2\nend\n\
         for i in range({points})\n  s[i] = r(a, b, c, d[i, 0], d[i, 1])\nend\n\
         out fit = sum(s)\nout edge = sqrt(c - 0.25)\nout small = a * b * b\n",
        data.join(" ")
    );
    let program = dstar::frontend::parse_program(&text).unwrap();
    let kernel = program.kernel().unwrap();
    let sizes = dstar::frontend::call::inlined_ops_each(kernel.dag(), kernel.roots());
    assert!(sizes[0] >= dstar::factor::plan::MAP_SMALL_KERNEL_OPS, "{sizes:?}: the fit is large");
    assert!(sizes[1..].iter().all(|&s| s < dstar::factor::plan::MAP_SMALL_KERNEL_OPS));

    let dir = testkit::scratch("dstar-eval-large-output");
    let path = dir.path().join("fit.dstar");
    std::fs::write(&path, &text).unwrap();
    let written = dstar::factor::output_hessians(kernel.clone());
    let inlined = kernel.inlined();
    let at: Vec<f64> = [0.5, 1.5, 0.25].into_iter().chain(program.param_values.clone().unwrap()).collect();
    for interp in [false, true] {
        let mut args = vec!["eval", path.to_str().unwrap(), "--hessian", "--sparse", "--json"];
        if interp {
            args.push("--interp");
        }
        let (status, stdout, stderr) = dstar(&args);
        assert_eq!(status, 0, "{stderr}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        for output in 0..3 {
            let h = &v["hessian_sparse"][output];
            let rows: Vec<usize> =
                h["rows"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap() as usize).collect();
            let cols: Vec<usize> =
                h["cols"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap() as usize).collect();
            let positions: Vec<(usize, usize)> = rows.into_iter().zip(cols).collect();
            assert_eq!(positions, written.positions(output), "output {output}: the written-out pattern");
            for (&(i, j), got) in positions.iter().zip(as_vec(&h["values"])) {
                let root = [inlined.roots()[output]];
                let want = testkit::eval_hyper(inlined.dag(), &root, &at, i, j).outputs[0].d12;
                if !want.is_finite() {
                    // sqrt''(0): dstar says -inf, hyper-duals NaN.
                    assert!(!got.is_finite(), "output {output} ({i}, {j}): {got} vs {want}");
                } else {
                    assert!(close(got, want, 1e-10), "output {output} ({i}, {j}): {got} vs {want}");
                }
            }
        }
        let fit = as_vec(&v["hessian_sparse"][0]["values"]);
        assert!(
            fit.iter().all(|h| h.is_finite()),
            "the singular output leaks into the fit's Hessian: {fit:?}"
        );
    }
}

/// `--sparse` with `--jacobian` prints the Jacobian's nonzeros (CSR: rows
/// ascending, columns ascending in a row), which scattered are the dense
/// Jacobian, in JSON and as text; a dense Jacobian past 10^7 numbers is
/// refused with that advice (thousands of outputs over thousands of
/// inputs took gigabytes to print).
#[test]
fn a_sparse_jacobian_is_the_dense_ones_nonzeros() {
    for case in testkit::corpus().iter().take(12) {
        let file = case.path.to_str().unwrap();
        let json = |args: &[&str]| -> serde_json::Value {
            let (status, stdout, stderr) = dstar(&[&["eval", file, "--jacobian", "--json"], args].concat());
            assert_eq!(status, 0, "{stderr}");
            serde_json::from_str(&stdout).unwrap()
        };
        let (dense, sparse) = (json(&[]), json(&["--sparse"]));
        assert_eq!(dense["values"], sparse["values"]);
        let rows: Vec<Vec<f64>> = dense["jacobian"].as_array().unwrap().iter().map(as_vec).collect();
        let s = &sparse["jacobian_sparse"];
        let index = |key: &str| -> Vec<usize> {
            s[key].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect()
        };
        let (r, c, v) = (index("rows"), index("cols"), as_vec(&s["values"]));
        assert!(r.iter().zip(&c).zip(r.iter().zip(&c).skip(1)).all(|(a, b)| a < b), "{file}: CSR order");
        let mut scattered = vec![vec![0.0; rows[0].len()]; rows.len()];
        for ((&i, &j), &x) in r.iter().zip(&c).zip(&v) {
            scattered[i][j] = x;
        }
        assert_eq!(scattered, rows, "{file}");
        let (status, text, _) = dstar(&["eval", file, "--jacobian", "--sparse"]);
        assert_eq!(status, 0);
        assert_eq!(text.lines().filter(|l| l.starts_with("    d/d")).count(), v.len(), "{file}");
    }
    let scratch = testkit::scratch("dstar-cli-sparse-jacobian");
    let file = scratch.path().join("wide.dstar");
    let text = "in x[4001]\nfor i in range(2600)\n  out g[i] = x[i] * x[i + 1]\nend\n";
    std::fs::write(&file, text).unwrap();
    let file = file.to_str().unwrap();
    let at = vec!["1"; 4001].join(",");
    let (status, _, stderr) = dstar(&["eval", file, "--at", &at, "--jacobian"]);
    assert_eq!(status, 2, "10.4 million numbers: refused");
    assert!(stderr.contains("a dense Jacobian") && stderr.contains("add --sparse"), "{stderr}");
    let (status, stdout, stderr) = dstar(&["eval", file, "--at", &at, "--jacobian", "--sparse", "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(as_vec(&v["jacobian_sparse"]["values"]).len(), 2 * 2600);
    let (status, _, stderr) = dstar(&["eval", file, "--at", &at, "--sparse"]);
    assert_eq!(status, 2, "--sparse alone: {stderr}");
}
