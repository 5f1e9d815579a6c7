//! Product and sum chains, flattened and rebuilt around their common pairs.
//!
//! Every arithmetic node gets a normal form `Σ cᵢ·Πⱼ fᵢⱼ`: a linear
//! combination, with constant coefficients, of products of *factors*
//! (non-arithmetic nodes, reciprocals `1/b`, and arithmetic nodes kept whole
//! because expanding them would distribute a product over a sum or grow past
//! a size cap). A sum read twice or more is one factor of each reader, its
//! own form rebuilt once: expanded into every reader, the sharing the DAG
//! had is lost and pairing must find it again, most of it (reverse sweeps
//! over a chain, whose adjoints are such sums: single shooting over 10^4
//! steps took 1.7 s to pair and came out 25% larger than it went in; read
//! as factors, 50 ms, and no corpus kernel grew). Like terms are collected,
//! so `x*(y+y) + 2*(x*y)` is `4·xy`.
//! The forms that the kernel needs are then rebuilt with shared pieces:
//! products first, by the most frequent pair of factors (a constant
//! coefficient is a factor too, so it lands where it is shared), then sums by
//! the most frequent pair of signed terms. This is the D* paper's
//! most-frequent-pair order, applied to whole chains rather than to edges.
//!
//! Values: collecting like terms and reassociating are identities of real
//! arithmetic and change only rounding for finite values; a term whose
//! coefficient cancels to zero is dropped, which turns `inf - inf` (NaN) into
//! `0`, so this pass too is value-preserving for finite intermediates only.

use crate::pairs::most_frequent_pairs;
use frontend::{ExprDag, NodeId, Op, Real};
use rustc_hash::FxHashMap;
use std::ops::Range;

/// Most factors in one product term before the node is kept whole.
const MAX_FACTORS: usize = 12;
/// Most terms in one sum before the node is kept whole.
const MAX_TERMS: usize = 16;

/// An element of the rebuilt kernel, hash-consed in [`Symbols`].
type Sym = u32;

/// What a symbol computes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Def {
    /// The original node's operation applied to its arguments' rebuilt
    /// forms: for non-arithmetic nodes, and arithmetic ones kept whole.
    Apply(NodeId),
    /// The original node's own rebuilt form, used as one factor.
    Value(NodeId),
    /// `1 / form(node)`.
    Recip(NodeId),
    /// A constant.
    Const(Real),
    /// A product of two symbols.
    Mul(Sym, Sym),
    /// `a + b`.
    Add(Sym, Sym),
    /// `a - b`.
    Sub(Sym, Sym),
}

#[derive(Default)]
struct Symbols {
    defs: Vec<Def>,
    table: FxHashMap<Def, Sym>,
}

impl Symbols {
    fn get(&mut self, def: Def) -> Sym {
        let def = match def {
            Def::Mul(a, b) if b < a => Def::Mul(b, a),
            Def::Add(a, b) if b < a => Def::Add(b, a),
            d => d,
        };
        *self.table.entry(def).or_insert_with(|| {
            self.defs.push(def);
            (self.defs.len() - 1) as Sym
        })
    }
}

/// `coeff · Π factors`, factors sorted.
#[derive(Clone, Debug)]
struct Term {
    coeff: f64,
    factors: Vec<Sym>,
}

/// A linear combination of terms, sorted by factors, no two alike, no zero
/// coefficient. The empty form is the constant zero.
type Form = Vec<Term>;

fn constant_form(c: f64) -> Form {
    if c == 0.0 {
        Vec::new()
    } else {
        vec![Term { coeff: c, factors: Vec::new() }]
    }
}

fn as_constant(form: &Form) -> Option<f64> {
    match form.as_slice() {
        [] => Some(0.0),
        [t] if t.factors.is_empty() => Some(t.coeff),
        _ => None,
    }
}

/// `a + sign·b`, collecting like terms.
fn combine(a: &Form, b: &Form, sign: f64) -> Form {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let order = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.factors.cmp(&y.factors),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                out.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(Term { coeff: sign * b[j].coeff, factors: b[j].factors.clone() });
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let coeff = a[i].coeff + sign * b[j].coeff;
                if coeff != 0.0 {
                    out.push(Term { coeff, factors: a[i].factors.clone() });
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn scale(form: &Form, c: f64) -> Form {
    form.iter().map(|t| Term { coeff: c * t.coeff, factors: t.factors.clone() }).collect()
}

/// The product of two single terms.
fn product(a: &Term, b: &Term) -> Term {
    let mut factors = a.factors.clone();
    factors.extend_from_slice(&b.factors);
    factors.sort_unstable();
    Term { coeff: a.coeff * b.coeff, factors }
}

/// Rebuilds the kernel `roots` of `dag` with common product and sum pairs
/// computed once. Returns a fresh DAG (inputs `0..num_inputs` first) and the
/// roots' nodes in it; the caller compares op counts.
///
/// Pairing stops after `budget` units of work (what is paired by then is
/// kept; see [`most_frequent_pairs`]), half for products and the rest for
/// sums, so the pass costs flattening and emitting, both linear, plus the
/// budget, and its result depends on the input alone. Returns the work
/// spent too.
pub fn rebuild(
    dag: &ExprDag,
    roots: &[NodeId],
    num_inputs: usize,
    budget: u64,
) -> (ExprDag, Vec<NodeId>, u64) {
    let reach = dag.reachable(roots);
    let Flattening { mut symbols, forms, needed } = Flattening::new(dag, roots, &reach);
    let needed_ids: Vec<NodeId> = dag.ids().filter(|id| needed[id.index()] && reach[id.index()]).collect();
    let (terms, term_ranges, left) = pair_products(&forms, &needed_ids, &mut symbols, budget / 2);
    let sums_budget = budget - budget / 2 + left;
    let (sums, unspent) = pair_sums(&terms, &term_ranges, &mut symbols, sums_budget);
    let result = fold_sums(&needed_ids, sums, &mut symbols);
    let (dag, roots) = emit(dag, &symbols, &result, roots, num_inputs);
    (dag, roots, budget - unspent)
}

/// The normal forms of the nodes the roots reach, with the symbols their
/// factors name.
struct Flattening {
    symbols: Symbols,
    /// By node index: its form (empty for nodes the roots do not reach).
    forms: Vec<Form>,
    /// Nodes whose form must be rebuilt on its own: roots, arguments of
    /// non-arithmetic nodes, nodes kept whole, and shared sums.
    needed: Vec<bool>,
}

impl Flattening {
    /// Flattens the nodes `reach` marks, in id order.
    fn new(dag: &ExprDag, roots: &[NodeId], reach: &[bool]) -> Flattening {
        let mut flat = Flattening {
            symbols: Symbols::default(),
            forms: vec![Vec::new(); dag.len()],
            needed: vec![false; dag.len()],
        };
        for r in roots {
            flat.needed[r.index()] = true;
        }
        // Readers among the reached nodes: a shared sum is a factor of each.
        let mut uses = vec![0u32; dag.len()];
        for id in dag.ids().filter(|id| reach[id.index()]) {
            for a in dag.args(id) {
                uses[a.index()] += 1;
            }
        }
        let mut own: Vec<(NodeId, Form)> = Vec::new();
        for id in dag.ids().filter(|id| reach[id.index()]) {
            let form = flat.form(dag, id);
            if uses[id.index()] >= 2 && form.len() > 1 {
                flat.needed[id.index()] = true;
                let atom = Term { coeff: 1.0, factors: vec![flat.symbols.get(Def::Value(id))] };
                flat.forms[id.index()] = vec![atom];
                own.push((id, form));
            } else {
                flat.forms[id.index()] = form;
            }
        }
        for (id, form) in own {
            flat.forms[id.index()] = form;
        }
        flat
    }

    /// The form of node `id` from its arguments' forms.
    fn form(&mut self, dag: &ExprDag, id: NodeId) -> Form {
        let args = dag.args(id);
        match dag.op(id) {
            Op::Const(c) => constant_form(c.get()),
            Op::Neg => scale(&self.forms[args[0].index()], -1.0),
            Op::Add | Op::Sub => {
                let sign = if dag.op(id) == Op::Add { 1.0 } else { -1.0 };
                let sum = combine(&self.forms[args[0].index()], &self.forms[args[1].index()], sign);
                if sum.len() > MAX_TERMS {
                    apply(&mut self.symbols, &mut self.needed, dag, id)
                } else {
                    sum
                }
            }
            Op::Mul => self.product_form(dag, id),
            Op::Div => self.quotient_form(dag, id),
            _ => apply(&mut self.symbols, &mut self.needed, dag, id),
        }
    }

    /// The form of a product node: a constant if both factors are, the
    /// product of the two as single terms up to [`MAX_FACTORS`] factors,
    /// else the node kept whole.
    fn product_form(&mut self, dag: &ExprDag, id: NodeId) -> Form {
        let args = dag.args(id);
        let (fa, fb) = (&self.forms[args[0].index()], &self.forms[args[1].index()]);
        match (as_constant(fa), as_constant(fb)) {
            (Some(a), Some(b)) => constant_form(a * b),
            // 0·x stays as written: it is NaN for infinite x.
            (Some(c), None) | (None, Some(c)) if c == 0.0 => {
                apply(&mut self.symbols, &mut self.needed, dag, id)
            }
            _ => {
                let ta = as_term(fa, args[0], &mut self.symbols, &mut self.needed);
                let tb = as_term(fb, args[1], &mut self.symbols, &mut self.needed);
                if ta.factors.len() + tb.factors.len() > MAX_FACTORS {
                    apply(&mut self.symbols, &mut self.needed, dag, id)
                } else {
                    vec![product(&ta, &tb)]
                }
            }
        }
    }

    /// The form of a quotient node: by a constant, its coefficient divided;
    /// of a single term by anything else, the term times the reciprocal
    /// `1/b` as a factor; else the node kept whole.
    fn quotient_form(&mut self, dag: &ExprDag, id: NodeId) -> Form {
        let args = dag.args(id);
        let (fa, fb) = (&self.forms[args[0].index()], &self.forms[args[1].index()]);
        match as_constant(fb) {
            Some(c) if c != 0.0 && c.is_finite() && (1.0 / c).is_finite() => {
                let ta = as_term(fa, args[0], &mut self.symbols, &mut self.needed);
                vec![Term { coeff: ta.coeff / c, factors: ta.factors }]
            }
            None if fa.len() == 1 && fa[0].factors.len() < MAX_FACTORS => {
                self.needed[args[1].index()] = true;
                let recip = Term { coeff: 1.0, factors: vec![self.symbols.get(Def::Recip(args[1]))] };
                vec![product(&fa[0], &recip)]
            }
            _ => apply(&mut self.symbols, &mut self.needed, dag, id),
        }
    }
}

/// Products: every term of every needed form is a bag of factors, its
/// coefficient's magnitude included, paired within `budget` and then
/// multiplied out. Returns each term as one symbol and whether it is
/// negated, the range of each needed form's terms, and the budget left.
fn pair_products(
    forms: &[Form],
    needed: &[NodeId],
    symbols: &mut Symbols,
    budget: u64,
) -> (Vec<(Sym, bool)>, Vec<Range<usize>>, u64) {
    let mut bags: Vec<Vec<Sym>> = Vec::new();
    let mut signs: Vec<bool> = Vec::new();
    let mut term_ranges = Vec::with_capacity(needed.len());
    for id in needed {
        let start = bags.len();
        for t in &forms[id.index()] {
            let mut bag = t.factors.clone();
            if t.coeff.abs() != 1.0 || bag.is_empty() {
                bag.push(symbols.get(Def::Const(Real::new(t.coeff.abs()))));
            }
            bags.push(bag);
            signs.push(t.coeff < 0.0);
        }
        term_ranges.push(start..bags.len());
    }
    let left = most_frequent_pairs(
        &mut bags,
        budget,
        |a: Sym, b: Sym| ((a.min(b), a.max(b)), false),
        |(a, b), _| symbols.get(Def::Mul(a, b)),
    );
    let terms = bags
        .iter_mut()
        .zip(&signs)
        .map(|(bag, &negated)| {
            bag.sort_unstable();
            let first = bag[0];
            (bag[1..].iter().fold(first, |acc, &f| symbols.get(Def::Mul(acc, f))), negated)
        })
        .collect();
    (terms, term_ranges, left)
}

/// Sums: each needed form is a bag of signed terms, paired within `budget`;
/// a pair and its negation share one key, the sign of the first element
/// normalized. Returns the bags and the budget unspent.
fn pair_sums(
    terms: &[(Sym, bool)],
    term_ranges: &[Range<usize>],
    symbols: &mut Symbols,
    budget: u64,
) -> (Vec<Vec<(Sym, bool)>>, u64) {
    let mut sums: Vec<Vec<(Sym, bool)>> = term_ranges.iter().map(|r| terms[r.clone()].to_vec()).collect();
    let unspent = most_frequent_pairs(
        &mut sums,
        budget,
        |a, b| {
            let (a, b) = if (a.0, a.1) <= (b.0, b.1) { (a, b) } else { (b, a) };
            ((a.0, b.0, a.1 != b.1), a.1)
        },
        |(a, b, differ), flip| {
            let sym = symbols.get(if differ { Def::Sub(a, b) } else { Def::Add(a, b) });
            (sym, flip)
        },
    );
    (sums, unspent)
}

/// Each needed node's rebuilt value, a symbol and whether it is negated:
/// its bag of signed terms added up left to right.
fn fold_sums(
    needed: &[NodeId],
    sums: Vec<Vec<(Sym, bool)>>,
    symbols: &mut Symbols,
) -> FxHashMap<NodeId, (Sym, bool)> {
    let zero = symbols.get(Def::Const(Real::new(0.0)));
    let mut result: FxHashMap<NodeId, (Sym, bool)> = FxHashMap::default();
    for (id, mut sum) in needed.iter().zip(sums) {
        // Start from a positive term, so that only an all-negative sum
        // needs a negation.
        sum.sort_unstable_by_key(|&(s, negated)| (negated, s));
        let value = match sum.split_first() {
            None => (zero, false),
            Some((&first, rest)) => rest.iter().fold(first, |(acc, acc_neg), &(s, neg)| {
                if acc_neg == neg {
                    (symbols.get(Def::Add(acc, s)), acc_neg)
                } else {
                    (symbols.get(Def::Sub(acc, s)), acc_neg)
                }
            }),
        };
        result.insert(*id, value);
    }
    result
}

/// The form of a node kept whole: its operation on its rebuilt arguments.
fn apply(symbols: &mut Symbols, needed: &mut [bool], dag: &ExprDag, id: NodeId) -> Form {
    for a in dag.args(id) {
        needed[a.index()] = true;
    }
    vec![Term { coeff: 1.0, factors: vec![symbols.get(Def::Apply(id))] }]
}

/// `form` as one term: itself if it is one, else its value as one factor
/// (a product does not distribute over a sum).
fn as_term(form: &Form, node: NodeId, symbols: &mut Symbols, needed: &mut [bool]) -> Term {
    match form.as_slice() {
        [t] => t.clone(),
        [] => Term { coeff: 0.0, factors: Vec::new() },
        _ => {
            needed[node.index()] = true;
            Term { coeff: 1.0, factors: vec![symbols.get(Def::Value(node))] }
        }
    }
}

/// Writes the symbols that `roots` need into a fresh DAG, children first.
fn emit(
    dag: &ExprDag,
    symbols: &Symbols,
    result: &FxHashMap<NodeId, (Sym, bool)>,
    roots: &[NodeId],
    num_inputs: usize,
) -> (ExprDag, Vec<NodeId>) {
    let mut out = ExprDag::new();
    for k in 0..num_inputs {
        out.input(k);
    }
    let mut node_of: Vec<Option<NodeId>> = vec![None; symbols.defs.len()];
    // The rebuilt value of original node `n`, whose symbol is emitted.
    let value = |out: &mut ExprDag, node_of: &[Option<NodeId>], n: NodeId| -> NodeId {
        let (s, negated) = result[&n];
        let v = node_of[s as usize].expect("emitted before use");
        if negated {
            out.neg(v)
        } else {
            v
        }
    };
    // `x · (1/d)` is emitted as `x / d`: one op, not two.
    let divisor = |s: Sym| match symbols.defs[s as usize] {
        Def::Recip(d) => Some(d),
        _ => None,
    };
    let as_division = |a: Sym, b: Sym| match (divisor(a), divisor(b)) {
        (None, Some(d)) => Some((a, d)),
        (Some(d), None) => Some((b, d)),
        _ => None,
    };
    let deps = |s: Sym| -> Vec<Sym> {
        match symbols.defs[s as usize] {
            Def::Apply(n) => dag.args(n).iter().map(|a| result[a].0).collect(),
            Def::Value(n) | Def::Recip(n) => vec![result[&n].0],
            Def::Const(_) => Vec::new(),
            Def::Mul(a, b) => match as_division(a, b) {
                Some((x, d)) => vec![x, result[&d].0],
                None => vec![a, b],
            },
            Def::Add(a, b) | Def::Sub(a, b) => vec![a, b],
        }
    };
    let mut stack: Vec<(Sym, bool)> = roots.iter().map(|r| (result[r].0, false)).collect();
    while let Some((s, ready)) = stack.pop() {
        if node_of[s as usize].is_some() {
            continue;
        }
        if !ready {
            stack.push((s, true));
            stack.extend(deps(s).into_iter().filter(|d| node_of[*d as usize].is_none()).map(|d| (d, false)));
            continue;
        }
        let get = |x: Sym| node_of[x as usize].expect("emitted before use");
        let node = match symbols.defs[s as usize] {
            Def::Apply(n) => match dag.op(n) {
                Op::Input(k) => out.input(k as usize),
                op => {
                    let args: Vec<NodeId> =
                        dag.args(n).iter().map(|a| value(&mut out, &node_of, *a)).collect();
                    out.apply(op, &args)
                }
            },
            Def::Value(n) => value(&mut out, &node_of, n),
            Def::Recip(n) => {
                let one = out.constant(1.0);
                let d = value(&mut out, &node_of, n);
                out.div(one, d)
            }
            Def::Const(c) => out.constant(c.get()),
            Def::Mul(a, b) => match as_division(a, b) {
                Some((x, d)) => {
                    let d = value(&mut out, &node_of, d);
                    out.div(get(x), d)
                }
                None => out.mul(get(a), get(b)),
            },
            Def::Add(a, b) => out.add(get(a), get(b)),
            Def::Sub(a, b) => out.sub(get(a), get(b)),
        };
        node_of[s as usize] = Some(node);
    }
    let roots = roots.iter().map(|r| value(&mut out, &node_of, *r)).collect();
    (out, roots)
}
