//! `dstar eval` on the corpus and on bad input.

mod support;

use support::{as_vec, close, dstar, reference};

#[test]
fn eval_matches_every_corpus_reference() {
    let corpus = support::corpus();
    assert!(corpus.len() >= 17);
    for problem in corpus {
        let (status, stdout, stderr) = dstar(&["eval", problem.to_str().unwrap(), "--json"]);
        assert_eq!(status, 0, "{}: {stderr}", problem.display());
        let got: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
        let want = reference(&problem);
        assert_eq!(got["inputs"], want["inputs"], "{}", problem.display());
        assert_eq!(got["outputs"], want["outputs"], "{}", problem.display());
        let (got, want) = (as_vec(&got["values"]), as_vec(&want["values"]));
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(*g, *w, 1e-12), "{} output {i}: {g} vs {w}", problem.display());
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
    let dir = std::env::temp_dir().join(format!("dstar-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("nonfinite.dstar");
    std::fs::write(&file, "in x\nout a = log(x)\nout b = -1/x\nout c = sqrt(x - 1)\n").unwrap();
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
    for problem in support::corpus() {
        let want = reference(&problem);
        for mode in [None, Some("--interp")] {
            let mut args = vec!["eval", problem.to_str().unwrap(), "--jacobian", "--json"];
            args.extend(mode);
            let (status, stdout, stderr) = dstar(&args);
            assert_eq!(status, 0, "{}: {stderr}", problem.display());
            let got: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
            let (rows, want_rows) =
                (got["jacobian"].as_array().unwrap(), want["jacobian"].as_array().unwrap());
            assert_eq!(rows.len(), want_rows.len());
            for (i, (g, w)) in rows.iter().zip(want_rows).enumerate() {
                for (j, (g, w)) in as_vec(g).iter().zip(as_vec(w)).enumerate() {
                    assert!(close(*g, w, 1e-9), "{} {mode:?} J[{i}][{j}]: {g} vs {w}", problem.display());
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
