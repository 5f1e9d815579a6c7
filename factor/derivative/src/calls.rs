//! Derivatives through calls: a function's derivative ([`Derivative`]) is
//! built once, by D* on its body, and every call of it reads its entries as
//! the labels of the edges from the call's arguments to its results
//! ([`partials`]). The derivative of a derivative (for
//! Hessians) is built the same way, one level down the chain.

use crate::factorize::{factorize, Orientation, Strategy};
use crate::graph::DerivativeGraph;
use crate::partials::Partials;
use frontend::call::callees_first;
use frontend::{CallOut, Derivative, ExprDag, FunctionDef, Kernel, SparsityPattern};
use smallvec::SmallVec;
use std::sync::Arc;

/// Builds the derivative chains of `function` and of every function it
/// calls, to any depth, down to `level`: the callees first, so that
/// building one derivative never waits on (or recurses into) another.
/// 1,000 functions each calling the one before are built by a loop.
pub fn prepare(function: &Arc<FunctionDef>, level: u32) {
    if built_to(function, level) {
        return;
    }
    let order = callees_first(vec![Arc::clone(function)], |f| {
        f.body().dag().sites().iter().map(|site| Arc::clone(&site.function)).collect()
    });
    for f in &order {
        let mut current = Arc::clone(f);
        for _ in 0..level {
            let next = Arc::clone(&current.derivative(derivative_of).function);
            current = next;
        }
    }
}

/// Whether `function`'s chain is built down to `level`.
fn built_to(function: &Arc<FunctionDef>, level: u32) -> bool {
    let mut current = Arc::clone(function);
    for _ in 0..level {
        match current.built_derivative() {
            Some(d) => current = Arc::clone(&d.function),
            None => return false,
        }
    }
    true
}

/// The derivative of `function`: its body's Jacobian by D*, the fewer
/// operations of the two orientations (forward on ties), its entries
/// appended to the results. The functions it calls must have theirs
/// ([`prepare`]).
pub fn derivative_of(function: &FunctionDef) -> Derivative {
    let body = function.body();
    let (n, m) = (body.num_inputs(), body.num_outputs());
    let mut best: Option<(usize, Kernel, SparsityPattern)> = None;
    for orientation in [Orientation::Forward, Orientation::Reverse] {
        let mut kernel = body.clone();
        let graph = DerivativeGraph::new(&mut kernel);
        let (mut dag, roots) = kernel.into_parts();
        let entries = factorize(&mut dag, &graph, Strategy { orientation, factored: true }, &|_, _| true);
        let pattern = SparsityPattern::new(m, n, entries.iter().map(|e| (e.row, e.col)));
        let roots: Vec<_> = roots.into_iter().chain(entries.iter().map(|e| e.node)).collect();
        let ops = dag.count_ops(&roots);
        if best.as_ref().is_none_or(|(fewest, ..)| ops < *fewest) {
            let kernel = Kernel::new(dag, roots, n).expect("entries are built from the body's arguments");
            best = Some((ops, kernel, pattern));
        }
    }
    let (_, kernel, pattern) = best.expect("two orientations were tried");
    let mut results = function.results().to_vec();
    for row in 0..m {
        for &col in &pattern.cols[pattern.row_offsets[row]..pattern.row_offsets[row + 1]] {
            results.push(format!("d{}_d{}", function.results()[row], function.args()[col]));
        }
    }
    let name = format!("{}'", function.name());
    let derived = FunctionDef::new(name, function.args().to_vec(), results, kernel);
    Derivative { function: Arc::new(derived), pattern }
}

/// The partials of result `c.out` of a call: entries of the called
/// function's derivative, which the site then calls.
/// An entry that is a constant in the derivative's body is that constant
/// here (`∂(x + 0.1·y)/∂x = 1`), which the accumulations fold.
pub fn partials(dag: &mut ExprDag, c: CallOut) -> Partials {
    let site = dag.site(c.site).clone();
    // The level at which this result first appears: its row there.
    let (mut function, mut level) = (Arc::clone(&site.function), 0);
    while c.out as usize >= function.results().len() {
        let next = Arc::clone(&function.built_derivative().expect("the site's levels are built").function);
        (function, level) = (next, level + 1);
    }
    prepare(&site.function, level + 1);
    let derivative = function.derivative(derivative_of);
    let (offset, pattern) = (function.results().len(), &derivative.pattern);
    let body = derivative.function.body();
    let row = c.out as usize;
    let mut p: Partials = SmallVec::from_elem(None, site.args.len());
    let mut raised = false;
    for k in pattern.row_offsets[row]..pattern.row_offsets[row + 1] {
        let col = pattern.cols[k];
        if dag.as_const(site.args[col]).is_some() {
            continue;
        }
        p[col] = match body.dag().as_const(body.roots()[offset + k]) {
            Some(0.0) => None,
            Some(v) => Some(dag.constant(v)),
            None => {
                if !raised {
                    dag.raise(c.site, level + 1);
                    raised = true;
                }
                Some(dag.call_out(c.site, offset + k))
            }
        };
    }
    p
}
