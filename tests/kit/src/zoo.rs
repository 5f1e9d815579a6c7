//! The shape zoo: families of programs whose set-up must grow with their
//! size and no faster, each at any size `n` and in two forms, with
//! functions called at every repetition ([`Form::Functions`]) and with
//! every call written out ([`Form::Flat`]).
//!
//! Users write these every day, and each once made some symbolic stage
//! super-linear: single shooting (a state chain read by every control, its
//! Jacobian dense in the controls and its Hessian dense), multiple
//! shooting, long scalar chains, wide sums, balanced trees, many outputs of
//! one input, one input read by every output, calls in a chain, calls
//! sharing large arguments (a mixture model's means), nested calls, and a
//! dense block. The programs are deterministic (coefficients from the
//! index), finite at their point, and bounded along the chains.
//!
//! ```
//! use testkit::zoo::{Form, Zoo};
//! for zoo in Zoo::ALL {
//!     for form in [Form::Functions, Form::Flat] {
//!         let program = frontend::parse_program(&zoo.generate(4, form)).unwrap();
//!         assert_eq!(program.functions.is_empty(), form == Form::Flat, "{}", zoo.name());
//!         assert!(program.point.is_some());
//!     }
//! }
//! ```

use std::fmt::Write;

/// A family of the zoo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoo {
    /// Two states stepped `n` times, `controls` inputs per step: outputs
    /// the final state (a chain read by every control).
    SingleShooting {
        /// Controls per step.
        controls: usize,
    },
    /// The same step over `n` intervals, each interval's state an input:
    /// `2n` defects and a cost.
    MultipleShooting,
    /// Trapezoidal collocation over `n` intervals: the dynamics evaluated
    /// once per node and read by the intervals on both sides of it, `2n`
    /// defects and a cost.
    Collocation,
    /// One input through `n` links of a scalar chain.
    Chain,
    /// `Σ term(x_i, x_{i+1})` over `n` inputs, one output.
    WideSum,
    /// `n` inputs combined pairwise up a balanced tree into one output.
    Tree,
    /// `n` outputs of one input through a shared intermediate.
    ManyOutputs,
    /// `n` outputs, each reading its own input and one input all share.
    OneInputEverywhere,
    /// Two inputs through `n` calls in a chain, no controls.
    CallChain,
    /// A mixture's log-likelihood over `n` data points, each term reading
    /// all `K · d` means (shared arguments).
    SharedArguments,
    /// A chain of `n` calls of a function calling a function calling a
    /// function.
    NestedCalls,
    /// `n` outputs each reading all `n` inputs: a dense Jacobian.
    DenseBlock,
}

/// How the repetitions are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Functions called at every repetition.
    Functions,
    /// Every call written out: the same program inlined.
    Flat,
}

impl Form {
    /// `functions` or `flat`.
    pub fn name(self) -> &'static str {
        match self {
            Form::Functions => "functions",
            Form::Flat => "flat",
        }
    }
}

impl Zoo {
    /// Every family.
    pub const ALL: [Zoo; 13] = [
        Zoo::SingleShooting { controls: 1 },
        Zoo::SingleShooting { controls: 3 },
        Zoo::MultipleShooting,
        Zoo::Collocation,
        Zoo::Chain,
        Zoo::WideSum,
        Zoo::Tree,
        Zoo::ManyOutputs,
        Zoo::OneInputEverywhere,
        Zoo::CallChain,
        Zoo::SharedArguments,
        Zoo::NestedCalls,
        Zoo::DenseBlock,
    ];

    /// A short name (`shooting1`, `calls_shared`).
    pub fn name(self) -> &'static str {
        match self {
            Zoo::SingleShooting { controls: 1 } => "shooting1",
            Zoo::SingleShooting { .. } => "shooting3",
            Zoo::MultipleShooting => "multiple_shooting",
            Zoo::Collocation => "collocation",
            Zoo::Chain => "chain",
            Zoo::WideSum => "wide_sum",
            Zoo::Tree => "tree",
            Zoo::ManyOutputs => "many_outputs",
            Zoo::OneInputEverywhere => "one_input_everywhere",
            Zoo::CallChain => "call_chain",
            Zoo::SharedArguments => "calls_shared",
            Zoo::NestedCalls => "nested_calls",
            Zoo::DenseBlock => "dense_block",
        }
    }

    /// The family named `name`.
    pub fn named(name: &str) -> Option<Zoo> {
        Zoo::ALL.into_iter().find(|zoo| zoo.name() == name)
    }

    /// The instance of size `n` (at least 2) in `form`.
    pub fn generate(self, n: usize, form: Form) -> String {
        let n = n.max(2);
        let text = match self {
            Zoo::SingleShooting { controls } => single_shooting(n, controls),
            Zoo::MultipleShooting => multiple_shooting(n),
            Zoo::Collocation => collocation(n),
            Zoo::Chain => chain(n),
            Zoo::WideSum => wide_sum(n),
            Zoo::Tree => tree(n),
            Zoo::ManyOutputs => many_outputs(n),
            Zoo::OneInputEverywhere => one_input_everywhere(n),
            Zoo::CallChain => call_chain(n),
            Zoo::SharedArguments => shared_arguments(n),
            Zoo::NestedCalls => nested_calls(n),
            Zoo::DenseBlock => dense_block(n),
        };
        match form {
            Form::Functions => text,
            Form::Flat => flatten(&text),
        }
    }

    /// Whether the family's Jacobian is dense, so that its work is to be
    /// weighed against its nonzeros.
    pub fn is_dense(self) -> bool {
        matches!(self, Zoo::SingleShooting { .. } | Zoo::DenseBlock)
    }
}

/// The same program with every call written out (the printer keeps the
/// point).
fn flatten(text: &str) -> String {
    let program = frontend::parse_program(text).expect("the zoo writes valid programs");
    frontend::print_program(&program.inlined())
}

/// The point's coordinate `i`: in [-0.5, 0.5], different for each of the
/// first million (data points written as constants must not repeat, or
/// their terms hash-cons into one and the family stops growing).
fn coordinate(i: usize) -> f64 {
    ((i * 7919) % 1000) as f64 / 1000.0 - 0.5 + (i / 1000 % 1000) as f64 * 1e-7
}

/// A coefficient in [0.5, 1.5) from an index, different for each of the
/// first million (a family that hash-conses equal terms into one must
/// still grow with its size).
fn coefficient(i: usize) -> f64 {
    0.5 + ((i * 104_729) % 1000) as f64 / 1000.0 + (i / 1000 % 1000) as f64 * 1e-6
}

/// A program being written: its inputs, then statements.
#[derive(Default)]
struct Text {
    functions: String,
    inputs: Vec<String>,
    body: String,
}

impl Text {
    fn input(&mut self, name: String) -> String {
        self.inputs.push(name.clone());
        name
    }

    fn line(&mut self, line: String) {
        self.body.push_str(&line);
        self.body.push('\n');
    }

    /// `Σ terms` as partial sums of 64 terms, bound to names `{prefix}N`.
    fn sum(&mut self, prefix: &str, terms: Vec<String>) -> String {
        let mut terms = terms;
        let mut level = 0;
        while terms.len() > 1 {
            level += 1;
            let chunks: Vec<String> = terms.chunks(64).map(|c| c.join(" + ")).collect();
            terms = chunks
                .into_iter()
                .enumerate()
                .map(|(k, sum)| {
                    let name = format!("{prefix}{level}_{k}");
                    self.line(format!("{name} = {sum}"));
                    name
                })
                .collect();
        }
        terms.pop().unwrap_or_else(|| "0".to_string())
    }

    fn finish(self, title: &str) -> String {
        let point: Vec<String> = (0..self.inputs.len()).map(|i| format!("{:?}", coordinate(i))).collect();
        let mut text = format!("# {title}\n# @point {}\nin {}\n", point.join(" "), self.inputs.join(", "));
        text.push_str(&self.functions);
        text.push_str(&self.body);
        text
    }
}

/// `step(a, b, u1..uc) -> (a1, b1)`: a pendulum's explicit Euler step.
fn pendulum_step(t: &mut Text, controls: usize) {
    let us: Vec<String> = (1..=controls).map(|j| format!("u{j}")).collect();
    let args = if us.is_empty() { String::new() } else { format!(", {}", us.join(", ")) };
    let force = if us.is_empty() { "0".to_string() } else { us.join(" + ") };
    let _ = write!(
        t.functions,
        "function step(a, b{args}) -> (a1, b1)\n  a1 = a + 0.1*b\n  b1 = b + 0.1*({force} - sin(a))\nend\n"
    );
}

fn single_shooting(n: usize, controls: usize) -> String {
    let mut t = Text::default();
    pendulum_step(&mut t, controls);
    let (mut a, mut b) = (t.input("a0".into()), t.input("b0".into()));
    for k in 0..n {
        let us: Vec<String> = (0..controls).map(|j| t.input(format!("u{k}_{j}"))).collect();
        let (a1, b1) = (format!("a{}", k + 1), format!("b{}", k + 1));
        t.line(format!("{a1}, {b1} = step({a}, {b}, {})", us.join(", ")));
        (a, b) = (a1, b1);
    }
    t.line(format!("out fa = {a}"));
    t.line(format!("out fb = {b}"));
    t.finish(&format!("single shooting: 2 states, {controls} controls per step, {n} steps"))
}

fn multiple_shooting(n: usize) -> String {
    let mut t = Text::default();
    pendulum_step(&mut t, 1);
    let states: Vec<(String, String)> =
        (0..=n).map(|k| (t.input(format!("a{k}")), t.input(format!("b{k}")))).collect();
    let us: Vec<String> = (0..n).map(|k| t.input(format!("u{k}"))).collect();
    let cost = t.sum("cost", us.iter().map(|u| format!("{u}*{u}")).collect());
    t.line(format!("out cost = {cost}"));
    for k in 0..n {
        let ((a, b), (a1, b1)) = (&states[k], &states[k + 1]);
        t.line(format!("na{k}, nb{k} = step({a}, {b}, {})", us[k]));
        t.line(format!("out da{k} = na{k} - {a1}"));
        t.line(format!("out db{k} = nb{k} - {b1}"));
    }
    t.finish(&format!("multiple shooting over {n} intervals"))
}

fn collocation(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str(
        "function dynamics(a, b, u) -> (da, db)\n  da = b\n  db = u - sin(a) - 0.1*b*cos(a)\nend\n",
    );
    let states: Vec<(String, String)> =
        (0..=n).map(|k| (t.input(format!("a{k}")), t.input(format!("b{k}")))).collect();
    let us: Vec<String> = (0..=n).map(|k| t.input(format!("u{k}"))).collect();
    let cost = t.sum("cost", us.iter().map(|u| format!("{u}*{u}")).collect());
    t.line(format!("out cost = {cost}"));
    for (k, ((a, b), u)) in states.iter().zip(&us).enumerate() {
        t.line(format!("fa{k}, fb{k} = dynamics({a}, {b}, {u})"));
    }
    for k in 0..n {
        let ((a, b), (a1, b1)) = (&states[k], &states[k + 1]);
        let h = 0.5 / n as f64;
        t.line(format!("out da{k} = {a1} - {a} - {h}*(fa{k} + fa{})", k + 1));
        t.line(format!("out db{k} = {b1} - {b} - {h}*(fb{k} + fb{})", k + 1));
    }
    t.finish(&format!("trapezoidal collocation over {n} intervals"))
}

fn chain(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("link(x) = 0.9*sin(x) + 0.1*x*x\n");
    let mut x = t.input("x".into());
    for k in 1..=n {
        t.line(format!("t{k} = link({x})"));
        x = format!("t{k}");
    }
    t.line(format!("out y = {x}"));
    t.finish(&format!("a scalar chain of {n} links"))
}

fn wide_sum(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("term(a, b) = log(1 + a*a) + a*b*sin(a)\n");
    let x: Vec<String> = (0..n).map(|i| t.input(format!("x{i}"))).collect();
    let terms = (0..n).map(|i| format!("term({}, {})", x[i], x[(i + 1) % n])).collect();
    let sum = t.sum("s", terms);
    t.line(format!("out f = {sum}"));
    t.finish(&format!("a sum of {n} terms"))
}

fn tree(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("join(a, b) = 0.5*sin(a + b) + 0.25*a*b\n");
    let mut level: Vec<String> = (0..n).map(|i| t.input(format!("x{i}"))).collect();
    let mut depth = 0;
    while level.len() > 1 {
        depth += 1;
        level = level
            .chunks(2)
            .enumerate()
            .map(|(k, pair)| match pair {
                [a, b] => {
                    let name = format!("j{depth}_{k}");
                    t.line(format!("{name} = join({a}, {b})"));
                    name
                }
                [a] => a.clone(),
                _ => unreachable!("chunks of two"),
            })
            .collect();
    }
    t.line(format!("out f = {}", level[0]));
    t.finish(&format!("a balanced tree over {n} inputs"))
}

fn many_outputs(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("leaf(s, c) = sin(c*s) + c*s*s\n");
    let x = t.input("x".into());
    t.line(format!("s = exp(0.1*{x})"));
    for i in 0..n {
        t.line(format!("out y{i} = leaf(s, {:?})", coefficient(i)));
    }
    t.finish(&format!("{n} outputs of one input"))
}

fn one_input_everywhere(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("mix(z, x) = x*z + sin(z*x)\n");
    let z = t.input("z".into());
    let x: Vec<String> = (0..n).map(|i| t.input(format!("x{i}"))).collect();
    for (i, xi) in x.iter().enumerate() {
        t.line(format!("out y{i} = mix({z}, {xi})"));
    }
    t.finish(&format!("{n} outputs all reading one input"))
}

fn call_chain(n: usize) -> String {
    let mut t = Text::default();
    pendulum_step(&mut t, 0);
    let (mut a, mut b) = (t.input("a0".into()), t.input("b0".into()));
    for k in 1..=n {
        t.line(format!("a{k}, b{k} = step({a}, {b})"));
        (a, b) = (format!("a{k}"), format!("b{k}"));
    }
    t.line(format!("out fa = {a}"));
    t.line(format!("out fb = {b}"));
    t.finish(&format!("{n} calls in a chain"))
}

/// Components and dimensions of [`Zoo::SharedArguments`].
const MIXTURE: (usize, usize) = (3, 4);

fn shared_arguments(n: usize) -> String {
    let (k, d) = MIXTURE;
    let mut t = Text::default();
    let means: Vec<Vec<String>> =
        (0..k).map(|c| (0..d).map(|j| t.input(format!("m{c}_{j}"))).collect()).collect();
    let data: Vec<String> = (0..d).map(|j| format!("y{j}")).collect();
    let mut all: Vec<String> = data.clone();
    all.extend(means.iter().flatten().cloned());
    let exponents: Vec<String> = means
        .iter()
        .map(|m| {
            let squares: Vec<String> =
                m.iter().zip(&data).map(|(mj, yj)| format!("({yj} - {mj})^2")).collect();
            format!("exp(-0.5*({}))", squares.join(" + "))
        })
        .collect();
    let _ = writeln!(t.functions, "term({}) = log({})", all.join(", "), exponents.join(" + "));
    let terms = (0..n)
        .map(|i| {
            let point: Vec<String> = (0..d).map(|j| format!("{:?}", coordinate(i * d + j + 1))).collect();
            let flat_means: Vec<&String> = means.iter().flatten().collect();
            let means: Vec<String> = flat_means.iter().map(|m| m.to_string()).collect();
            format!("term({}, {})", point.join(", "), means.join(", "))
        })
        .collect();
    let sum = t.sum("l", terms);
    t.line(format!("out loglik = {sum}"));
    t.finish(&format!("a {k}-component mixture in {d} dimensions over {n} points"))
}

fn nested_calls(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("inner(x) = sin(x)\n");
    t.functions.push_str("middle(x, y) = 0.5*inner(x) + 0.4*cos(y)*inner(y)\n");
    t.functions.push_str("function outer(a, b) -> (c, d)\n  c = middle(a, b)\n  d = middle(b, a)\nend\n");
    let (mut a, mut b) = (t.input("a0".into()), t.input("b0".into()));
    for k in 1..=n {
        t.line(format!("a{k}, b{k} = outer({a}, {b})"));
        (a, b) = (format!("a{k}"), format!("b{k}"));
    }
    t.line(format!("out fa = {a}"));
    t.line(format!("out fb = {b}"));
    t.finish(&format!("{n} calls of a function nesting two more"))
}

fn dense_block(n: usize) -> String {
    let mut t = Text::default();
    t.functions.push_str("wave(x, c) = sin(c*x)\n");
    let x: Vec<String> = (0..n).map(|i| t.input(format!("x{i}"))).collect();
    for (j, xj) in x.iter().enumerate() {
        t.line(format!("s{j} = wave({xj}, {:?})", coefficient(j)));
    }
    for i in 0..n {
        let terms = (0..n).map(|j| format!("{:?}*s{j}", coefficient(i * n + j))).collect();
        let sum = t.sum(&format!("r{i}_"), terms);
        t.line(format!("out y{i} = {sum} + {}*{}", x[i], x[(i + 1) % n]));
    }
    t.finish(&format!("a dense {n} x {n} block"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_compute_the_same_values() {
        for zoo in Zoo::ALL {
            for n in [2, 5, 17] {
                let functions = frontend::parse_program(&zoo.generate(n, Form::Functions)).unwrap();
                let flat = frontend::parse_program(&zoo.generate(n, Form::Flat)).unwrap();
                assert!(flat.functions.is_empty() && !functions.functions.is_empty(), "{}", zoo.name());
                let point = functions.point.clone().unwrap();
                assert_eq!(flat.point.as_ref(), Some(&point), "{}", zoo.name());
                let (a, b) =
                    (frontend::eval_program(&functions, &point), frontend::eval_program(&flat, &point));
                assert_eq!(a, b, "{} at {n}", zoo.name());
                assert!(a.iter().all(|v| v.is_finite()), "{} at {n}: {a:?}", zoo.name());
            }
        }
    }

    #[test]
    fn sizes_grow_as_announced() {
        let outputs =
            |zoo: Zoo, n| frontend::parse_program(&zoo.generate(n, Form::Functions)).unwrap().outputs.len();
        let inputs =
            |zoo: Zoo, n| frontend::parse_program(&zoo.generate(n, Form::Functions)).unwrap().inputs.len();
        assert_eq!(inputs(Zoo::SingleShooting { controls: 3 }, 10), 32);
        assert_eq!(outputs(Zoo::MultipleShooting, 10), 21);
        assert_eq!((inputs(Zoo::Chain, 10), outputs(Zoo::Chain, 10)), (1, 1));
        assert_eq!(inputs(Zoo::WideSum, 10), 10);
        assert_eq!(inputs(Zoo::Tree, 11), 11);
        assert_eq!(outputs(Zoo::ManyOutputs, 10), 10);
        assert_eq!(inputs(Zoo::OneInputEverywhere, 10), 11);
        assert_eq!(inputs(Zoo::SharedArguments, 10), MIXTURE.0 * MIXTURE.1);
        assert_eq!(outputs(Zoo::DenseBlock, 10), 10);
    }
}
