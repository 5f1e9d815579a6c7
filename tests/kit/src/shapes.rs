//! Programs of the shapes real problems have, at any size, as problem-format
//! text: the banded constraints of COPS-style NLPs over one shared
//! intermediate, optimal control by multiple and single shooting (RK4 over
//! a cart-pole and a vehicle), PDE grids (a 5-point stencil's residuals, a
//! minimal surface's sum of cell areas), least-squares fits (many residuals
//! over four inputs, or their sum of squares), parameter estimation by
//! collocation against data, long sums split into partial sums over many
//! inputs, and the NLP families of `tests/nlp` (hanging chain, electrons on
//! a sphere, chained Rosenbrock) at any size.
//!
//! Random programs never look like these: many outputs reading one
//! intermediate, thousands of like rows side by side, chains thousands of
//! operations deep, sums of thousands of terms. Each generator draws its
//! coefficients, data and point from the [`Rng`], so every seed is another
//! instance of the family; `size` is the family's natural count (grid
//! side, intervals, data points...), and [`Family::size_for`] picks the one
//! that gives about a number of operations.
//!
//! ```
//! let mut rng = testkit::Rng::new(1);
//! let source = testkit::shapes::Family::Banded.generate(50, &mut rng);
//! let program = frontend::parse_program(&source).unwrap();
//! assert_eq!((program.inputs.len(), program.outputs.len()), (50, 48));
//! ```

use crate::Rng;
use std::fmt::Write;

/// A family of programs of one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `g_i = -r[i-1] r[i] - r[i] r[i+1] + 2 r[i-1] r[i+1] ct` (COPS), or a
    /// transcendental variant, over one shared `ct = cos(c)`: `size` inputs,
    /// `size - 2` outputs.
    Banded,
    /// Cart-pole or vehicle multiple shooting over `size` RK4 intervals.
    MultipleShooting,
    /// The vehicle by single shooting: the controls of `size` RK4 steps in,
    /// a cost and the final state out (chains `size` steps deep).
    SingleShooting,
    /// The Bratu problem's 5-point residuals on a `size` × `size` grid.
    Stencil,
    /// A minimal surface's area over a `size` × `size` grid: one output.
    Surface,
    /// `a exp(-b t) + c sin(w t) - y` at `size` data points: four inputs.
    FitResiduals,
    /// The sum of squares of the same residuals, in partial sums: one output.
    FitObjective,
    /// Lotka–Volterra parameter estimation: trapezoidal collocation over
    /// `size` intervals, and data residuals.
    Collocation,
    /// `Σ log(1 + x_i²) + x_i x_{i+1} sin(x_i)` over `size` inputs, in
    /// partial sums, and a second output of a few terms.
    PartialSums,
    /// COPS hanging chain of `size` links: objective and `size` constraints.
    HangingChain,
    /// COPS electrons on a sphere: `size` points, `size²/2` pair terms.
    Elec,
    /// Chained Rosenbrock over `2 size` inputs with `size` constraints.
    RosenbrockChain,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 12] = [
        Family::Banded,
        Family::MultipleShooting,
        Family::SingleShooting,
        Family::Stencil,
        Family::Surface,
        Family::FitResiduals,
        Family::FitObjective,
        Family::Collocation,
        Family::PartialSums,
        Family::HangingChain,
        Family::Elec,
        Family::RosenbrockChain,
    ];

    /// Its name, a word (`"banded"`).
    pub fn name(self) -> &'static str {
        self.table().0
    }

    /// The program of size `size` (at least 1; small sizes are raised to
    /// the family's least), as text with a `# @point`, its coefficients,
    /// data and point drawn from `rng`.
    pub fn generate(self, size: usize, rng: &mut Rng) -> String {
        (self.table().1)(size, rng)
    }

    /// The size whose program has about `ops` operations.
    pub fn size_for(self, ops: usize) -> usize {
        let (_, _, ops_per_unit, squared) = self.table();
        let units = ops as f64 / ops_per_unit;
        let size = if squared { units.sqrt() } else { units };
        (size.round() as usize).max(1)
    }

    /// The family called `name`.
    pub fn named(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Name, generator, operations per unit of size, and whether the count
    /// grows with the square of the size (grids, pairs).
    fn table(self) -> (&'static str, Generator, f64, bool) {
        match self {
            Family::Banded => ("banded", banded, 8.0, false),
            Family::MultipleShooting => ("multiple_shooting", multiple_shooting, 69.0, false),
            Family::SingleShooting => ("single_shooting", single_shooting, 64.0, false),
            Family::Stencil => ("stencil", stencil, 9.0, true),
            Family::Surface => ("surface", surface, 8.7, true),
            Family::FitResiduals => ("fit_residuals", fit_residuals, 8.0, false),
            Family::FitObjective => ("fit_objective", fit_objective, 10.0, false),
            Family::Collocation => ("collocation", collocation, 16.0, false),
            Family::PartialSums => ("partial_sums", partial_sums, 8.0, false),
            Family::HangingChain => ("hanging_chain", hanging_chain, 10.0, false),
            Family::Elec => ("elec", elec, 5.5, true),
            Family::RosenbrockChain => ("rosenbrock_chain", rosenbrock_chain, 18.0, false),
        }
    }
}

/// A family's generator: the program of a size, drawn from an [`Rng`].
type Generator = fn(usize, &mut Rng) -> String;

/// A number as the source reads it back exactly.
fn num(v: f64) -> String {
    format!("{v:?}")
}

/// A program being written: inputs with their point, statements, outputs.
#[derive(Default)]
struct Text {
    inputs: Vec<String>,
    point: Vec<f64>,
    body: String,
    lets: usize,
}

impl Text {
    fn input(&mut self, name: String, value: f64) -> String {
        self.inputs.push(name.clone());
        self.point.push(value);
        name
    }

    /// A fresh intermediate `tN = expr`.
    fn let_(&mut self, expr: &str) -> String {
        self.lets += 1;
        let name = format!("t{}", self.lets);
        let _ = writeln!(self.body, "{name} = {expr}");
        name
    }

    fn out(&mut self, name: &str, expr: &str) {
        let _ = writeln!(self.body, "out {name} = {expr}");
    }

    /// `Σ terms` as partial sums of `run` terms each, then their sum.
    fn sum(&mut self, terms: &[String], run: usize) -> String {
        if terms.is_empty() {
            return "0".to_string();
        }
        let partial: Vec<String> = terms.chunks(run.max(1)).map(|c| self.let_(&c.join(" + "))).collect();
        if partial.len() == 1 {
            return partial[0].clone();
        }
        self.sum(&partial, run)
    }

    fn finish(self, title: &str) -> String {
        let point: Vec<String> = self.point.iter().map(|&v| num(v)).collect();
        format!("# {title}\n# @point {}\nin {}\n{}", point.join(" "), self.inputs.join(", "), self.body)
    }
}

fn banded(n: usize, rng: &mut Rng) -> String {
    let n = n.max(3);
    let mut t = Text::default();
    let r: Vec<String> = (0..n).map(|i| t.input(format!("r{i}"), rng.uniform(0.5, 1.5))).collect();
    let ct = t.let_(&format!("cos({})", num(rng.uniform(0.0, 0.1))));
    let transcendental = rng.chance(0.5);
    for i in 1..n - 1 {
        let (a, b, c) = (&r[i - 1], &r[i], &r[i + 1]);
        let expr = if transcendental {
            format!("{a}^2*{ct} - exp({b}/4)*{c} + sin({a}*{c})*{ct}")
        } else {
            format!("-{a}*{b} - {b}*{c} + 2*{a}*{c}*{ct}")
        };
        t.out(&format!("g{i}"), &expr);
    }
    t.finish(&format!("banded constraints over a shared intermediate, {n} inputs"))
}

/// The right-hand side of the model, `f(state, control)`, as expressions.
type Dynamics = fn(&mut Text, &[String], &[String]) -> Vec<String>;

/// Cart-pole: state (p, θ, v, ω), control u.
fn cartpole(t: &mut Text, x: &[String], u: &[String]) -> Vec<String> {
    let (th, v, w, u) = (&x[1], &x[2], &x[3], &u[0]);
    let s = t.let_(&format!("sin({th})"));
    let c = t.let_(&format!("cos({th})"));
    let den = t.let_(&format!("1 + 0.1*{s}^2"));
    let a = t.let_(&format!("({u} + 0.1*{s}*(0.5*{w}^2 + 9.81*{c}))/{den}"));
    let alpha = t.let_(&format!("-({u}*{c} + 0.05*{w}^2*{c}*{s} + 1.1*9.81*{s})/(0.5*{den})"));
    vec![v.clone(), w.clone(), a, alpha]
}

/// A kinematic vehicle: state (x, y, ψ, v), controls (a, δ).
fn vehicle(t: &mut Text, x: &[String], u: &[String]) -> Vec<String> {
    let (psi, v) = (&x[2], &x[3]);
    let vx = t.let_(&format!("{v}*cos({psi})"));
    let vy = t.let_(&format!("{v}*sin({psi})"));
    let turn = t.let_(&format!("{v}*tan({})/2.5", u[1]));
    vec![vx, vy, turn, u[0].clone()]
}

/// One RK4 step of `f` from `x` under `u` over `h`.
fn rk4(t: &mut Text, f: Dynamics, x: &[String], u: &[String], h: f64) -> Vec<String> {
    let stage = |t: &mut Text, k: &[String], scale: f64| -> Vec<String> {
        x.iter().zip(k).map(|(xi, ki)| t.let_(&format!("{xi} + {}*{ki}", num(scale)))).collect()
    };
    let k1 = f(t, x, u);
    let x2 = stage(t, &k1, h / 2.0);
    let k2 = f(t, &x2, u);
    let x3 = stage(t, &k2, h / 2.0);
    let k3 = f(t, &x3, u);
    let x4 = stage(t, &k3, h);
    let k4 = f(t, &x4, u);
    (0..x.len())
        .map(|i| {
            let expr =
                format!("{} + {}*({} + 2*{} + 2*{} + {})", x[i], num(h / 6.0), k1[i], k2[i], k3[i], k4[i]);
            t.let_(&expr)
        })
        .collect()
}

/// The model of a shooting instance: dynamics, state and control sizes, start.
fn model(rng: &mut Rng) -> (Dynamics, usize, Vec<f64>, &'static str) {
    if rng.chance(0.5) {
        (cartpole, 1, vec![0.0, rng.uniform(2.5, 3.5), 0.0, 0.0], "cart-pole")
    } else {
        (vehicle, 2, vec![0.0, 0.0, rng.uniform(-0.5, 0.5), rng.uniform(1.0, 2.0)], "vehicle")
    }
}

fn multiple_shooting(n: usize, rng: &mut Rng) -> String {
    let n = n.max(1);
    let (f, controls, start, name) = model(rng);
    let h = 2.0 / n as f64;
    let mut t = Text::default();
    let mut states = Vec::new();
    let mut inputs = Vec::new();
    for k in 0..=n {
        let s: Vec<String> =
            (0..4).map(|i| t.input(format!("x{k}_{i}"), start[i] + rng.uniform(-0.1, 0.1))).collect();
        states.push(s);
        if k < n {
            inputs.push(
                (0..controls)
                    .map(|j| t.input(format!("u{k}_{j}"), rng.uniform(-0.3, 0.3)))
                    .collect::<Vec<_>>(),
            );
        }
    }
    let mut terms: Vec<String> = inputs.iter().flatten().map(|u| format!("{}*{u}^2", num(h))).collect();
    terms.extend(states[n].iter().map(|x| format!("{x}^2")));
    let cost = t.sum(&terms, 64);
    t.out("cost", &cost);
    for (i, x) in states[0].iter().enumerate() {
        t.out(&format!("start{i}"), &format!("{x} - {}", num(start[i])));
    }
    for k in 0..n {
        let next = rk4(&mut t, f, &states[k], &inputs[k], h);
        for i in 0..4 {
            t.out(&format!("defect{k}_{i}"), &format!("{} - {}", states[k + 1][i], next[i]));
        }
    }
    t.finish(&format!("{name} by multiple shooting over {n} RK4 intervals"))
}

fn single_shooting(n: usize, rng: &mut Rng) -> String {
    let n = n.max(1);
    let h = 1.0 / n as f64;
    let mut t = Text::default();
    let u: Vec<Vec<String>> = (0..n)
        .map(|k| (0..2).map(|j| t.input(format!("u{k}_{j}"), rng.uniform(-0.2, 0.2))).collect())
        .collect();
    let mut x: Vec<String> =
        [0.0, 0.0, rng.uniform(-0.5, 0.5), rng.uniform(1.0, 2.0)].iter().map(|&v| num(v)).collect();
    let mut terms = Vec::new();
    for k in 0..n {
        x = rk4(&mut t, vehicle, &x, &u[k], h);
        terms.push(format!("{}*({}^2 + {}^2)", num(h), u[k][0], u[k][1]));
    }
    terms.push(format!("({} - 1)^2 + ({} - 0.5)^2", x[0], x[1]));
    let cost = t.sum(&terms, 64);
    t.out("cost", &cost);
    for (i, xi) in x.iter().enumerate() {
        t.out(&format!("final{i}"), xi);
    }
    t.finish(&format!("vehicle by single shooting over {n} RK4 steps"))
}

fn stencil(n: usize, rng: &mut Rng) -> String {
    let n = n.max(2);
    let h2 = 1.0 / ((n + 1) * (n + 1)) as f64;
    let lambda = rng.uniform(1.0, 6.0);
    let mut t = Text::default();
    let u: Vec<Vec<String>> = (0..n)
        .map(|i| (0..n).map(|j| t.input(format!("u{i}_{j}"), rng.uniform(0.0, 1.0))).collect())
        .collect();
    let at = |i: isize, j: isize| -> String {
        if i < 0 || j < 0 || i >= n as isize || j >= n as isize {
            "0".to_string()
        } else {
            u[i as usize][j as usize].clone()
        }
    };
    for i in 0..n as isize {
        for j in 0..n as isize {
            let expr = format!(
                "(4*{} - {} - {} - {} - {})/{} - {}*exp({})",
                at(i, j),
                at(i - 1, j),
                at(i + 1, j),
                at(i, j - 1),
                at(i, j + 1),
                num(h2),
                num(lambda),
                at(i, j)
            );
            t.out(&format!("r{i}_{j}"), &expr);
        }
    }
    t.finish(&format!("Bratu residuals on a {n} x {n} grid"))
}

fn surface(n: usize, rng: &mut Rng) -> String {
    let n = n.max(2);
    let h2 = 1.0 / ((n - 1).max(1) * (n - 1).max(1)) as f64;
    let mut t = Text::default();
    let v: Vec<Vec<String>> = (0..n)
        .map(|i| (0..n).map(|j| t.input(format!("v{i}_{j}"), rng.uniform(-0.3, 0.3))).collect())
        .collect();
    let mut cells = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            let (a, b, c) = (&v[i][j], &v[i + 1][j], &v[i][j + 1]);
            cells.push(format!("sqrt(1 + (({b} - {a})^2 + ({c} - {a})^2)/{})", num(h2)));
        }
    }
    let total = t.sum(&cells, 50);
    t.out("area", &format!("{}*({total})", num(h2 / 2.0)));
    t.finish(&format!("minimal surface over a {n} x {n} grid"))
}

/// The data of a fit: times and noisy values of `a exp(-b t) + c sin(w t)`.
fn fit_data(n: usize, rng: &mut Rng) -> (Vec<f64>, Vec<f64>, [f64; 4]) {
    let truth = [rng.uniform(1.0, 3.0), rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0), rng.uniform(1.0, 4.0)];
    let ts: Vec<f64> = (0..n).map(|k| 10.0 * k as f64 / n as f64).collect();
    let ys = ts
        .iter()
        .map(|&s| {
            truth[0] * (-truth[1] * s).exp() + truth[2] * (truth[3] * s).sin() + rng.uniform(-0.01, 0.01)
        })
        .collect();
    (ts, ys, truth)
}

/// The fit's four inputs, near the truth.
fn fit_inputs(t: &mut Text, truth: [f64; 4], rng: &mut Rng) -> [String; 4] {
    let names = ["a", "b", "c", "w"];
    std::array::from_fn(|i| t.input(names[i].to_string(), truth[i] * rng.uniform(0.9, 1.1)))
}

fn fit_residuals(n: usize, rng: &mut Rng) -> String {
    let n = n.max(1);
    let (ts, ys, truth) = fit_data(n, rng);
    let mut t = Text::default();
    let [a, b, c, w] = fit_inputs(&mut t, truth, rng);
    for (k, (s, y)) in ts.iter().zip(&ys).enumerate() {
        let expr = format!("{a}*exp(-{b}*{}) + {c}*sin({w}*{}) - {}", num(*s), num(*s), num(*y));
        t.out(&format!("r{k}"), &expr);
    }
    t.finish(&format!("least-squares residuals at {n} data points"))
}

fn fit_objective(n: usize, rng: &mut Rng) -> String {
    let n = n.max(1);
    let (ts, ys, truth) = fit_data(n, rng);
    let mut t = Text::default();
    let [a, b, c, w] = fit_inputs(&mut t, truth, rng);
    let terms: Vec<String> = ts
        .iter()
        .zip(&ys)
        .map(|(s, y)| format!("({a}*exp(-{b}*{}) + {c}*sin({w}*{}) - {})^2", num(*s), num(*s), num(*y)))
        .collect();
    let total = t.sum(&terms, 100);
    t.out("objective", &format!("0.5*({total})"));
    t.finish(&format!("least-squares objective over {n} data points"))
}

fn collocation(n: usize, rng: &mut Rng) -> String {
    let n = n.max(1);
    let h = 5.0 / n as f64;
    let mut t = Text::default();
    let p: Vec<String> = ["alpha", "beta", "gamma", "delta"]
        .iter()
        .map(|name| t.input(name.to_string(), rng.uniform(0.4, 1.2)))
        .collect();
    let xs: Vec<[String; 2]> = (0..=n)
        .map(|k| {
            [t.input(format!("x{k}"), rng.uniform(0.5, 1.5)), t.input(format!("y{k}"), rng.uniform(0.5, 1.5))]
        })
        .collect();
    let rhs = |t: &mut Text, s: &[String; 2]| -> [String; 2] {
        let xy = t.let_(&format!("{}*{}", s[0], s[1]));
        [
            t.let_(&format!("{}*{} - {}*{xy}", p[0], s[0], p[1])),
            t.let_(&format!("{}*{xy} - {}*{}", p[3], p[2], s[1])),
        ]
    };
    let mut f = rhs(&mut t, &xs[0]);
    for k in 0..n {
        let g = rhs(&mut t, &xs[k + 1]);
        for i in 0..2 {
            let expr = format!("{} - {} - {}*({} + {})", xs[k + 1][i], xs[k][i], num(h / 2.0), f[i], g[i]);
            t.out(&format!("c{k}_{i}"), &expr);
        }
        f = g;
    }
    for (k, x) in xs.iter().enumerate().step_by(2) {
        for (i, v) in x.iter().enumerate() {
            t.out(&format!("d{k}_{i}"), &format!("{v} - {}", num(rng.uniform(0.5, 1.5))));
        }
    }
    t.finish(&format!("Lotka-Volterra estimation by collocation over {n} intervals"))
}

fn partial_sums(n: usize, rng: &mut Rng) -> String {
    let n = n.max(2);
    let mut t = Text::default();
    let x: Vec<String> = (0..n).map(|i| t.input(format!("x{i}"), rng.uniform(-1.0, 1.0))).collect();
    let terms: Vec<String> =
        (0..n).map(|i| format!("log(1 + {}^2) + {}*{}*sin({})", x[i], x[i], x[(i + 1) % n], x[i])).collect();
    let run = 20 + rng.below(200);
    let total = t.sum(&terms, run);
    t.out("f", &total);
    t.out("g", &format!("{}*{} + cos({})", x[0], x[n - 1], x[n / 2]));
    t.finish(&format!("a sum over {n} inputs in partial sums of {run}"))
}

fn hanging_chain(n: usize, rng: &mut Rng) -> String {
    let n = n.max(2);
    let length = 1.5 / n as f64;
    let mut t = Text::default();
    let x: Vec<String> = (0..=n).map(|i| t.input(format!("x{i}"), i as f64 / n as f64)).collect();
    let y: Vec<String> = (0..=n)
        .map(|i| {
            let s = i as f64 / n as f64;
            t.input(format!("y{i}"), -0.3 * (std::f64::consts::PI * s).sin() + rng.uniform(-0.01, 0.01))
        })
        .collect();
    let terms: Vec<String> = (0..n)
        .map(|i| {
            let (x0, x1, y0, y1) = (&x[i], &x[i + 1], &y[i], &y[i + 1]);
            format!("({y0} + {y1})*sqrt(({x1} - {x0})^2 + ({y1} - {y0})^2)")
        })
        .collect();
    let f = t.sum(&terms, 100);
    t.out("f", &f);
    for i in 0..n {
        let expr =
            format!("({} - {})^2 + ({} - {})^2 - {}", x[i + 1], x[i], y[i + 1], y[i], num(length * length));
        t.out(&format!("g{i}"), &expr);
    }
    t.finish(&format!("hanging chain of {n} links"))
}

fn elec(n: usize, rng: &mut Rng) -> String {
    let n = n.max(2);
    let mut t = Text::default();
    let mut p = Vec::new();
    for i in 0..n {
        // Spread on the sphere (a golden spiral), jittered.
        let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
        let r = (1.0 - z * z).sqrt();
        let phi = i as f64 * 2.399_963 + rng.uniform(-0.05, 0.05);
        let c = [r * phi.cos(), r * phi.sin(), z];
        let axes = ["x", "y", "z"];
        p.push(std::array::from_fn::<String, 3, _>(|a| t.input(format!("p{i}_{}", axes[a]), c[a])));
    }
    let mut terms = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let d = t.let_(&format!(
                "({} - {})^2 + ({} - {})^2 + ({} - {})^2",
                p[i][0], p[j][0], p[i][1], p[j][1], p[i][2], p[j][2]
            ));
            terms.push(format!("1/sqrt({d})"));
        }
    }
    let f = t.sum(&terms, 100);
    t.out("f", &f);
    for (i, q) in p.iter().enumerate() {
        t.out(&format!("g{i}"), &format!("{}^2 + {}^2 + {}^2 - 1", q[0], q[1], q[2]));
    }
    t.finish(&format!("{n} electrons on a sphere (COPS elec)"))
}

fn rosenbrock_chain(n: usize, rng: &mut Rng) -> String {
    let n = n.max(1);
    let mut t = Text::default();
    let x: Vec<String> = (0..2 * n)
        .map(|i| t.input(format!("x{i}"), if i % 2 == 0 { -1.2 } else { 1.0 } + rng.uniform(-0.1, 0.1)))
        .collect();
    let terms: Vec<String> =
        (0..2 * n - 1).map(|i| format!("100*({} - {}^2)^2 + (1 - {})^2", x[i + 1], x[i], x[i])).collect();
    let f = t.sum(&terms, 100);
    t.out("f", &f);
    for j in 0..n {
        t.out(&format!("g{j}"), &format!("{}^2 + {}^2 - 2", x[2 * j], x[2 * j + 1]));
    }
    t.finish(&format!("chained Rosenbrock over {} variables", 2 * n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_parses_at_its_sizes_and_grows_as_announced() {
        let mut rng = Rng::new(3);
        for family in Family::ALL {
            for target in [1_000, 8_000] {
                let size = family.size_for(target);
                let source = family.generate(size, &mut rng);
                let program = frontend::parse_program(&source)
                    .unwrap_or_else(|e| panic!("{} {size}: {}", family.name(), e.render(&source)));
                let point = program.point.clone().expect("a point");
                assert_eq!(point.len(), program.inputs.len(), "{}", family.name());
                let ops = program.count_ops();
                assert!(
                    (target * 2 / 3..target * 3 / 2).contains(&ops),
                    "{} of size {size}: {ops} ops for a target of {target}",
                    family.name()
                );
                let values = frontend::eval_program(&program, &point);
                assert!(
                    values.iter().all(|v| v.is_finite()),
                    "{} {size}: values at its point",
                    family.name()
                );
            }
        }
    }

    #[test]
    fn instances_differ_by_seed_and_repeat_by_seed() {
        for family in Family::ALL {
            let size = family.size_for(500);
            let one = family.generate(size, &mut Rng::new(1));
            assert_eq!(one, family.generate(size, &mut Rng::new(1)), "{}", family.name());
            assert_ne!(one, family.generate(size, &mut Rng::new(2)), "{}", family.name());
        }
    }
}
