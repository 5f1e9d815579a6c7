//! Tables and runs (`docs/format.md`, "Tables and runs"): a program written
//! with `for i in range(...)` is the program with its runs written out,
//! node for node, on the shapes users write with them (a mixture model
//! over a data table, single shooting, banded constraints with an output
//! per row, a grid), at sizes on both sides of the thresholds that make
//! calls into maps; and its values are those of the same model over
//! scalar names, bit for bit.

use dstar::frontend::map::decompose;
use dstar::frontend::{eval_program, parse_program, print_program, Program};
use std::fmt::Write;
use testkit::map_rules::COMPUTING;

/// The sizes tried: short always, long under `DSTAR_LONG=1`.
fn sizes() -> Vec<usize> {
    if std::env::var_os("DSTAR_LONG").is_some() {
        vec![1, 2, 7, 64, 700, 5000]
    } else {
        vec![1, 2, 7, 300]
    }
}

/// A shape written two ways: with runs, and written out over the same
/// tables (entries by their numbers).
struct Shape {
    name: &'static str,
    /// The program with runs, at `n`.
    runs: fn(usize) -> String,
    /// The same, written out.
    written: fn(usize) -> String,
}

/// `text` with each line of the run (`{i}` standing for the index) written
/// once for each value in `range`.
fn write_out(body: &str, range: std::ops::Range<usize>, index: impl Fn(&str, usize) -> String) -> String {
    let mut s = String::new();
    for i in range {
        s += &index(body, i);
    }
    s
}

/// A Gaussian-mixture-like log-likelihood: K = 3 components over D = 2
/// coordinates, one call per point and component on the rows of a data
/// table, every call sharing the means and weights; its sum is the output.
fn mixture_head(n: usize) -> String {
    let mut s = String::new();
    let data: Vec<String> =
        (0..2 * n).map(|k| format!("{}", 0.1 + 0.37 * ((k * 7919) % 101) as f64 / 101.0)).collect();
    let _ = writeln!(s, "# @params {}", data.join(" "));
    s += "# @point 0.1 -0.2 0.3 0.5 0.4 -0.6 0.1 0.2 0.3\n";
    s += "param d[N, 2]\nin mu[3, 2], w[3]\n".replace('N', &n.to_string()).as_str();
    s += "term(a, m0, m1, z0, z1) = a - 0.5 * ((z0 - m0)^2 + (z1 - m1)^2)\n";
    s += "lse(s0, s1, s2) = log(exp(s0) + exp(s1) + exp(s2))\n";
    s
}

const MIXTURE_BODY: &str = "  l[i] = lse(term(w[0], mu[0, 0], mu[0, 1], d[i, 0], d[i, 1]), term(w[1], mu[1, 0], mu[1, 1], d[i, 0], d[i, 1]), term(w[2], mu[2, 0], mu[2, 1], d[i, 0], d[i, 1]))\n";

fn mixture_runs(n: usize) -> String {
    format!("{}for i in range({n})\n{MIXTURE_BODY}end\nout loglik = sum(l)\n", mixture_head(n))
}

fn mixture_written(n: usize) -> String {
    let body = write_out(MIXTURE_BODY, 0..n, |b, i| {
        b.replace("[i]", &format!("[{i}]")).replace("[i,", &format!("[{i},"))
    });
    let sum: Vec<String> = (0..n).map(|i| format!("l[{i}]")).collect();
    format!("{}{body}out loglik = {}\n", mixture_head(n), sum.join(" + "))
}

/// Single shooting: a pendulum's Euler step applied n times, one control
/// per step, the final state the outputs.
const SHOOTING_HEAD: &str = "in x0, v0, u[N]\nfunction step(x, v, u) -> (xn, vn)\n  xn = x + 0.1 * v\n  vn = v + 0.1 * (u - sin(x))\nend\na[0] = x0\nb[0] = v0\n";
const SHOOTING_BODY: &str = "  a[i + 1], b[i + 1] = step(a[i], b[i], u[i])\n";

fn shooting_runs(n: usize) -> String {
    let head = SHOOTING_HEAD.replace('N', &n.to_string());
    format!("{head}for i in range({n})\n{SHOOTING_BODY}end\nout a[{n}]\nout b[{n}]\n")
}

fn shooting_written(n: usize) -> String {
    let head = SHOOTING_HEAD.replace('N', &n.to_string());
    let body = write_out(SHOOTING_BODY, 0..n, |b, i| {
        b.replace("[i + 1]", &format!("[{}]", i + 1)).replace("[i]", &format!("[{i}]"))
    });
    format!("{head}{body}out a[{n}]\nout b[{n}]\n")
}

/// Banded constraints, an output each, over a shared intermediate, and an
/// objective over the whole table first.
const BANDED_BODY: &str = "  out c[i] = x[i - 1] - 2 * x[i] + x[i + 1] + 0.1 * sin(x[i]) * s + i\n";

fn banded_head(n: usize) -> String {
    format!("in x[{}]\ns = cos(x[0])\nout obj = sum(x)\n", n + 2)
}

fn banded_runs(n: usize) -> String {
    format!("{}for i in range(1, {})\n{BANDED_BODY}end\n", banded_head(n), n + 1)
}

fn banded_written(n: usize) -> String {
    let body = write_out(BANDED_BODY, 1..n + 1, |b, i| {
        b.replace("[i - 1]", &format!("[{}]", i - 1))
            .replace("[i + 1]", &format!("[{}]", i + 1))
            .replace("[i]", &format!("[{i}]"))
            .replace("+ i\n", &format!("+ {i}\n"))
    });
    let sum: Vec<String> = (0..n + 2).map(|i| format!("x[{i}]")).collect();
    format!("in x[{}]\ns = cos(x[0])\nout obj = {}\n{body}", n + 2, sum.join(" + "))
}

/// A grid of 4 columns and n + 1 rows: a cell's area from its corners,
/// one output per row of cells, rows read with `2*i`-free index sums.
const GRID_BODY: &str = "  out r[i] = area(z[i, 0], z[i, 1], z[i + 1, 0], z[i + 1, 1]) + area(z[i, 1], z[i, 2], z[i + 1, 1], z[i + 1, 2]) + area(z[i, 2], z[i, 3], z[i + 1, 2], z[i + 1, 3])\n";

fn grid_head(n: usize) -> String {
    format!("in z[{}, 4]\narea(a, b, c, d) = sqrt(1 + ((b - a)^2 + (c - a)^2 + (d - b)^2) * 0.5)\n", n + 1)
}

fn grid_runs(n: usize) -> String {
    format!("{}for i in range({n})\n{GRID_BODY}end\n", grid_head(n))
}

fn grid_written(n: usize) -> String {
    let body = write_out(GRID_BODY, 0..n, |b, i| {
        b.replace("[i + 1,", &format!("[{},", i + 1))
            .replace("[i,", &format!("[{i},"))
            .replace("[i]", &format!("[{i}]"))
    });
    format!("{}{body}", grid_head(n))
}

const SHAPES: [Shape; 4] = [
    Shape { name: "mixture", runs: mixture_runs, written: mixture_written },
    Shape { name: "shooting", runs: shooting_runs, written: shooting_written },
    Shape { name: "banded", runs: banded_runs, written: banded_written },
    Shape { name: "grid", runs: grid_runs, written: grid_written },
];

fn parse(text: &str, what: &str) -> Program {
    parse_program(text).unwrap_or_else(|e| panic!("{what}: {}", e.render(text)))
}

#[test]
fn a_run_is_its_body_written_out_node_for_node() {
    for shape in &SHAPES {
        for n in sizes() {
            let what = format!("{} {n}", shape.name);
            let runs = parse(&(shape.runs)(n), &what);
            let written = parse(&(shape.written)(n), &what);
            assert!(runs.same_as(&written), "{what}: the run is not its body written out");
            assert_eq!(runs.dag.len(), written.dag.len(), "{what}: the same nodes, no more");
            assert_eq!(runs.count_calls(), written.count_calls(), "{what}");
            let x: Vec<f64> = (0..runs.inputs.len()).map(|k| 0.3 + 0.01 * k as f64).collect();
            let bits = |p: &Program| eval_program(p, &x).iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            if runs.params.is_empty() {
                assert_eq!(bits(&runs), bits(&written), "{what}");
            }
            // Printed, a program with tables reads back as itself.
            let printed = print_program(&runs);
            assert!(parse(&printed, &what).same_as(&runs), "{what}: printed\n{printed}");
        }
    }
}

#[test]
fn tables_name_their_entries_row_by_row() {
    let p = parse("param d[2, 3]\nin x[2], y\nout d[1, 2] * x[1] + y", "tables");
    assert_eq!(p.inputs, ["x[0]", "x[1]", "y"]);
    assert_eq!(p.params, ["d[0,0]", "d[0,1]", "d[0,2]", "d[1,0]", "d[1,1]", "d[1,2]"]);
    // The same model over scalar names has the same values, bit for bit.
    let scalar = parse("param d0, d1, d2, d3, d4, d5\nin x0, x1, y\nout d5 * x1 + y", "scalars");
    let args = [0.7, -1.3, 2.9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.5];
    assert_eq!(eval_program(&p, &args)[0].to_bits(), eval_program(&scalar, &args)[0].to_bits());
}

#[test]
fn a_run_over_a_mixture_is_found_as_a_map() {
    // 300 points: well past the smallest run the plan maps. The run's calls
    // are the written-out calls, so they are one map as those are.
    let program = parse(&mixture_runs(300), "mixture 300");
    let kernel = program.kernel().expect("a kernel");
    let decomposition = decompose(&kernel, &COMPUTING).expect("the run is a map");
    let instances: usize = decomposition.maps.iter().map(|m| m.instances).sum();
    assert!(instances >= 300, "the run's calls became maps of {instances} instances");
}

#[test]
fn errors_in_a_run_say_which_value_of_its_index() {
    let text = "in x[3]\nfor i in range(3)\n  s[i] = x[i + 1]\nend\nout sum(s)\n";
    let e = parse_program(text).unwrap_err();
    assert_eq!(
        e.to_string(),
        "3:10: 'x[3]' is outside the table 'x' of 3 entries (indices from 0), where i = 2"
    );
    let text = "in x[3]\nfor i in range(3)\n  t = x[i]\nend\nout t\n";
    let e = parse_program(text).unwrap_err();
    assert_eq!(e.to_string(), "3:3: 't' is already bound (at 3:3), where i = 1");
}

#[test]
fn derivatives_written_as_programs_read_back() {
    // `dstar emit --target text`, `dstar::jacobian` and `dstar::hessian`
    // name derivatives after outputs and inputs: entries' brackets must not
    // reach those names.
    let text = banded_runs(3);
    let jacobian = dstar::jacobian(&text).expect("differentiates");
    let back = parse(&jacobian, "the Jacobian as a program");
    assert!(back.outputs.iter().any(|o| o.name == "d_c_1_d_x_0"), "{jacobian}");
    let text = "in x[2]\nfor i in range(2)\n  s[i] = x[i]^3\nend\nout f = sum(s)\n";
    let hessian = dstar::hessian(text).expect("differentiates");
    let back = parse(&hessian, "the Hessian as a program");
    assert!(back.outputs.iter().any(|o| o.name == "d2_f_d_x_1_d_x_1"), "{hessian}");
}
