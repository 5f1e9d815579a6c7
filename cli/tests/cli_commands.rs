//! `dstar stats`, `bench`, `emit` and `diff` from the command line.

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
fn dstar(args: &[&str]) -> (i32, String, String) {
    testkit::command::run(env!("CARGO_BIN_EXE_dstar"), args)
}

fn corpus_file(name: &str) -> String {
    testkit::corpus_file(name).display().to_string()
}

#[test]
fn stats_reports_ops_and_beats_the_baselines() {
    for problem in testkit::corpus() {
        let (status, stdout, stderr) = dstar(&["stats", problem.path_str(), "--json"]);
        assert_eq!(status, 0, "{stderr}");
        let s: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        for key in [
            "inputs",
            "outputs",
            "function_ops",
            "jacobian_ops",
            "jacobian_nnz",
            "forward_mode_ops",
            "reverse_mode_ops",
        ] {
            assert!(s[key].is_u64(), "{key} in {stdout}");
        }
        assert!(s["symbolic_ms"].is_f64());
        let best = s["forward_mode_ops"].as_u64().unwrap().min(s["reverse_mode_ops"].as_u64().unwrap());
        let (n, m) = (s["inputs"].as_u64().unwrap(), s["outputs"].as_u64().unwrap());
        if n > 1 && m > 1 {
            assert!(s["jacobian_ops"].as_u64().unwrap() <= best, "{}: {stdout}", problem.path.display());
        }
    }
}

#[test]
fn bench_prints_the_four_timings() {
    let (status, stdout, stderr) = dstar(&["bench", &corpus_file("lyons.dstar"), "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let b: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for key in ["function_ns_median", "jacobian_ns_median", "compile_ms", "symbolic_ms"] {
        assert!(b[key].as_f64().is_some_and(|v| v > 0.0), "{key} in {stdout}");
    }
}

#[test]
fn emit_writes_text_c_rust_and_dot() {
    let file = corpus_file("lyons.dstar");
    let (status, text, _) = dstar(&["emit", &file, "--target", "text"]);
    assert_eq!(status, 0);
    let program = dstar::parse_program(&text).expect("emitted text parses");
    assert_eq!(program.output_names(), ["y1", "y2", "d_y1_d_x1", "d_y1_d_x2", "d_y2_d_x1", "d_y2_d_x2"]);
    let (_, c, _) = dstar(&["emit", &file, "--target", "c", "--name", "lyons"]);
    assert!(c.contains("void lyons(const double *x, double *out)"), "{c}");
    let (_, rust, _) = dstar(&["emit", &file, "--target", "rust"]);
    assert!(rust.contains("pub fn jacobian(x: &[f64], out: &mut [f64])"), "{rust}");
    let (_, dot, _) = dstar(&["emit", &file, "--target", "dot"]);
    assert!(dot.starts_with("digraph") && dot.contains("->"), "{dot}");
}

/// Issue 29: `--header FILE` beside `--target c` writes the declarations
/// (`tests/c_header.rs` compiles them); the Jacobian's and the Hessian's
/// layout comments have one format; a header of another target is refused.
#[test]
fn emit_writes_a_c_header_and_one_layout_comment() {
    let file = corpus_file("lyons.dstar");
    let scratch = testkit::scratch("dstar-cli-header");
    let dir = scratch.path();
    let header = dir.join("lyons.h");
    let at = header.to_str().unwrap();
    let (status, c, stderr) = dstar(&["emit", &file, "--target", "c", "--name", "lyons", "--header", at]);
    assert_eq!(status, 0, "{stderr}");
    assert!(c.starts_with("// x = [x1, x2]\n// out = [y1, y2, d y1/d x1, "), "{c}");
    let h = std::fs::read_to_string(&header).unwrap();
    for line in [
        "extern \"C\" {",
        "void lyons(const double *x, double *out);",
        "#define LYONS_NUM_INPUTS 2",
        "#define LYONS_OUT_LEN 6",
        "#define LYONS_JAC_NNZ 4",
        "static const int lyons_jac_row_offsets[LYONS_JAC_ROWS + 1] = {0, 2, 4};",
    ] {
        assert!(h.contains(line), "{line} missing from\n{h}");
    }
    let (status, c, stderr) = dstar(&["emit", &file, "--target", "c", "--hessian", "--header", at]);
    assert_eq!(status, 0, "{stderr}");
    let comment: Vec<&str> = c.lines().take_while(|l| l.starts_with("// ")).collect();
    assert_eq!(
        comment,
        [
            "// L = w_y1 * y1 + w_y2 * y2",
            "// x = [x1, x2]",
            "// w = [w_y1, w_y2]",
            "// out = [y1, y2, dL/d x1, dL/d x2, d2L/d x1 d x1, d2L/d x2 d x1, d2L/d x2 d x2]"
        ]
    );
    let h = std::fs::read_to_string(&header).unwrap();
    assert!(
        h.contains("#define JACOBIAN_NUM_WEIGHTS 2") && h.contains("jacobian_hess_cols[JACOBIAN_HESS_NNZ]"),
        "{h}"
    );
    let (status, _, stderr) = dstar(&["emit", &file, "--target", "rust", "--header", at]);
    assert_eq!(status, 2);
    assert!(stderr.contains("--header goes with --target c"), "{stderr}");
    let (status, _, stderr) = dstar(&["emit", &file, "--target", "c", "--header", "/nonexistent/dir/f.h"]);
    assert_eq!(status, 1);
    assert!(stderr.contains("cannot write /nonexistent/dir/f.h"), "{stderr}");
}

/// Issue 36: a program whose repetitions the plan keeps as maps (gen.py's
/// cart-pole over 150 intervals) is emitted, in C and in Rust, as one loop
/// per map over index tables, with the signature and the header of the
/// kernel written out: its Jacobian's, and with `--hessian` the values,
/// gradient and lower triangle's.
#[test]
fn emit_writes_maps_as_loops_under_the_same_header() {
    let scratch = testkit::scratch("dstar-cli-maps");
    let dir = scratch.path();
    let file = dir.join("cartpole.dstar");
    std::fs::write(&file, testkit::gen_py("cartpole", 150, &[])).unwrap();
    let (file, header) = (file.to_str().unwrap(), dir.join("f.h"));
    let program = dstar::parse_program(&std::fs::read_to_string(file).unwrap()).unwrap();
    let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());
    let kernel = program.kernel().unwrap();
    let jacobian = dstar::factor::jacobian(kernel.clone());
    let hessian = dstar::factor::lagrangian_hessian(kernel);
    let written_out = [
        (&[][..], jacobian.kernel(), jacobian.layout(), vec![n, q], &["values", "jac"][..]),
        (
            &["--hessian"][..],
            hessian.kernel(),
            hessian.layout(),
            vec![n, q, m],
            &["values", "grad", "hess"][..],
        ),
    ];
    for (flags, kernel, layout, lengths, names) in written_out {
        let mut args =
            vec!["emit", file, "--target", "c", "--name", "f", "--header", header.to_str().unwrap()];
        args.extend(flags);
        let (status, c, stderr) = dstar(&args);
        assert_eq!(status, 0, "{stderr}");
        assert!(c.contains("as maps") && c.contains("for (uint32_t i = 0; i < 150; i++) {"), "{flags:?}");
        assert!(c.contains(&dstar::backend::c_signature("f", &lengths).unwrap()), "{flags:?}");
        let parts: Vec<_> = names.iter().copied().zip(layout.blocks()).collect();
        let expected = dstar::backend::emit_c_header(kernel, "f", &lengths, &parts).unwrap();
        assert_eq!(std::fs::read_to_string(&header).unwrap(), expected, "{flags:?}: the header");
        args[3] = "rust";
        args.truncate(6);
        args.extend(flags);
        let (status, rust, stderr) = dstar(&args);
        assert_eq!(status, 0, "{stderr}");
        assert!(rust.contains("for i in 0..150usize {"), "{flags:?}");
        assert!(rust.contains(&dstar::backend::rust_signature("f", &lengths).unwrap()), "{flags:?}");
    }
}

#[test]
fn diff_prints_derivatives() {
    let (status, stdout, _) = dstar(&["diff", "sin(x*y)", "x"]);
    assert_eq!(status, 0);
    assert_eq!(stdout.trim(), "y * cos(x * y)");
    let (_, stdout, _) = dstar(&["diff", "x^3", "x", "3"]);
    assert_eq!(stdout.trim(), "6");
    let (status, _, stderr) = dstar(&["diff", "sin(x", "x"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("unclosed '('"), "{stderr}");
}

#[test]
fn help_lists_every_subcommand_with_an_example() {
    let (status, stdout, _) = dstar(&["--help"]);
    assert_eq!(status, 0);
    for command in ["eval", "stats", "bench", "emit", "repl", "diff"] {
        assert!(stdout.contains(command), "{command} missing from --help");
        let (status, help, _) = dstar(&[command, "--help"]);
        assert_eq!(status, 0);
        assert!(help.contains("Example: "), "{command} --help has no example");
    }
}

#[test]
fn elim_lists_every_strategy_beside_dstar() {
    let (status, stdout, stderr) = dstar(&["elim", &corpus_file("lyons.dstar"), "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let e: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = e["strategies"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    for name in [
        "forward_vertex",
        "reverse_vertex",
        "markowitz_vertex",
        "optimal_vertex",
        "forward_edge",
        "backward_edge",
        "optimal_edge",
        "face",
        "scarcity_greedy",
        "scarcity_hybrid",
        "dstar",
    ] {
        assert!(names.contains(&name), "{name} missing: {names:?}");
    }
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap();
    // The published optimum for y1 = x1*sin(x1 + x2)-like graphs: never above a heuristic.
    let cost = |name: &str| row(name)["mults"].as_u64().unwrap() + row(name)["adds"].as_u64().unwrap();
    for heuristic in ["forward_vertex", "reverse_vertex", "markowitz_vertex", "forward_edge", "backward_edge"]
    {
        assert!(cost("optimal_edge") <= cost(heuristic), "{heuristic}");
    }
    // An exact strategy over its size guard says why it was skipped.
    let (_, stdout, _) = dstar(&["elim", &corpus_file("sh_5.dstar"), "--json"]);
    let e: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let optimal = e["strategies"].as_array().unwrap().iter().find(|r| r["name"] == "optimal_edge").unwrap();
    assert!(optimal["skipped"].is_string(), "{optimal}");
}

#[test]
fn subchains_are_on_by_default_and_can_be_turned_off() {
    let file = corpus_file("sh_10.dstar");
    let stats = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["stats", file.as_str(), "--json"];
        args.extend(extra);
        let (status, stdout, stderr) = dstar(&args);
        assert_eq!(status, 0, "{stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let on = stats(&[]);
    let off = stats(&["--no-simplify"]);
    assert_eq!(on["strategy"], "forward_vertex");
    assert!(on["simplify_stop_reason"].is_string());
    assert!(off.get("simplify_stop_reason").is_none());
    assert_eq!(on["ops_before_simplify"], off["jacobian_ops"]);
    assert!(on["jacobian_ops"].as_u64() < off["jacobian_ops"].as_u64(), "{on} vs {off}");
}

/// Issue 12: `diff(x^2, x, 18446744073709551615)` never returned.
#[test]
fn issue_12_diff_stops_at_zero_and_bounds_its_work() {
    let (status, stdout, _) = dstar(&["diff", "x^2", "x", "18446744073709551615"]);
    assert_eq!((status, stdout.trim()), (0, "0"));
    let (status, stdout, _) = dstar(&["diff", "sin(x)", "x", "1000000000000000001"]);
    assert_eq!((status, stdout.trim()), (0, "cos(x)"));
    let (status, _, stderr) = dstar(&["diff", "sin(x)/(1 + x^2)", "x", "18446744073709551615"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("ask for order"), "{stderr}");
    let (status, _, stderr) = dstar(&["diff", "x", "2x", "1"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("'2x' is not a variable name"), "{stderr}");
}

/// Issue 35: past its memory limit the process stops with status 3 and a
/// message naming the stage, the sizes and the option, from the flag or
/// the environment; a bad size is a usage error.
#[test]
fn the_memory_guard_stops_with_the_stage_and_the_option() {
    let file = corpus_file("nbody_acc_20.dstar");
    let (status, _, stderr) = dstar(&["--memory-limit", "1M", "stats", "--hessian", &file]);
    assert_eq!(status, 3, "{stderr}");
    assert!(stderr.starts_with("error: out of memory while differentiating: "), "{stderr}");
    assert!(stderr.contains("the limit of 1.0 MB") && stderr.contains("--memory-limit SIZE"), "{stderr}");
    let by_environment = std::process::Command::new(env!("CARGO_BIN_EXE_dstar"))
        .args(["eval", &file])
        .env("DSTAR_MEMORY_LIMIT", "1M")
        .output()
        .expect("dstar runs");
    assert_eq!(by_environment.status.code(), Some(3));
    let (status, _, _) = dstar(&["--memory-limit", "1G", "stats", &file]);
    assert_eq!(status, 0, "a limit the problem fits in");
    let (status, _, stderr) = dstar(&["--memory-limit", "much", "stats", &file]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("'much' is not a size"), "{stderr}");
}

/// `stats --hessian` reports the Hessian the compiled kernel has: where the
/// plan maps a program (gmm's points, cart-pole's intervals), each body's
/// Hessian as maps, with the compiled kernel's operations and nonzeros. It
/// built the Hessian of the program written out instead (gmm 1000: minutes
/// and gigabytes); gmm 200 is past the size where maps pay for everything.
#[test]
fn stats_reports_the_hessian_of_the_maps_the_compiled_kernel_uses() {
    let scratch = testkit::scratch("dstar-cli-stats-maps");
    for (family, n) in [("gmm", 200), ("cartpole", 40)] {
        let file = scratch.path().join(format!("{family}.dstar"));
        std::fs::write(&file, testkit::gen_py(family, n, &[])).unwrap();
        let (status, stdout, stderr) = dstar(&["stats", "--hessian", "--json", file.to_str().unwrap()]);
        assert_eq!(status, 0, "{stderr}");
        let s: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let program = dstar::parse_program(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let function = dstar::Function::new(program, dstar::Options::default());
        let built = function.symbolic(dstar::Request::Hessian).unwrap();
        assert!(matches!(built.kernel, dstar::factor::Symbolic::Maps(_)), "{family}: compiled as maps");
        assert_eq!(s["hessian_method"], "maps", "{family}: {stdout}");
        assert_eq!(s["hessian_ops"].as_u64(), Some(built.kernel.count_ops() as u64), "{family}");
        let nnz = built.layout.pattern().map(|p| p.nnz());
        assert_eq!(s["hessian_lower_nnz"].as_u64(), nnz.map(|n| n as u64), "{family}");
    }
}
