//! Issue 15: `dstar eval FILE --order k --direction v`, the Taylor
//! coefficients of every output along a direction.

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
fn dstar(args: &[&str]) -> (i32, String, String) {
    testkit::command::run(env!("CARGO_BIN_EXE_dstar"), args)
}

/// `text` as the file `name` in a scratch directory (removed when dropped).
fn file(text: &str, name: &str) -> (testkit::Scratch, String) {
    let dir = testkit::scratch("dstar-eval-order");
    let path = dir.path().join(format!("{name}.dstar"));
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

#[test]
fn prints_coefficients_and_derivatives_along_the_direction() {
    let (_dir, f) = file("in x, y\nout f = exp(x) * y\nout g = 1/(1 - x)\n# @point 0 1\n", "two");
    let (status, stdout, stderr) = dstar(&["eval", &f, "--order", "3", "--direction", "1,2", "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let got: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // exp(t)·(1 + 2t) = 1 + 3t + 5t²/2! + 7t³/3!; 1/(1 - t) = Σ t^j.
    assert_eq!(
        got["directional_derivatives"],
        serde_json::json!([[1.0, 3.0, 5.0, 7.0], [1.0, 1.0, 2.0, 6.0]])
    );
    assert_eq!(got["taylor"][1], serde_json::json!([1.0, 1.0, 1.0, 1.0]));
    let (_, interpreted, _) =
        dstar(&["eval", &f, "--order", "3", "--direction", "1,2", "--json", "--interp"]);
    assert_eq!(stdout, interpreted);
    let (status, text, _) = dstar(&["eval", &f, "--order", "2", "--direction", "1,2"]);
    assert_eq!(status, 0);
    assert!(
        text.contains(
            "f = 1\n  taylor coefficients along v: [1, 3, 2.5]\n  derivatives along v: [1, 3, 5]\n"
        ),
        "{text}"
    );
}

#[test]
fn bad_orders_and_directions_are_refused_clearly() {
    let (_dir, f) = file("in x, y\nout sin(x) * y\n# @point 0 1\n", "bad");
    let refused = |args: &[&str]| {
        let mut all = vec!["eval", f.as_str()];
        all.extend_from_slice(args);
        let (status, stdout, stderr) = dstar(&all);
        assert_eq!((status, stdout.as_str()), (2, ""), "{args:?}");
        stderr
    };
    let e = refused(&["--order", "2", "--direction", "1"]);
    assert!(e.contains("--direction has 1 value but the function has 2 inputs (x, y)"), "{e}");
    let e = refused(&["--order", "18446744073709551615", "--direction", "1,0"]);
    assert!(e.contains("ask for order 170 or lower"), "{e}");
    assert!(refused(&["--order", "2"]).contains("--direction"));
    assert!(refused(&["--direction", "1,0"]).contains("--order"));
    assert!(refused(&["--order", "2.5", "--direction", "1,0"]).contains("invalid value '2.5'"));
    assert!(refused(&["--order", "2", "--direction", "1,a"]).contains("malformed number 'a'"));
}
