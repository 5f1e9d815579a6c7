//! Random programs with functions (issue 28), written twice: structured
//! (function blocks, one-result short forms, calls as statements and inside
//! expressions) and flat (every call written out by textual substitution,
//! here, independently of dstar's own inlining). Both forms have the same
//! values bit for bit: the flat text applies the body's operations to the
//! argument expressions, which the parser folds and rewrites only exactly.
//!
//! Functions nest 1 to 4 levels deep (a body calls functions defined above
//! it), have 1 to 3 results (some unused by a caller), take arguments that
//! may repeat (`f(t, t)`), constants and expressions, and the main program
//! may declare parameters.
//!
//! ```
//! let mut rng = testkit::Rng::new(3);
//! let program = testkit::functions::generate(&mut rng, 30);
//! let structured = frontend::parse_program(&program.structured).unwrap();
//! let flat = frontend::parse_program(&program.flat).unwrap();
//! assert!(!structured.functions.is_empty() && flat.functions.is_empty());
//! let x = structured.point.clone().unwrap();
//! let p = structured.param_values.clone().unwrap_or_default();
//! let xp: Vec<f64> = x.iter().chain(&p).copied().collect();
//! let a = frontend::eval_program(&structured, &xp);
//! let b = frontend::eval_program(&flat, &xp);
//! assert!(a.iter().zip(&b).all(|(a, b)| a.to_bits() == b.to_bits()));
//! ```

use crate::rng::Rng;
use std::fmt::Write;

/// A generated program in both forms.
#[derive(Clone, Debug)]
pub struct Generated {
    /// With its functions and calls.
    pub structured: String,
    /// Every call written out.
    pub flat: String,
}

/// An expression of the generator, printed with full parentheses.
#[derive(Clone, Debug)]
enum Expr {
    Name(String),
    Number(f64),
    Unary(&'static str, Box<Expr>),
    Binary(char, Box<Expr>, Box<Expr>),
    /// `ifelse(a < b, x, y)`.
    Select(Box<[Expr; 4]>),
    /// A call of a one-result function inside an expression.
    Call(usize, Vec<Expr>),
}

/// A line of a body: `name = expr`, or `a, b = f(args)`.
#[derive(Clone, Debug)]
enum Line {
    Assign(String, Expr),
    Call(Vec<String>, usize, Vec<Expr>),
}

#[derive(Clone, Debug)]
struct Function {
    name: String,
    args: Vec<String>,
    results: Vec<String>,
    lines: Vec<Line>,
    /// Its nesting level: 1 plus the deepest level it calls.
    level: usize,
}

/// Functions that keep values finite on any argument: `exp` and `log`
/// behind guards, divisions by `1 + y²`.
const UNARY: [&str; 8] = ["sin", "cos", "tanh", "atan", "exp_tanh", "log_sq", "sqrt_sq", "asinh"];

/// A random program of about `ops` operations in the main program and the
/// bodies together, with its point (and parameter values) as comments.
pub fn generate(rng: &mut Rng, ops: usize) -> Generated {
    let mut functions: Vec<Function> = vec![];
    let count = 1 + rng.below(5);
    for f in 0..count {
        let args: Vec<String> = (0..1 + rng.below(4)).map(|k| format!("a{k}")).collect();
        let results: Vec<String> = (0..1 + rng.below(3)).map(|k| format!("r{k}")).collect();
        let name = format!("f{f}");
        let budget = 3 + rng.below(ops / (count + 1) + 3);
        let (lines, level) = body(rng, &functions, &args, &results, budget, "b");
        functions.push(Function { name, args, results, lines, level });
    }
    // The main program: inputs, parameters among them, outputs.
    let n = 2 + rng.below(5);
    let q = rng.below(3);
    let inputs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let params: Vec<String> = (0..q).map(|k| format!("p{k}")).collect();
    let m = 1 + rng.below(4);
    let outputs: Vec<String> = (0..m).map(|k| format!("y{k}")).collect();
    let leaves: Vec<String> = inputs.iter().chain(&params).cloned().collect();
    let (lines, _) = body(rng, &functions, &leaves, &outputs, ops / 2 + 3, "t");
    let point: Vec<String> = (0..n).map(|_| format!("{:?}", rng.uniform(-1.5, 1.5))).collect();
    let values: Vec<String> = (0..q).map(|_| format!("{:?}", rng.uniform(-1.5, 1.5))).collect();

    let mut head = format!("# @point {}\n", point.join(" "));
    if q > 0 {
        let _ = writeln!(head, "# @params {}\nparam {}", values.join(" "), params.join(", "));
    }
    let _ = writeln!(head, "in {}", inputs.join(", "));

    let mut structured = head.clone();
    for f in &functions {
        structured += &print_function(f, &functions);
    }
    for line in &lines {
        structured += &print_line(line, &functions, &|name| name.to_string());
    }
    for (k, y) in outputs.iter().enumerate() {
        let _ = writeln!(structured, "out o{k} = {y}");
    }

    let mut flat = head;
    let mut expander = Expander { functions: &functions, text: String::new(), calls: 0 };
    let rename = |name: &str| name.to_string();
    expander.lines(&lines, &rename);
    flat += &expander.text;
    for (k, y) in outputs.iter().enumerate() {
        let _ = writeln!(flat, "out o{k} = {y}");
    }
    Generated { structured, flat }
}

/// A body over `args` binding every name of `results` (and temporaries
/// `{prefix}1, ...`), of about `budget` operations, calling `functions`;
/// returns its lines and nesting level.
fn body(
    rng: &mut Rng,
    functions: &[Function],
    args: &[String],
    results: &[String],
    budget: usize,
    prefix: &str,
) -> (Vec<Line>, usize) {
    let mut names: Vec<String> = args.to_vec();
    let mut lines = vec![];
    let mut level = 1;
    let mut temp = 0;
    let fresh = |temp: &mut usize| {
        *temp += 1;
        format!("{prefix}{temp}")
    };
    for _ in 0..budget {
        let call = !functions.is_empty() && rng.below(4) == 0;
        if call {
            let f = rng.below(functions.len());
            let callee = &functions[f];
            level = level.max(callee.level + 1);
            let call_args: Vec<Expr> = (0..callee.args.len()).map(|_| operand(rng, &names, 1)).collect();
            let bound: Vec<String> = callee.results.iter().map(|_| fresh(&mut temp)).collect();
            names.extend(bound.iter().cloned());
            lines.push(Line::Call(bound, f, call_args));
        } else {
            let expr = expression(rng, functions, &names, &mut level, 2);
            let name = fresh(&mut temp);
            names.push(name.clone());
            lines.push(Line::Assign(name, expr));
        }
    }
    for result in results {
        // Mostly recent names; now and then an argument itself.
        let recent = names.len().saturating_sub(6);
        let k =
            if rng.below(8) == 0 { rng.below(names.len()) } else { recent + rng.below(names.len() - recent) };
        let expr = match rng.below(3) {
            0 => Expr::Name(names[k].clone()),
            _ => expression(rng, functions, &names, &mut level, 1),
        };
        lines.push(Line::Assign(result.clone(), expr));
    }
    (lines, level)
}

/// A random expression of `depth` levels over `names`, sometimes calling a
/// one-result function inside it.
fn expression(
    rng: &mut Rng,
    functions: &[Function],
    names: &[String],
    level: &mut usize,
    depth: usize,
) -> Expr {
    if depth == 0 {
        return operand(rng, names, 0);
    }
    let single: Vec<usize> = (0..functions.len()).filter(|&f| functions[f].results.len() == 1).collect();
    let mut sub = |rng: &mut Rng| Box::new(expression(rng, functions, names, level, depth - 1));
    match rng.below(12) {
        0..=3 => Expr::Unary(UNARY[rng.below(UNARY.len())], sub(rng)),
        4..=8 => Expr::Binary(['+', '-', '*', '/'][rng.below(4)], sub(rng), sub(rng)),
        9 => Expr::Select(Box::new([*sub(rng), *sub(rng), *sub(rng), *sub(rng)])),
        _ if !single.is_empty() => {
            let f = single[rng.below(single.len())];
            let args = (0..functions[f].args.len()).map(|_| *sub(rng)).collect();
            *level = (*level).max(functions[f].level + 1);
            Expr::Call(f, args)
        }
        _ => operand(rng, names, 0),
    }
}

/// A name (repeats welcome), now and then a constant or, with `depth`, a
/// sum: the arguments of calls.
fn operand(rng: &mut Rng, names: &[String], depth: usize) -> Expr {
    match rng.below(10) {
        0 => Expr::Number([0.5, 2.0, -1.25, 3.0][rng.below(4)]),
        1 if depth > 0 => Expr::Binary(
            '+',
            Box::new(Expr::Name(names[rng.below(names.len())].clone())),
            Box::new(Expr::Number(0.25)),
        ),
        _ => {
            let recent = names.len().saturating_sub(8);
            Expr::Name(names[recent + rng.below(names.len() - recent)].clone())
        }
    }
}

/// `e` as text, names through `rename`; calls print as calls.
fn print(e: &Expr, functions: &[Function], rename: &dyn Fn(&str) -> String) -> String {
    let p = |e: &Expr| print(e, functions, rename);
    match e {
        Expr::Name(n) => rename(n),
        Expr::Number(v) => format!("({v:?})"),
        Expr::Unary(f, a) => unary(f, &p(a)),
        Expr::Binary(op, a, b) => binary(*op, &p(a), &p(b)),
        Expr::Select(s) => format!("ifelse({} < {}, {}, {})", p(&s[0]), p(&s[1]), p(&s[2]), p(&s[3])),
        Expr::Call(f, args) => {
            let args: Vec<String> = args.iter().map(p).collect();
            format!("{}({})", functions[*f].name, args.join(", "))
        }
    }
}

/// A guarded unary function of the text `a`.
fn unary(f: &str, a: &str) -> String {
    match f {
        "exp_tanh" => format!("exp(tanh({a}))"),
        "log_sq" => format!("log(1 + ({a})*({a}))"),
        "sqrt_sq" => format!("sqrt(1 + ({a})*({a}))"),
        _ => format!("{f}({a})"),
    }
}

/// `a op b` in parentheses; a quotient divides by `1 + b²`.
fn binary(op: char, a: &str, b: &str) -> String {
    match op {
        '/' => format!("(({a}) / (1 + ({b})*({b})))"),
        _ => format!("(({a}) {op} ({b}))"),
    }
}

fn print_line(line: &Line, functions: &[Function], rename: &dyn Fn(&str) -> String) -> String {
    match line {
        Line::Assign(name, e) => format!("{} = {}\n", rename(name), print(e, functions, rename)),
        Line::Call(bound, f, args) => {
            let args: Vec<String> = args.iter().map(|a| print(a, functions, rename)).collect();
            let bound: Vec<String> = bound.iter().map(|b| rename(b)).collect();
            format!("{} = {}({})\n", bound.join(", "), functions[*f].name, args.join(", "))
        }
    }
}

/// A function as a block, or in the short form when it has one result
/// computed by one expression.
fn print_function(f: &Function, functions: &[Function]) -> String {
    let same = |name: &str| name.to_string();
    if let ([result], [Line::Assign(name, e)]) = (&f.results[..], &f.lines[..]) {
        if name == result {
            return format!("{}({}) = {}\n", f.name, f.args.join(", "), print(e, functions, &same));
        }
    }
    let mut s = format!("function {}({}) -> ({})\n", f.name, f.args.join(", "), f.results.join(", "));
    for line in &f.lines {
        s += "  ";
        s += &print_line(line, functions, &same);
    }
    s + "end\n"
}

/// Writes calls out: each call's body, its names prefixed by the call's
/// number, its arguments bound first.
struct Expander<'a> {
    functions: &'a [Function],
    text: String,
    calls: usize,
}

impl Expander<'_> {
    fn lines(&mut self, lines: &[Line], rename: &dyn Fn(&str) -> String) {
        for line in lines {
            match line {
                Line::Assign(name, e) => {
                    let value = self.expr(e, rename);
                    let _ = writeln!(self.text, "{} = {value}", rename(name));
                }
                Line::Call(bound, f, args) => {
                    let args: Vec<String> = args.iter().map(|a| self.expr(a, rename)).collect();
                    let results = self.call(*f, &args);
                    for (b, r) in bound.iter().zip(results) {
                        let _ = writeln!(self.text, "{} = {r}", rename(b));
                    }
                }
            }
        }
    }

    /// The text of `e`, its calls written out before it.
    fn expr(&mut self, e: &Expr, rename: &dyn Fn(&str) -> String) -> String {
        match e {
            Expr::Name(n) => rename(n),
            Expr::Number(v) => format!("({v:?})"),
            Expr::Unary(f, a) => {
                let a = self.expr(a, rename);
                unary(f, &a)
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.expr(a, rename), self.expr(b, rename));
                binary(*op, &a, &b)
            }
            Expr::Select(s) => {
                let t: Vec<String> = s.iter().map(|e| self.expr(e, rename)).collect();
                format!("ifelse({} < {}, {}, {})", t[0], t[1], t[2], t[3])
            }
            Expr::Call(f, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a, rename)).collect();
                self.call(*f, &args).remove(0)
            }
        }
    }

    /// Writes a call of function `f` on the argument texts out; returns
    /// the names of its results.
    fn call(&mut self, f: usize, args: &[String]) -> Vec<String> {
        self.calls += 1;
        let prefix = format!("c{}_", self.calls);
        let function = &self.functions[f];
        // The arguments bound to names of the call, so each is computed once.
        for (a, value) in function.args.iter().zip(args) {
            let _ = writeln!(self.text, "{prefix}{a} = {value}");
        }
        let rename = |name: &str| format!("{prefix}{name}");
        let lines = function.lines.clone();
        self.lines(&lines, &rename);
        function.results.iter().map(|r| rename(r)).collect()
    }
}
