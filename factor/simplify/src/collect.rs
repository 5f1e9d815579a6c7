//! Like terms collected in one pass, for printing ([`crate::Tidier`]): a
//! sum is read as terms `c · m`, a coefficient times a monomial (a product
//! of powers of other expressions, its atoms), and the terms of one
//! monomial are added into one. The printing rewrites meet two like terms
//! only by commuting and associating the sum between them, within a node
//! limit, and missed `-3 * t1 + t1` in the third derivative of
//! `exp(x) * sin(x)`; this pass sees every term of a sum at once.
//!
//! A product of one term and a sum is distributed (`e^x · (a + b) +
//! e^x · (c - a)` collects to `e^x · (b + c)`); a product of two sums is
//! multiplied out only while it stays small. Coefficients stay exact
//! ratios of integers while they can (`x / 6`, never
//! `0.16666666666666666 * x`), and a collected sum is written with the
//! monomial and the whole number common to its terms factored out.
//!
//! [`alternatives`] writes the collected form of the nodes that matter
//! beside the originals; the tidier's e-graph holds both, so extraction
//! keeps whichever prints better. The NaN policy is the printing rules'
//! ([`crate::print_rules`]): identities of real numbers, so a term `0 · m`
//! is dropped and `x - x` is 0.

use frontend::{ExprDag, NodeId, Op};

/// Terms a sum may hold; a node whose sum would hold more is an atom of
/// the expressions around it.
const MAX_TERMS: usize = 24;
/// The largest whole exponent by which a power of one term is expanded
/// (`(2 * x)^3` to `8 * x^3`).
const MAX_POWER: f64 = 64.0;
/// Coefficients are exact while numerator and denominator stay within the
/// integers a double holds exactly.
const EXACT: i128 = 1 << 53;

/// A coefficient: an exact ratio `n / d` (reduced, `d > 0`) while one
/// fits, else a double.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Coef {
    Ratio(i64, i64),
    Real(f64),
}

impl Coef {
    const ONE: Coef = Coef::Ratio(1, 1);

    /// A constant of the DAG: exact when it is a whole number or a whole
    /// number of 1024ths (the halves and quarters of derivatives).
    fn of(c: f64) -> Coef {
        for shift in 0..=10 {
            let scaled = c * f64::from(1u32 << shift);
            if scaled.fract() == 0.0 && scaled.abs() < EXACT as f64 {
                return Coef::ratio(scaled as i128, 1 << shift).unwrap_or(Coef::Real(c));
            }
        }
        Coef::Real(c)
    }

    fn ratio(n: i128, d: i128) -> Option<Coef> {
        if d == 0 {
            return None;
        }
        let g = gcd(n.unsigned_abs(), d.unsigned_abs()).max(1) as i128;
        let (n, d) = if d < 0 { (-n / g, -d / g) } else { (n / g, d / g) };
        (n.abs() < EXACT && d < EXACT).then_some(Coef::Ratio(n as i64, d as i64))
    }

    fn value(self) -> f64 {
        match self {
            Coef::Ratio(n, d) => n as f64 / d as f64,
            Coef::Real(v) => v,
        }
    }

    fn add(self, other: Coef) -> Coef {
        match (self, other) {
            (Coef::Ratio(a, b), Coef::Ratio(c, d)) => {
                let (a, b, c, d) = (a as i128, b as i128, c as i128, d as i128);
                Coef::ratio(a * d + c * b, b * d)
            }
            _ => None,
        }
        .unwrap_or(Coef::Real(self.value() + other.value()))
    }

    fn mul(self, other: Coef) -> Coef {
        match (self, other) {
            (Coef::Ratio(a, b), Coef::Ratio(c, d)) => {
                Coef::ratio(a as i128 * c as i128, b as i128 * d as i128)
            }
            _ => None,
        }
        .unwrap_or(Coef::Real(self.value() * other.value()))
    }

    fn neg(self) -> Coef {
        match self {
            Coef::Ratio(n, d) => Coef::Ratio(-n, d),
            Coef::Real(v) => Coef::Real(-v),
        }
    }

    /// `1 / self`, `None` for 0.
    fn recip(self) -> Option<Coef> {
        match self {
            _ if self.is_zero() => None,
            Coef::Ratio(n, d) => Coef::ratio(d as i128, n as i128),
            Coef::Real(v) => Some(Coef::Real(1.0 / v)),
        }
    }

    /// `self^k` for a whole `k`, `None` for a negative power of 0.
    fn powi(self, k: i32) -> Option<Coef> {
        let base = if k < 0 { self.recip()? } else { self };
        Some((0..k.unsigned_abs()).fold(Coef::ONE, |p, _| p.mul(base)))
    }

    fn is_zero(self) -> bool {
        self.value() == 0.0
    }

    fn is_negative(self) -> bool {
        self.value() < 0.0
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A product of powers of atoms (nodes of the output DAG), sorted by atom,
/// no exponent 0; empty for the constant term.
type Monomial = Vec<(NodeId, f64)>;

fn times(a: &Monomial, b: &Monomial) -> Monomial {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                (i, j) = (i + 1, j + 1);
                (x.0, x.1 + y.1)
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("the loop runs while one is left"),
        };
        if next.1 != 0.0 {
            out.push(next);
        }
    }
    out
}

/// `Σ c · m`: distinct monomials, no zero coefficient, in order of first
/// appearance.
#[derive(Clone, Debug, Default)]
struct Poly {
    terms: Vec<(Monomial, Coef)>,
}

impl Poly {
    fn constant(c: Coef) -> Poly {
        let mut p = Poly::default();
        p.add_term(vec![], c);
        p
    }

    /// `atom^e`.
    fn power(atom: NodeId, e: f64) -> Poly {
        Poly { terms: vec![(vec![(atom, e)], Coef::ONE)] }
    }

    fn add_term(&mut self, m: Monomial, c: Coef) {
        match self.terms.iter().position(|(n, _)| *n == m) {
            Some(i) => {
                let sum = self.terms[i].1.add(c);
                if sum.is_zero() {
                    self.terms.remove(i);
                } else {
                    self.terms[i].1 = sum;
                }
            }
            None if !c.is_zero() => self.terms.push((m, c)),
            None => {}
        }
    }

    /// `self + sign · other`.
    fn plus(mut self, other: &Poly, sign: Coef) -> Poly {
        for (m, c) in &other.terms {
            self.add_term(m.clone(), c.mul(sign));
        }
        self
    }

    /// `self · other` multiplied out, or `None` past [`MAX_TERMS`] terms.
    fn times(&self, other: &Poly) -> Option<Poly> {
        if self.terms.len() * other.terms.len() > MAX_TERMS {
            return None;
        }
        let mut p = Poly::default();
        for (m, c) in &self.terms {
            for (n, d) in &other.terms {
                p.add_term(times(m, n), c.mul(*d));
            }
        }
        Some(p)
    }

    /// The one term, if there is exactly one.
    fn single(&self) -> Option<&(Monomial, Coef)> {
        match self.terms.as_slice() {
            [term] => Some(term),
            _ => None,
        }
    }
}

/// The collected form of `roots`, of the nodes they share and of the
/// expressions inside them that become atoms (function arguments), written
/// into a copy of `dag` after its nodes: the copy and the pairs `(original,
/// collected)` of equal values. Nothing is paired with a leaf.
pub fn alternatives(dag: &ExprDag, roots: &[NodeId]) -> (ExprDag, Vec<(NodeId, NodeId)>) {
    let reach = dag.reachable(roots);
    let mut collector = Collector {
        dag,
        uses: dag.use_counts(roots),
        out: dag.clone(),
        polys: vec![None; dag.len()],
        written: vec![None; dag.len()],
    };
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let poly = collector.read(id);
        collector.polys[id.index()] = Some(poly);
    }
    // The roots and the shared nodes get an alternative each: a shared
    // product's collected form serves every use.
    for id in dag.ids().filter(|id| reach[id.index()] && !dag.op(*id).is_leaf()) {
        if collector.uses[id.index()] > 1 {
            collector.node(id);
        }
    }
    for &root in roots {
        collector.node(root);
    }
    let pairs = (dag.ids())
        .filter(|id| !dag.op(*id).is_leaf())
        .filter_map(|id| collector.written[id.index()].map(|w| (id, w)))
        .filter(|(id, w)| id != w)
        .collect();
    (collector.out, pairs)
}

struct Collector<'a> {
    dag: &'a ExprDag,
    uses: Vec<u32>,
    /// The copy of `dag` the collected forms are written into.
    out: ExprDag,
    /// Each node read as a sum of terms.
    polys: Vec<Option<Poly>>,
    /// Each node's collected form written, once asked for.
    written: Vec<Option<NodeId>>,
}

impl Collector<'_> {
    fn poly(&self, id: NodeId) -> &Poly {
        self.polys[id.index()].as_ref().expect("arguments are read first")
    }

    /// Node `id` as its parents see it: its sum, or, when it is a sum of
    /// several terms used more than once, one term: the coefficient common
    /// to its terms times the rest as an atom, which stays shared (the 2 of
    /// `2 * x * t` meets the 1/2 of `t = (a + b) / 2`).
    fn operand(&mut self, id: NodeId) -> Poly {
        if self.uses[id.index()] > 1 && self.poly(id).terms.len() > 1 {
            let (c, m, rest) = common_factor(self.poly(id));
            let atom = self.term(&m, Coef::ONE, Some(&rest));
            Poly { terms: vec![(vec![(atom, 1.0)], c)] }
        } else {
            self.poly(id).clone()
        }
    }

    /// The collected form of node `id`, written once.
    fn node(&mut self, id: NodeId) -> NodeId {
        if let Some(node) = self.written[id.index()] {
            return node;
        }
        let poly = self.poly(id).clone();
        let node = self.write(&poly);
        self.written[id.index()] = Some(node);
        node
    }

    /// Node `id` as a sum of terms.
    fn read(&mut self, id: NodeId) -> Poly {
        let dag = self.dag;
        let (op, args) = (dag.op(id), dag.args(id));
        let one = Coef::ONE;
        match op {
            Op::Const(c) if c.get().is_finite() => Poly::constant(Coef::of(c.get())),
            Op::Add => self.operand(args[0]).plus(&self.operand(args[1]), one),
            Op::Sub => self.operand(args[0]).plus(&self.operand(args[1]), one.neg()),
            Op::Neg => Poly::default().plus(&self.operand(args[0]), one.neg()),
            Op::Mul => {
                let (a, b) = (self.operand(args[0]), self.operand(args[1]));
                a.times(&b).unwrap_or_else(|| self.atom(id))
            }
            Op::Div => {
                let a = self.operand(args[0]);
                let b = self.operand(args[1]);
                let inverse = match b.single() {
                    Some((m, c)) => c
                        .recip()
                        .map(|r| Poly { terms: vec![(m.iter().map(|&(v, e)| (v, -e)).collect(), r)] }),
                    None => None,
                };
                let inverse = match inverse {
                    Some(inverse) => inverse,
                    None => Poly::power(self.node(args[1]), -1.0),
                };
                a.times(&inverse).unwrap_or_else(|| self.atom(id))
            }
            Op::Pow => match dag.as_const(args[1]).filter(|e| e.is_finite() && *e != 0.0) {
                Some(e) => self.power(args[0], e),
                None => self.atom(id),
            },
            _ => self.atom(id),
        }
    }

    /// `base^e` for a constant `e`: a power of one term is expanded when
    /// `e` is whole (`(2 * x)^3` is `8 * x^3`; `(x^2)^0.5` is `|x|`, not
    /// `x`), a power of a bare atom merges exponents.
    fn power(&mut self, base: NodeId, e: f64) -> Poly {
        let operand = self.operand(base);
        if let Some((m, c)) = operand.single() {
            if e.fract() == 0.0 && e.abs() <= MAX_POWER {
                if let Some(c) = c.powi(e as i32) {
                    return Poly { terms: vec![(m.iter().map(|&(v, k)| (v, k * e)).collect(), c)] };
                }
            }
            if let ([(atom, one)], Coef::ONE) = (m.as_slice(), *c) {
                if *one == 1.0 {
                    return Poly::power(*atom, e);
                }
            }
        }
        Poly::power(self.node(base), e)
    }

    /// Node `id` as one atom: its operation over its arguments' collected
    /// forms.
    fn atom(&mut self, id: NodeId) -> Poly {
        let args: Vec<NodeId> = self.dag.args(id).to_vec();
        let args: Vec<NodeId> = args.into_iter().map(|a| self.node(a)).collect();
        let node = self.out.apply(self.dag.op(id), &args);
        Poly::power(node, 1.0)
    }

    /// Writes `poly`: one term, or a sum with its common factor in front.
    fn write(&mut self, poly: &Poly) -> NodeId {
        match poly.terms.as_slice() {
            [] => self.out.constant(0.0),
            [(m, c)] => self.term(m, *c, None),
            _ => {
                let (c, m, rest) = common_factor(poly);
                self.term(&m, c, Some(&rest))
            }
        }
    }

    /// The terms added in order, the first positive one first and the
    /// constant last (`2 * cos(x) - 3 * sin(x) + 1`).
    fn sum(&mut self, poly: &Poly) -> NodeId {
        let mut terms: Vec<&(Monomial, Coef)> = poly.terms.iter().filter(|(m, _)| !m.is_empty()).collect();
        if let Some(i) = terms.iter().position(|(_, c)| !c.is_negative()) {
            let first = terms.remove(i);
            terms.insert(0, first);
        }
        terms.extend(poly.terms.iter().filter(|(m, _)| m.is_empty()));
        let mut total: Option<NodeId> = None;
        for (m, c) in terms {
            let magnitude = self.term(m, if c.is_negative() { c.neg() } else { *c }, None);
            total = Some(match (total, c.is_negative()) {
                (None, false) => magnitude,
                (None, true) => self.out.neg(magnitude),
                (Some(t), false) => self.out.add(t, magnitude),
                (Some(t), true) => self.out.sub(t, magnitude),
            });
        }
        total.expect("a sum has terms")
    }

    /// `c · m · sum`, as `p * a * b * (sum) / (q * d)` for `c = p / q` and
    /// the atoms `a`, `b` of positive exponents and `d` of negative ones.
    /// The sum is written after the factors before it, so that they print
    /// before it (the DAG orders the operands of a product by id).
    fn term(&mut self, m: &Monomial, c: Coef, sum: Option<&Poly>) -> NodeId {
        let (negative, c) = if c.is_negative() { (true, c.neg()) } else { (false, c) };
        let (p, q) = match c {
            Coef::Ratio(p, q) => (p as f64, q as f64),
            Coef::Real(v) => (v, 1.0),
        };
        let mut top = (p != 1.0).then(|| self.out.constant(p));
        let mut bottom = (q != 1.0).then(|| self.out.constant(q));
        for &(atom, e) in m {
            let (slot, e) = if e > 0.0 { (&mut top, e) } else { (&mut bottom, -e) };
            let factor = if e == 1.0 {
                atom
            } else {
                let e = self.out.constant(e);
                self.out.apply(Op::Pow, &[atom, e])
            };
            *slot = Some(match *slot {
                Some(s) => self.out.mul(s, factor),
                None => factor,
            });
        }
        if let Some(sum) = sum {
            let extra = self.sum(sum);
            top = Some(match top {
                Some(t) => self.out.mul(t, extra),
                None => extra,
            });
        }
        let top = top.unwrap_or_else(|| self.out.constant(1.0));
        let value = match bottom {
            Some(b) => self.out.div(top, b),
            None => top,
        };
        if negative {
            self.out.neg(value)
        } else {
            value
        }
    }
}

/// The factor common to every term of `poly` (of two or more): the atoms
/// all terms hold with exponents of one sign, each to the smallest, and the
/// ratio common to exact coefficients, negative when every coefficient is;
/// then `poly` divided by it.
fn common_factor(poly: &Poly) -> (Coef, Monomial, Poly) {
    let first = &poly.terms[0].0;
    let mut factor: Monomial = vec![];
    for &(atom, e) in first {
        let mut least = e;
        let shared = poly.terms[1..].iter().all(|(m, _)| {
            m.iter().find(|(a, _)| *a == atom).is_some_and(|&(_, f)| {
                least = if e > 0.0 { least.min(f) } else { least.max(f) };
                (f > 0.0) == (e > 0.0)
            })
        });
        if shared {
            factor.push((atom, least));
        }
    }
    let ratios: Option<Vec<(i64, i64)>> = (poly.terms.iter())
        .map(|(_, c)| match c {
            Coef::Ratio(n, d) => Some((*n, *d)),
            Coef::Real(_) => None,
        })
        .collect();
    // The greatest common divisor of the numerators over the least common
    // multiple of the denominators (`x / 2 + 1 / 2` is `(x + 1) / 2`).
    let mut c = ratios
        .and_then(|rs| {
            let n = rs.iter().fold(0u128, |g, (n, _)| gcd(g, n.unsigned_abs() as u128));
            let d = rs.iter().try_fold(1u128, |l, (_, d)| {
                let d = *d as u128;
                (l / gcd(l, d)).checked_mul(d).filter(|m| *m < EXACT as u128)
            })?;
            Coef::ratio(n as i128, d as i128)
        })
        .unwrap_or(Coef::ONE);
    if poly.terms.iter().all(|(_, c)| c.is_negative()) {
        c = c.neg();
    }
    let inverse_m: Monomial = factor.iter().map(|&(a, e)| (a, -e)).collect();
    let inverse_c = c.recip().expect("a gcd of nonzero coefficients");
    let rest =
        Poly { terms: poly.terms.iter().map(|(m, d)| (times(m, &inverse_m), d.mul(inverse_c))).collect() };
    (c, factor, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The collected form of an expression, printed.
    fn collected(source: &str) -> String {
        let program = frontend::parse_expr(source).expect("valid");
        let root = program.outputs[0].node;
        let (dag, pairs) = alternatives(&program.dag, &[root]);
        let node = pairs.iter().find(|(o, _)| *o == root).map_or(root, |p| p.1);
        frontend::print_expr(&dag, node, &program.inputs)
    }

    #[test]
    fn like_terms_collect_and_common_factors_come_first() {
        assert_eq!(
            collected("exp(x) * (2 * cos(x) - 3 * sin(x) + sin(x))"),
            "2 * exp(x) * (cos(x) - sin(x))"
        );
        assert_eq!(collected("x * 2 + 3 * x"), "5 * x");
        assert_eq!(collected("x / 6 - x / 3"), "-(x / 6)");
        assert_eq!(collected("(2 * x)^3 / 4"), "2 * x^3");
        assert_eq!(collected("x - x"), "0");
        assert_eq!(collected("sin(x + x) * y - y * sin(2 * x)"), "0");
        assert_eq!(collected("0.1 * x + 0.2 * x"), "0.30000000000000004 * x");
    }

    #[test]
    fn exact_ratios_and_doubles() {
        assert_eq!(Coef::of(3.0), Coef::Ratio(3, 1));
        assert_eq!(Coef::of(-0.75), Coef::Ratio(-3, 4));
        assert_eq!(Coef::of(0.1), Coef::Real(0.1));
        assert_eq!(Coef::Ratio(1, 6).add(Coef::Ratio(1, 3)), Coef::Ratio(1, 2));
        assert_eq!(Coef::Ratio(1, 3).mul(Coef::Ratio(3, 1)), Coef::ONE);
        let huge = Coef::Ratio(1 << 52, 1).mul(Coef::Ratio(1 << 52, 1));
        assert_eq!(huge, Coef::Real(2f64.powi(104)));
        assert_eq!(Coef::Ratio(2, 3).powi(-2), Some(Coef::Ratio(9, 4)));
        assert_eq!(Coef::Ratio(0, 1).recip(), None);
    }
}
