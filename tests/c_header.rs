//! Issue 29: the C header of `dstar emit --target c --header`
//! ([`backend::emit_c_header`]), used as a C user uses it. For problems of
//! the corpus, of `tests/nlp`, with parameters and with functions (and the
//! structured cart-pole of `gen.py`), a small C
//! program includes the header, calls the emitted Jacobian and Lagrangian
//! Hessian kernels with arrays sized by its macros, walks the CSR arrays
//! (checking that each nonzero's row array agrees) and prints every nonzero
//! at its position; the matrices it prints are the JIT's ([`Function`] and
//! its [`Compiled`](dstar::Compiled) kernels), entry for entry, zeros
//! included. The same program compiled as C++ (with the kernel compiled as
//! C) prints the same: the `extern "C"` guards link.

use dstar::frontend::{Kernel, Layout, Program};
use dstar::{backend, factor, Args, Function, Options, Request};
use std::path::Path;
use std::process::Command;
use testkit::native::c_compiler;
use testkit::{close, gen_py, Tol};

/// A problem with parameters, its Jacobian sparse and its Hessian coupled.
const WITH_PARAMS: &str = "# @point 0.3 0.7 1.1 -0.4\n# @params 2.0 -0.5\nparam a, b\nin x, y, z, t\n\
                           out f = a * x^2 + sin(y * z) + b * x * z\nout g = exp(b * y) - a * z\n\
                           out h = x * y * t\n";

/// A problem with functions (a call nested in a call, a function used twice).
const WITH_FUNCTIONS: &str = "# @point 0.4 -0.2 0.9\n# @params 1.5\nparam k\nin u, v, w\n\
                              sq(z) = z * z\n\
                              function spring(a, b, c) -> (en, fo)\n  en = c * sq(a - b)\n  fo = sin(a) * b\nend\n\
                              e1, f1 = spring(u, v, k)\ne2, f2 = spring(v, w, k)\n\
                              out r1 = e1 + f2\nout r2 = f1 * w\n";

/// Runs `command`, panicking with its output unless it succeeds; its stdout.
fn run(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(output.status.success(), "{what} failed:\n{}{}", text(&output.stdout), text(&output.stderr));
    text(&output.stdout)
}

/// `static const double NAME[LEN] = {...};` for the C program, or nothing if empty.
fn array(name: &str, len: &str, values: &[f64]) -> String {
    if values.is_empty() {
        return String::new();
    }
    let items: Vec<String> = values.iter().map(|v| format!("{v:e}")).collect();
    format!("static const double {name}[{len}] = {{{}}};\n", items.join(", "))
}

/// The C (and C++) program: includes `kernel.h`, calls `f` at the given
/// blocks and prints `V k value` per value and `S part row col value` per
/// nonzero of each sparse part, walking its CSR arrays.
fn program_text(blocks: &[(&str, &str, &[f64])], parts: &[&str], sparse: &[&str]) -> String {
    let mut c = String::from("#include <stdio.h>\n#include \"kernel.h\"\n\n");
    let mut args = vec![];
    for (name, len, values) in blocks {
        c += &array(name, len, values);
        if !values.is_empty() || *name == "x" {
            args.push(*name);
        }
    }
    c += "\nint main(void)\n{\n    double out[F_OUT_LEN];\n";
    c += &format!("    f({}, out);\n", args.join(", "));
    for part in parts {
        let upper = part.to_uppercase();
        if sparse.contains(part) {
            c += &format!(
                "    for (int i = 0; i < F_{upper}_ROWS; i++)\n        \
                 for (int k = f_{part}_row_offsets[i]; k < f_{part}_row_offsets[i + 1]; k++) {{\n            \
                 if (f_{part}_rows[k] != i) return 1;\n            \
                 printf(\"S {part} %d %d %.17g\\n\", i, f_{part}_cols[k], out[F_{upper}_OFFSET + k]);\n        }}\n"
            );
        } else {
            c += &format!(
                "    for (int k = 0; k < F_{upper}_LEN; k++) printf(\"V %d %.17g\\n\", k, out[F_{upper}_OFFSET + k]);\n"
            );
        }
    }
    c + "    return 0;\n}\n"
}

/// What the program printed: the values, and per sparse part a dense matrix
/// of `rows × cols` (`symmetric`: both triangles from the lower one).
fn parse_output(text: &str, shapes: &[(&str, usize, usize, bool)]) -> (Vec<f64>, Vec<Vec<Vec<f64>>>) {
    let mut values = vec![];
    let mut dense: Vec<Vec<Vec<f64>>> = shapes.iter().map(|&(_, r, c, _)| vec![vec![0.0; c]; r]).collect();
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let number = |s: &str| -> f64 { s.parse().unwrap_or_else(|_| panic!("a number: {line}")) };
        match words[..] {
            ["V", _, v] => values.push(number(v)),
            ["S", part, i, j, v] => {
                let s = shapes.iter().position(|s| s.0 == part).expect("a known part");
                let (i, j): (usize, usize) = (i.parse().unwrap(), j.parse().unwrap());
                dense[s][i][j] = number(v);
                if shapes[s].3 {
                    dense[s][j][i] = number(v);
                }
            }
            _ => panic!("unexpected line: {line}"),
        }
    }
    (values, dense)
}

/// Compiles `kernel.c` and `main.c` against `kernel.h` in `dir` as C (the
/// kernel with the header forced in, so its prototype must match) and, if
/// a C++ compiler runs, `main.c` as C++ linked to the C kernel; runs both
/// and checks they print the same. The C program's output.
fn build_and_run(cc: &str, dir: &Path) -> String {
    let c = |a: &str| dir.join(a);
    run(
        Command::new(cc)
            .current_dir(dir)
            .args(["-std=c99", "-Wall", "-Werror", "-include", "kernel.h", "-c", "kernel.c", "-o"])
            .arg(c("kernel.o")),
        "compiling the kernel as C",
    );
    run(
        Command::new(cc)
            .current_dir(dir)
            .args(["-std=c99", "-Wall", "-Werror", "main.c", "kernel.o", "-lm", "-o"])
            .arg(c("main")),
        "compiling the C program",
    );
    let printed = run(&mut Command::new(c("main")), "the C program");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if Command::new(&cxx).arg("--version").output().is_ok_and(|o| o.status.success()) {
        run(
            Command::new(&cxx)
                .current_dir(dir)
                .args([
                    "-std=c++11",
                    "-Wall",
                    "-Werror",
                    "-x",
                    "c++",
                    "main.c",
                    "-x",
                    "none",
                    "kernel.o",
                    "-lm",
                    "-o",
                ])
                .arg(c("main_cxx")),
            "compiling the program as C++",
        );
        assert_eq!(run(&mut Command::new(c("main_cxx")), "the C++ program"), printed, "C++ and C disagree");
    } else {
        eprintln!("note: no working C++ compiler ({cxx}); the header is checked as C only");
    }
    printed
}

/// Emits `kernel` (blocks `lengths`, output `layout` in parts `names`) as
/// `f` with its header into a new scratch directory (removed when dropped)
/// with the program of `blocks`.
fn emit(
    what: &str,
    kernel: &Kernel,
    lengths: &[usize],
    layout: &Layout,
    names: &[&str],
    main: String,
) -> testkit::Scratch {
    let scratch = testkit::scratch(&format!("dstar-header-{what}"));
    let dir = scratch.path();
    let parts: Vec<_> = names.iter().copied().zip(layout.blocks()).collect();
    let header = backend::emit_c_header(kernel, "f", lengths, &parts).expect("a header");
    std::fs::write(dir.join("kernel.h"), header).expect("writing");
    std::fs::write(dir.join("kernel.c"), backend::emit_c(kernel, "f", lengths).expect("C")).expect("writing");
    std::fs::write(dir.join("main.c"), main).expect("writing");
    scratch
}

fn assert_matrix(what: &str, got: &[Vec<f64>], want: &[Vec<f64>]) {
    assert_eq!(got.len(), want.len(), "{what}: rows");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        for (j, (a, b)) in g.iter().zip(w).enumerate() {
            assert!(close(*a, *b, Tol::rel(1e-11)), "{what} ({i}, {j}): C {a:e}, JIT {b:e}");
        }
    }
}

/// The header of the Jacobian and of the Lagrangian Hessian of `program`,
/// through C (and C++), against the JIT.
fn check(cc: &str, program: &Program, what: &str) {
    let x = testkit::point_of(program);
    let p = program.param_values.clone().unwrap_or_default();
    let (n, m) = (program.inputs.len(), program.outputs.len());
    let w: Vec<f64> = (0..m).map(|k| 1.0 - 0.3 * k as f64).collect();
    let function = Function::new(program.clone(), Options::default());
    let at = Args::x(&x).p(&p);

    let jacobian = factor::jacobian(program.kernel().expect("a kernel"));
    let lengths = [n, p.len()];
    let main =
        program_text(&[("x", "F_NUM_INPUTS", &x), ("p", "F_NUM_PARAMS", &p)], &["values", "jac"], &["jac"]);
    let dir = emit(
        &format!("{what}-jac"),
        jacobian.kernel(),
        &lengths,
        &jacobian.layout(),
        &["values", "jac"],
        main,
    );
    let (values, dense) = parse_output(&build_and_run(cc, dir.path()), &[("jac", m, n, false)]);
    let jit = function.compile(Request::Jacobian).expect("compiles").eval_dense(at).expect("lengths");
    assert_matrix(&format!("{what} values"), &[values], &jit[0]);
    assert_matrix(&format!("{what} Jacobian"), &dense[0], &jit[1]);

    let hessian = factor::lagrangian_hessian(program.kernel().expect("a kernel"));
    let lengths = [n, p.len(), m];
    let blocks =
        [("x", "F_NUM_INPUTS", &x[..]), ("p", "F_NUM_PARAMS", &p[..]), ("w", "F_NUM_WEIGHTS", &w[..])];
    let main = program_text(&blocks, &["values", "grad", "hess"], &["grad", "hess"]);
    let names = ["values", "grad", "hess"];
    let dir = emit(&format!("{what}-hess"), hessian.kernel(), &lengths, &hessian.layout(), &names, main);
    let shapes = [("grad", 1, n, false), ("hess", n, n, true)];
    let (_, dense) = parse_output(&build_and_run(cc, dir.path()), &shapes);
    let at = at.w(&w);
    let gradient = function.compile(Request::Vjp(1)).expect("compiles").eval_dense(at).expect("lengths");
    assert_matrix(&format!("{what} gradient"), &dense[0], gradient.last().expect("a block"));
    let lower = function.compile(Request::Hessian).expect("compiles").eval_dense(at).expect("lengths");
    assert_matrix(&format!("{what} Hessian"), &dense[1], lower.last().expect("a block"));
}

#[test]
fn c_programs_walk_the_header_patterns_to_the_jit_values() {
    let Some(cc) = c_compiler() else { return };
    let corpus = testkit::corpus();
    let nlp = testkit::nlp();
    let chosen = ["lyons", "chebyshev_10", "hs071", "hanging_chain_100"];
    let mut checked = 0;
    for problem in corpus.iter().chain(&nlp).filter(|p| chosen.contains(&p.name.as_str())) {
        check(&cc, &problem.program, &problem.name);
        checked += 1;
    }
    assert_eq!(checked, chosen.len(), "every chosen problem is in the corpus or tests/nlp");
    let cartpole = gen_py("cartpole", 3, &[]);
    for (text, what) in [(WITH_PARAMS, "params"), (WITH_FUNCTIONS, "functions"), (&cartpole[..], "cartpole")]
    {
        let program = dstar::parse_program(text).unwrap_or_else(|e| panic!("{what}: {}", e.render(text)));
        check(&cc, &program, what);
    }
}
