//! `dstar eval|stats|emit` on AMPL `.nl` files (issue 38): chosen by the
//! extension or the `g` header, named from the `.row` and `.col` files,
//! with the same JSON as problem files.

use testkit::as_vec;

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
fn dstar(args: &[&str]) -> (i32, String, String) {
    testkit::command::run(env!("CARGO_BIN_EXE_dstar"), args)
}

const HS71: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../frontend/tests/nl/hs71.nl");

#[test]
fn eval_reads_an_nl_file_at_its_initial_point() {
    let (status, stdout, stderr) = dstar(&["eval", HS71, "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let got: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(got["inputs"], serde_json::json!(["x_1", "x_2", "x_3", "x_4"]));
    assert_eq!(got["outputs"], serde_json::json!(["obj", "product", "squares"]));
    // At (1, 5, 5, 1): x1 x4 (x1 + x2 + x3) + x3, x1 x2 x3 x4, sum of squares.
    assert_eq!(as_vec(&got["values"]), [16.0, 25.0, 52.0]);
    let (status, stdout, stderr) = dstar(&["eval", HS71, "--at", "1,2,3,4", "--jacobian", "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let got: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(as_vec(&got["values"]), [27.0, 24.0, 30.0]);
    assert_eq!(as_vec(&got["jacobian"][1]), [24.0, 12.0, 8.0, 6.0]);
}

#[test]
fn the_header_marks_an_nl_file_whatever_its_name() {
    let scratch = testkit::scratch("dstar-cli-nl-header");
    let dir = scratch.path();
    let file = dir.join("model.txt");
    std::fs::copy(HS71, &file).unwrap();
    let (status, stdout, stderr) = dstar(&["eval", file.to_str().unwrap(), "--json"]);
    assert_eq!(status, 0, "{stderr}");
    // No model.row or model.col beside it: the default names.
    assert!(stdout.starts_with(r#"{"inputs":["x0","x1","x2","x3"],"outputs":["obj","c0","c1"]"#), "{stdout}");
}

#[test]
fn stats_and_emit_take_nl_files() {
    let (status, stdout, stderr) = dstar(&["stats", HS71, "--json"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains(r#""inputs":4"#) && stdout.contains(r#""outputs":3"#), "{stdout}");
    let (status, stdout, stderr) = dstar(&["emit", HS71, "--target", "text"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("in x_1, x_2, x_3, x_4") && stdout.contains("out d_product_d_x_1"), "{stdout}");
    let (status, stdout, stderr) = dstar(&["emit", HS71, "--target", "c"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(!stdout.is_empty());
}

#[test]
fn nl_errors_exit_2_at_their_line() {
    let scratch = testkit::scratch("dstar-cli-nl-errors");
    let dir = scratch.path();
    let text = std::fs::read_to_string(HS71).unwrap();
    let line = text.lines().position(|l| l.starts_with("C0")).unwrap() + 2;
    let bad: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == line { "o74\n".into() } else { format!("{l}\n") })
        .collect();
    let file = dir.join("bad.nl");
    std::fs::write(&file, bad).unwrap();
    let (status, stdout, stderr) = dstar(&["eval", file.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    let want = format!("{line}:1: o-code o74 (alldiff) is not supported");
    assert!(stderr.contains(&want), "{stderr}");
    assert!(stderr.contains(&format!("{line} | o74")), "{stderr}");
}
