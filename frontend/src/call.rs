//! Functions and their calls: what keeps a model repeated `N` times one
//! body and `N` call sites instead of `N` copies.
//!
//! A [`FunctionDef`] is a named [`Kernel`] (its inputs the arguments, its
//! roots the results). A call is a [`Site`] of an [`ExprDag`]: the function
//! and the argument nodes, stored once per distinct call; each result used
//! is a node `Op::Call(CallOut { site, out })`, whose arguments are the
//! site's ([`ExprDag::args`]), so every walk over a DAG sees what a result
//! depends on.
//!
//! Derivatives go through calls by the function's own derivatives: the
//! [`Derivative`] of a function is the function again with the nonzero
//! entries of its Jacobian as more results, built once per function
//! (by `derivative::calls`), and the derivative of its derivative is built
//! the same way. A site calls one of that chain, its *level*: level 0 the
//! function itself, level `l + 1` the derivative of level `l`. Each level's
//! results start with the level below's, so raising a site's level keeps
//! every result it had, and one call per site computes everything a kernel
//! reads from it.

use crate::dag::{ExprDag, NodeId};
use crate::kernel::Kernel;
use crate::layout::SparsityPattern;
use crate::op::Op;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Result `out` of the call at `site` of its DAG.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallOut {
    /// The call site, an index into [`ExprDag::sites`](crate::ExprDag::sites).
    pub site: u32,
    /// Which result of the called function (of the site's level).
    pub out: u32,
}

/// A function of a program: `name(args) -> (results)`, its body a kernel
/// over the arguments (inputs `0..args.len()`, all variables) computing the
/// results in order. Its body may call functions defined before it.
pub struct FunctionDef {
    name: String,
    args: Vec<String>,
    results: Vec<String>,
    body: Kernel,
    derivative: OnceLock<Derivative>,
}

/// The derivative of a function: the function with the nonzero entries of
/// its Jacobian (results × arguments, CSR order) appended to its results.
#[derive(Debug)]
pub struct Derivative {
    /// The function computing the results, then the entries.
    pub function: Arc<FunctionDef>,
    /// Where the entries are: `pattern` of `results × args`.
    pub pattern: SparsityPattern,
}

impl FunctionDef {
    /// The function `name(args) -> (results)` computed by `body`, whose
    /// inputs are the arguments and whose roots are the results. Panics if
    /// the counts disagree.
    pub fn new(name: String, args: Vec<String>, results: Vec<String>, body: Kernel) -> FunctionDef {
        assert_eq!(body.num_inputs(), args.len(), "{name}: a body input per argument");
        assert_eq!(body.num_outputs(), results.len(), "{name}: a body root per result");
        let body = body.with_variables(args.len());
        FunctionDef { name, args, results, body, derivative: OnceLock::new() }
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The argument names, in order.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The result names, in order.
    pub fn results(&self) -> &[String] {
        &self.results
    }

    /// The body: inputs are the arguments, roots the results.
    pub fn body(&self) -> &Kernel {
        &self.body
    }

    /// The derivative, built by `build` on first use and kept: every
    /// caller of one function shares it.
    pub fn derivative(&self, build: impl FnOnce(&FunctionDef) -> Derivative) -> &Derivative {
        self.derivative.get_or_init(|| build(self))
    }

    /// The derivative if it was built.
    pub fn built_derivative(&self) -> Option<&Derivative> {
        self.derivative.get()
    }

    /// The function `level` steps down the derivative chain (0: this one).
    /// Panics if a step was not built: sites are raised only after it.
    pub fn level(self: &Arc<Self>, level: u32) -> Arc<FunctionDef> {
        let mut f = Arc::clone(self);
        for _ in 0..level {
            let next = f.built_derivative().expect("a site's level is built before it is raised");
            f = Arc::clone(&next.function);
        }
        f
    }
}

impl fmt::Debug for FunctionDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}) -> ({})", self.name, self.args.join(", "), self.results.join(", "))
    }
}

/// A function's identity: the same definition, however many handles share
/// it, and different definitions however alike. The one key every table of
/// functions uses (their names, their compiled code, their counts), taken
/// while the table holds the function, so that its address is not reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(usize);

impl FunctionId {
    /// The identity of `function` (an `&Arc<FunctionDef>` gives its
    /// definition's).
    pub fn of(function: &FunctionDef) -> FunctionId {
        FunctionId(function as *const FunctionDef as usize)
    }
}

/// A call in a DAG: `function` (of the chain's `level`) applied to `args`.
#[derive(Clone, Debug)]
pub struct Site {
    /// The function called (level 0 of the chain).
    pub function: Arc<FunctionDef>,
    /// Which function of its derivative chain the site calls.
    pub level: u32,
    /// The argument nodes, one per argument of the function.
    pub args: Box<[NodeId]>,
    /// The node of result 0 and how many results were made with it, at
    /// consecutive ids outside the hash-cons table
    /// ([`ExprDag::call`](crate::ExprDag::call) makes a new site's results
    /// together: a call costs no probe per result); `(NONE, 0)` where they
    /// were made one by one.
    pub(crate) results: (NodeId, u32),
}

impl Site {
    /// The function this site calls: its level of the chain.
    pub fn called(&self) -> Arc<FunctionDef> {
        self.function.level(self.level)
    }
}

/// `start` and every function they call, to any depth, each once, callees
/// before callers; `calls(f)` lists the functions `f`'s body calls. A loop,
/// not recursion: 1,000 functions each calling the one before keep the
/// stack flat.
pub fn callees_first(
    start: Vec<Arc<FunctionDef>>,
    calls: impl Fn(&FunctionDef) -> Vec<Arc<FunctionDef>>,
) -> Vec<Arc<FunctionDef>> {
    let mut order = vec![];
    let mut seen: std::collections::HashSet<FunctionId> = std::collections::HashSet::new();
    let mut stack: Vec<(Arc<FunctionDef>, bool)> = start.into_iter().rev().map(|f| (f, false)).collect();
    while let Some((f, expanded)) = stack.pop() {
        if expanded {
            order.push(f);
            continue;
        }
        if !seen.insert(FunctionId::of(&f)) {
            continue;
        }
        stack.push((Arc::clone(&f), true));
        for g in calls(&f).into_iter().rev() {
            if !seen.contains(&FunctionId::of(&g)) {
                stack.push((g, false));
            }
        }
    }
    order
}

/// The functions `roots` of `dag` call, to any depth, and `also`, callees
/// before callers, each once.
pub fn called_functions(dag: &ExprDag, roots: &[NodeId], also: &[Arc<FunctionDef>]) -> Vec<Arc<FunctionDef>> {
    let reached = |dag: &ExprDag, roots: &[NodeId]| -> Vec<Arc<FunctionDef>> {
        dag.reached_sites(roots).into_iter().map(|s| dag.site(s).called()).collect()
    };
    let mut start = also.to_vec();
    start.extend(reached(dag, roots));
    callees_first(start, |f| reached(f.body().dag(), f.body().roots()))
}

/// `roots` of `dag` with every call written out: the bodies inlined (and
/// theirs, to any depth), node for node, into a new DAG. Values are those of
/// the calls bit for bit: the bodies' operations are copied, not folded.
pub fn inline(dag: &ExprDag, roots: &[NodeId]) -> (ExprDag, Vec<NodeId>) {
    let mut out = ExprDag::new();
    let roots = crate::copy::copy(&mut out, dag, roots, None, crate::copy::Calls::Inline);
    (out, roots)
}

/// `kernel` with its calls of small functions ([`is_small`]) written out
/// (the same values, bit for bit) where the code around those calls is a
/// fair part of the kernel: at least an eighth of its operations. Compiled
/// kernels are (the JIT asks), and so are the bodies of the functions they
/// call. A chain of 1,000 calls of a 6-operation step (3 arguments, 2
/// results) ran in 21 µs called and 10.6 µs written out, its Jacobian in
/// 29 µs and 16.5 µs. Where the calls are a small part, as in the Hessian
/// of that chain (2.5 M operations), copying the kernel would cost more
/// set-up (0.7 s) than the calls cost it.
pub fn small_calls_written_out(kernel: &Kernel) -> std::borrow::Cow<'_, Kernel> {
    use std::borrow::Cow;
    if !kernel.has_calls() {
        return Cow::Borrowed(kernel);
    }
    let (dag, roots) = (kernel.dag(), kernel.roots());
    let small: std::collections::HashSet<FunctionId> =
        called_functions(dag, roots, &[]).iter().filter(|f| is_small(f)).map(|f| FunctionId::of(f)).collect();
    let glue: u64 = dag
        .reached_sites(roots)
        .into_iter()
        .map(|s| dag.site(s).called())
        .filter(|f| small.contains(&FunctionId::of(f)))
        .map(|f| glue(f.body()))
        .sum();
    if small.is_empty() || 8 * glue < kernel.count_ops() as u64 {
        return Cow::Borrowed(kernel);
    }
    Cow::Owned(kernel.inlined_if(&|f| small.contains(&FunctionId::of(f))))
}

/// Whether `function`, its calls written out, is no bigger than the code
/// that calls it: a call stores its arguments, loads its results (in the
/// callee as well), and enters and leaves a frame, about
/// `2 (arguments + results) + 8` instructions.
pub fn is_small(function: &FunctionDef) -> bool {
    let body = function.body();
    inlined_ops(body.dag(), body.roots()) <= glue(body)
}

/// About the instructions of a call of `body` ([`is_small`]).
fn glue(body: &Kernel) -> u64 {
    2 * (body.num_inputs() + body.num_outputs()) as u64 + 8
}

/// The operations of `roots` of `dag` with every call written out (what
/// [`inline`] would build, without building it): each function's count is
/// computed once.
pub fn inlined_ops(dag: &ExprDag, roots: &[NodeId]) -> u64 {
    let mut memo = std::collections::HashMap::new();
    inlined_ops_memo(dag, roots, &mut memo)
}

/// [`inlined_ops`] of each root on its own, in time proportional to the
/// DAG's size once plus the sum of the roots' cones (not the DAG's size
/// per root: a model's thousands of outputs).
pub fn inlined_ops_each(dag: &ExprDag, roots: &[NodeId]) -> Vec<u64> {
    const NONE: u32 = u32::MAX;
    let mut memo = std::collections::HashMap::new();
    let mut seen = vec![NONE; dag.len()];
    let mut site_seen = vec![NONE; dag.sites().len()];
    let mut stack = Vec::new();
    let mut each = Vec::with_capacity(roots.len());
    for (i, &root) in roots.iter().enumerate() {
        let i = u32::try_from(i).expect("fewer than 2^32 roots");
        let mut ops = 0;
        seen[root.index()] = i;
        stack.push(root);
        while let Some(id) = stack.pop() {
            match dag.op(id) {
                Op::Call(c) if site_seen[c.site as usize] != i => {
                    site_seen[c.site as usize] = i;
                    ops += body_ops(&dag.site(c.site).called(), &mut memo);
                }
                Op::Call(_) | Op::Const(_) | Op::Input(_) => {}
                _ => ops += 1,
            }
            for &a in dag.args(id) {
                if seen[a.index()] != i {
                    seen[a.index()] = i;
                    stack.push(a);
                }
            }
        }
        each.push(ops);
    }
    each
}

fn inlined_ops_memo(
    dag: &ExprDag,
    roots: &[NodeId],
    memo: &mut std::collections::HashMap<FunctionId, u64>,
) -> u64 {
    // One pass over what `roots` reach: its operations, and its sites.
    let reach = dag.reachable(roots);
    let mut ops = 0u64;
    let mut sites = Vec::new();
    for id in dag.ids().filter(|id| reach[id.index()]) {
        match dag.op(id) {
            Op::Call(c) => sites.push(c.site),
            op if op.is_leaf() => {}
            _ => ops += 1,
        }
    }
    sites.sort_unstable();
    sites.dedup();
    for site in sites {
        ops += body_ops(&dag.site(site).called(), memo);
    }
    ops
}

/// [`inlined_ops`] of `called`'s body, counted once per function.
fn body_ops(called: &FunctionDef, memo: &mut std::collections::HashMap<FunctionId, u64>) -> u64 {
    let key = FunctionId::of(called);
    if let Some(&ops) = memo.get(&key) {
        return ops;
    }
    let ops = inlined_ops_memo(called.body().dag(), called.body().roots(), memo);
    memo.insert(key, ops);
    ops
}
