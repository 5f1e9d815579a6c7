//! The derivative forms of the REPL: `diff(f, x)`, `diff(f, x, 2)`,
//! `grad(f)`, `jacobian([f, g])`, `hessian(f)`, optionally applied to a
//! point: `jacobian(f)(1, 2)`.

use super::line::{matching_paren, split_top_level};
use super::{Session, SessionError};
use dstar::frontend::{ExprDag, NodeId, Output, Program};

/// Which derivative, of which functions (texts with their line offsets).
enum Kind<'a> {
    Diff { f: (&'a str, usize), var: (&'a str, usize), order: usize },
    Grad { f: (&'a str, usize) },
    Jacobian { fs: Vec<(&'a str, usize)> },
    Hessian { f: (&'a str, usize) },
}

/// A parsed derivative form.
pub struct DerivativeForm<'a> {
    kind: Kind<'a>,
    /// The text of the form itself, for the kernel cache.
    text: &'a str,
    /// `(args, offset)` when the form is applied to a point.
    pub call: Option<(&'a str, usize)>,
}

/// How results are laid out when printed.
#[derive(Clone, Debug)]
pub enum Shape {
    Scalar,
    Vector,
    Matrix { cols: usize },
}

impl Shape {
    /// Joins the entries' texts: `a`, `[a, b]` or `[[a, b],\n [c, d]]`.
    pub fn layout(&self, texts: &[String]) -> String {
        match self {
            Shape::Scalar => texts[0].clone(),
            Shape::Vector => format!("[{}]", texts.join(", ")),
            Shape::Matrix { cols } => {
                let rows: Vec<String> =
                    texts.chunks((*cols).max(1)).map(|r| format!("[{}]", r.join(", "))).collect();
                format!("[{}]", rows.join(",\n "))
            }
        }
    }
}

/// A derivative as a program over the functions' variables, one output per
/// entry, and how to lay the entries out.
pub struct Evaluated {
    pub program: Program,
    pub shape: Shape,
}

impl Evaluated {
    /// The derivative as a one-output function, with `params` as its
    /// parameters if given (they must include every variable it uses).
    pub fn into_scalar_function(self, params: Option<&[&str]>) -> Result<Program, SessionError> {
        if !matches!(self.shape, Shape::Scalar) {
            return Err(SessionError::new(
                "only a scalar derivative (diff) can be defined as a function; grad, jacobian and hessian can be shown or evaluated",
            ));
        }
        let Some(params) = params else { return Ok(self.program) };
        let mut dag = ExprDag::new();
        let mut args = vec![];
        for var in &self.program.inputs {
            match params.iter().position(|p| p == var) {
                Some(k) => args.push(dag.input(k)),
                None => return Err(SessionError::new(format!("'{var}' is used but is not a parameter"))),
            }
        }
        let root = dag.import(&self.program.dag, &self.program.output_nodes(), Some(&args))[0];
        let outputs = vec![Output { name: "f".into(), node: root }];
        Ok(Program::new(dag, params.iter().map(|p| p.to_string()).collect(), outputs))
    }
}

impl<'a> DerivativeForm<'a> {
    /// Recognizes a derivative form spanning all of `text` (which starts at
    /// column `offset` of the line), or returns `None` for other text.
    pub fn parse(text: &'a str, offset: usize) -> Result<Option<DerivativeForm<'a>>, SessionError> {
        let Some(open) = text.find('(') else { return Ok(None) };
        let head = text[..open].trim();
        if !matches!(head, "diff" | "grad" | "jacobian" | "hessian") {
            return Ok(None);
        }
        let Some(close) = matching_paren(text, open) else {
            return Err(SessionError::at("unclosed '('", offset + open, offset + open + 1));
        };
        let inner = &text[open + 1..close];
        let inner_at = offset + open + 1;
        let args: Vec<(&str, usize)> =
            split_top_level(inner, ',').into_iter().map(|(t, at)| (t, inner_at + at)).collect();
        let expect = |n: &[usize]| -> Result<(), SessionError> {
            if n.contains(&args.len()) && args.iter().all(|(t, _)| !t.is_empty()) {
                Ok(())
            } else {
                let usage = match head {
                    "diff" => "diff(f, x) or diff(f, x, order)",
                    "grad" => "grad(f)",
                    "jacobian" => "jacobian(f) or jacobian([f, g, ...])",
                    _ => "hessian(f)",
                };
                Err(SessionError::at(format!("usage: {usage}"), offset, offset + close + 1))
            }
        };
        let kind = match head {
            "diff" => {
                expect(&[2, 3])?;
                let order = match args.get(2) {
                    None => 1,
                    Some((t, at)) => t.parse::<usize>().map_err(|_| {
                        SessionError::at("the order must be a whole number", *at, at + t.len())
                    })?,
                };
                Kind::Diff { f: args[0], var: args[1], order }
            }
            "grad" => {
                expect(&[1])?;
                Kind::Grad { f: args[0] }
            }
            "hessian" => {
                expect(&[1])?;
                Kind::Hessian { f: args[0] }
            }
            _ => {
                expect(&[1])?;
                let (list, at) = args[0];
                match list.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    Some(items) => Kind::Jacobian {
                        fs: split_top_level(items, ',').into_iter().map(|(t, a)| (t, at + 1 + a)).collect(),
                    },
                    None => Kind::Jacobian { fs: vec![args[0]] },
                }
            }
        };
        let rest = text[close + 1..].trim_start();
        let rest_at = offset + text.len() - rest.len();
        let call = if rest.is_empty() {
            None
        } else if rest.starts_with('(') && matching_paren(rest, 0) == Some(rest.len() - 1) {
            Some((&rest[1..rest.len() - 1], rest_at + 1))
        } else {
            return Err(SessionError::at(
                "expected '(' and a point after the derivative",
                rest_at,
                offset + text.len(),
            ));
        };
        Ok(Some(DerivativeForm { kind, text: &text[..close + 1], call }))
    }

    /// The key of this form's kernel in the session cache.
    pub fn key(&self) -> String {
        self.text.split_whitespace().collect()
    }

    /// Builds the derivative symbolically.
    pub fn derive(&self, session: &Session) -> Result<Evaluated, SessionError> {
        match &self.kind {
            Kind::Diff { f, var, order } => {
                let program = function(session, *f)?;
                let (name, at) = *var;
                if !is_name(name) {
                    return Err(SessionError::at("expected a variable name", at, at + name.len()));
                }
                let mut kernel = kernel_of(&program)?;
                match program.inputs.iter().position(|i| i == name) {
                    None => kernel = constant_zero(kernel),
                    Some(col) => {
                        for _ in 0..*order {
                            let jacobian = dstar::factor::jacobian(kernel);
                            let entry = jacobian.get(0, col);
                            kernel = jacobian.into_kernel();
                            kernel = match entry {
                                Some(e) => kernel.with_roots(vec![e]).map_err(internal)?,
                                None => constant_zero(kernel),
                            };
                        }
                    }
                }
                let (dag, roots) = kernel.into_parts();
                Ok(evaluated(dag, program.inputs, roots, Shape::Scalar))
            }
            Kind::Grad { f } => {
                let program = function(session, *f)?;
                let n = program.inputs.len();
                let jacobian = dstar::factor::jacobian(kernel_of(&program)?);
                let mut dag = jacobian.dag().clone();
                let zero = dag.constant(0.0);
                let mut row = vec![zero; n];
                for e in jacobian.entries() {
                    row[e.col] = e.node;
                }
                Ok(evaluated(dag, program.inputs, row, Shape::Vector))
            }
            Kind::Jacobian { fs } => {
                let (dag, inputs, outputs) = functions_together(session, fs)?;
                let n = inputs.len();
                let kernel = dstar::Kernel::new(dag, outputs.clone(), n).map_err(internal)?;
                let jacobian = dstar::factor::jacobian(kernel);
                let mut dag = jacobian.dag().clone();
                let zero = dag.constant(0.0);
                let mut entries = vec![zero; outputs.len() * n];
                for e in jacobian.entries() {
                    entries[e.row * n + e.col] = e.node;
                }
                Ok(evaluated(dag, inputs, entries, Shape::Matrix { cols: n }))
            }
            Kind::Hessian { f } => {
                let program = function(session, *f)?;
                let n = program.inputs.len();
                let hessian = dstar::factor::hessian(kernel_of(&program)?, 0);
                let mut dag = hessian.dag().clone();
                let zero = dag.constant(0.0);
                let mut entries: Vec<NodeId> = vec![zero; n * n];
                for e in hessian.lower_entries() {
                    entries[e.row * n + e.col] = e.node;
                    entries[e.col * n + e.row] = e.node;
                }
                Ok(evaluated(dag, program.inputs, entries, Shape::Matrix { cols: n }))
            }
        }
    }
}

/// A definition's program as a kernel.
fn kernel_of(program: &Program) -> Result<dstar::Kernel, SessionError> {
    program.kernel().map_err(internal)
}

/// The same DAG computing the constant 0.
fn constant_zero(kernel: dstar::Kernel) -> dstar::Kernel {
    let (mut dag, _) = kernel.into_parts();
    let zero = dag.constant(0.0);
    dstar::Kernel::new(dag, vec![zero], 0).expect("a constant reads no input")
}

pub fn internal(e: impl std::fmt::Display) -> SessionError {
    SessionError::new(e.to_string())
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn evaluated(dag: ExprDag, inputs: Vec<String>, nodes: Vec<NodeId>, shape: Shape) -> Evaluated {
    let outputs =
        nodes.into_iter().enumerate().map(|(i, node)| Output { name: format!("d{i}"), node }).collect();
    Evaluated { program: Program::new(dag, inputs, outputs), shape }
}

/// The function a form's argument denotes: any expression over the
/// session's definitions, its variables discovered in order.
fn function(session: &Session, (text, at): (&str, usize)) -> Result<Program, SessionError> {
    session.expression(text, None, at)
}

/// Several functions over the union of their variables (in order of first
/// appearance), in one DAG.
fn functions_together(
    session: &Session,
    fs: &[(&str, usize)],
) -> Result<(ExprDag, Vec<String>, Vec<NodeId>), SessionError> {
    let programs = fs.iter().map(|f| function(session, *f)).collect::<Result<Vec<_>, _>>()?;
    let mut inputs: Vec<String> = vec![];
    for p in &programs {
        for v in &p.inputs {
            if !inputs.contains(v) {
                inputs.push(v.clone());
            }
        }
    }
    let mut dag = ExprDag::new();
    let mut outputs = vec![];
    for p in &programs {
        let args: Vec<NodeId> = p
            .inputs
            .iter()
            .map(|v| dag.input(inputs.iter().position(|w| w == v).expect("collected above")))
            .collect();
        outputs.push(dag.import(&p.dag, &[p.outputs[0].node], Some(&args))[0]);
    }
    Ok((dag, inputs, outputs))
}
