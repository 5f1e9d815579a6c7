//! Maps: a kernel's outputs as one body evaluated at many instances, found
//! in the DAG whoever wrote it (calls in a loop, or the same expression
//! written out `N` times).
//!
//! Each output is a sum of *terms*: the output itself, or, where its
//! top-level sum (through `+`, `-`, negation and products with a constant)
//! has at least [`MapRules::split_terms`] terms, each of them with its
//! coefficient. Terms that share an operation or a call site belong to one
//! *instance*; instances equal up to a renaming of their inputs and
//! parameters (the same operations, constants, functions and coefficients
//! in the same order) form a [`Map`] of one body, when there are at least
//! [`MapRules::min_instances`] of them. A node that reads no variable (a
//! constant or parameter expression) is no one's: every instance using it
//! gets its own copy. So is a cheap one that many operations read
//! ([`MapRules::copy_ops`]), or it is computed once, before the maps, and
//! read by the instances as an argument ([`MapRules::compute_common`],
//! [`Decomposition::computed`]).
//!
//! A map is a *strided* or *gathered* argument per input of its body (the
//! global input each instance reads, [`Map::leaves`]; a *shared* argument is
//! the same input for every instance) and results *added* into outputs
//! ([`Map::targets`]: a row per instance, or one output summed over all of
//! them). What no map computes stays in [`Decomposition::rest`].
//!
//! Derivatives of a map are maps ([`MapKernel`]): the body's Jacobian or
//! Hessian, built once, evaluated per instance and added at positions
//! computed from the leaves, affine in the instance where they can be
//! ([`Column::Affine`]), a table otherwise. Adding reorders sums: an output
//! split into terms may differ from the written-out program in its last
//! bits (fixed and deterministic: see [`MapKernel`]).
//!
//! Every step is linear in the DAG: each node is owned by the first term
//! that reaches it, and the copies of unowned nodes are bounded by
//! [`MapRules::work`].

use crate::call::{CallOut, FunctionDef, FunctionId};
use crate::dag::{ExprDag, Node, NodeId};
use crate::kernel::Kernel;
use crate::op::{Op, Real};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// When a repetition is a map: the thresholds live in `factor::plan`.
#[derive(Clone, Copy, Debug)]
pub struct MapRules {
    /// An output's top-level sum is split into its terms from this many terms.
    pub split_terms: usize,
    /// A map has at least this many instances.
    pub min_instances: usize,
    /// A value that reads a variable and that at least `copy_uses`
    /// operations use is copied into each instance using it (never shared
    /// between them, so it does not make them one) if it costs at most
    /// `copy_ops` operations: `exp(q)` of a mixture's weights, read by
    /// every data point's term.
    pub copy_uses: usize,
    /// See `copy_uses`.
    pub copy_ops: usize,
    /// Whether such a common value (one `copy_uses` operations read) is
    /// computed once, before the maps, and read by each instance as an
    /// argument (its adjoint summed over them), rather than copied.
    pub compute_common: bool,
    /// Whether constants are taken out of the bodies: instances that differ
    /// only in their constants (data written into a program, as in
    /// `gen.py --flat` files and `.nl` files) are then one map, each
    /// instance reading its own values of the constants that differ
    /// ([`Decomposition::constants`]); constants all instances agree on
    /// stay in the body, and so do exponents (`x^2` stays a square).
    pub lift_constants: bool,
    /// Work the search may do, in nodes visited: past it, no map.
    pub work: usize,
}

/// A body evaluated at `instances` instances, its results added into outputs.
#[derive(Clone, Debug)]
pub struct Map {
    /// Inputs: the leaves of one instance, its variables first, then its
    /// parameters; outputs: one per term.
    pub body: Kernel,
    /// How many instances.
    pub instances: usize,
    /// Row `i` (of `body.num_inputs()`): the kernel input each input of
    /// the body reads for instance `i`: variables, then computed values
    /// (numbered from the kernel's `num_inputs()` on: value `k -
    /// num_inputs()` of [`Decomposition::computed`]), then parameters,
    /// then constants taken out of the body (numbered after the computed
    /// values: value `k - num_inputs() - computed values` of
    /// [`Decomposition::constants`]).
    pub leaves: Vec<u32>,
    /// Row `i` (of `body.num_outputs()`): the output each result of
    /// instance `i` is added into.
    pub targets: Vec<u32>,
}

/// A kernel as maps plus the rest: output `o` is `rest`'s output `o` plus
/// every map result targeting `o`.
#[derive(Clone, Debug)]
pub struct Decomposition {
    /// The kernel's inputs and outputs, without what the maps compute.
    pub rest: Kernel,
    /// The maps, in the order of their first instance.
    pub maps: Vec<Map>,
    /// The values computed once and read by instances as arguments (over
    /// the kernel's inputs; see [`MapRules::compute_common`]).
    pub computed: Option<Kernel>,
    /// The values of constants taken out of the bodies, read by the
    /// instances after the computed values ([`MapRules::lift_constants`]).
    pub constants: Vec<f64>,
}

impl Decomposition {
    /// Operations one evaluation computes with every call written out
    /// ([`crate::call::inlined_ops`]): the rest's, the computed values',
    /// and each map's body once per instance.
    pub fn written_out_ops(&self) -> u64 {
        written_out(&self.rest) + self.computed.as_ref().map_or(0, written_out) + self.mapped_ops()
    }

    /// Operations the maps compute, with every call written out.
    pub fn mapped_ops(&self) -> u64 {
        self.maps.iter().map(|m| m.instances as u64 * written_out(&m.body)).sum()
    }
}

/// The operations of `kernel` with every call written out.
pub fn written_out(kernel: &Kernel) -> u64 {
    crate::call::inlined_ops(kernel.dag(), kernel.roots())
}

/// `kernel` as maps and a rest, if `rules` find at least one map.
pub fn decompose(kernel: &Kernel, rules: &MapRules) -> Option<Decomposition> {
    let dag = kernel.dag();
    let uses = dag.use_counts(kernel.roots());
    let terms = terms(kernel, &uses, rules);
    let share = shared(dag, &uses, kernel.num_variables(), rules);
    let instances = instances(dag, &terms, &share);
    let shapes = Shapes::of(kernel, &terms, &instances, &share, rules)?;
    let mut mapped = vec![false; terms.len()];
    let mut maps = Vec::new();
    let mut constants = Vec::new();
    for group in shapes.groups(rules.min_instances) {
        maps.push(shapes.map(dag, &terms, &instances, &group, &mut constants));
        for &c in &group {
            for &t in &instances[c] {
                mapped[t] = true;
            }
        }
    }
    if maps.is_empty() {
        return None;
    }
    let rest = rest(kernel, &terms, &mapped);
    let computed = (!shapes.computed.is_empty()).then(|| {
        let mut computed = ExprDag::new();
        let roots = computed.import(dag, &shapes.computed, None);
        Kernel::new(computed, roots, kernel.num_inputs())
            .expect("the kernel's inputs")
            .with_variables(kernel.num_variables())
    });
    Some(Decomposition { rest, maps, computed, constants })
}

/// How a node is held by the instances reading it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Share {
    /// By the instance whose term reaches it first; a second instance
    /// reaching it joins that one.
    Owned,
    /// Copied into every instance reading it.
    Copied,
    /// Computed once, before the maps, and read as an argument.
    Computed,
    /// An input or a constant: a leaf of every instance reading it. Kept
    /// here so that walking an instance tells a leaf from this array
    /// alone, without reading the node (the DAG's nodes are megabytes).
    Leaf,
}

/// A term of an output: `coefficient * node`.
#[derive(Clone, Copy, Debug)]
struct Term {
    output: u32,
    coefficient: f64,
    node: NodeId,
    /// Whether its output was split (else the term is the whole output).
    split: bool,
}

/// Every output's terms, outputs in order.
fn terms(kernel: &Kernel, uses: &[u32], rules: &MapRules) -> Vec<Term> {
    let dag = kernel.dag();
    let mut terms = Vec::new();
    let mut work = 0;
    // One pair of buffers for every output (a model of 10^5 intervals has
    // 4 * 10^5 outputs).
    let (mut parts, mut stack) = (Vec::new(), Vec::new());
    for (o, &root) in kernel.roots().iter().enumerate() {
        let output = u32::try_from(o).expect("fewer than 2^32 outputs");
        let budget = rules.work.saturating_sub(work);
        match split_sum(dag, uses, root, budget, &mut parts, &mut stack) {
            Some(()) if parts.len() >= rules.split_terms => {
                work += parts.len();
                terms.extend(parts.iter().map(|&(coefficient, node)| Term {
                    output,
                    coefficient,
                    node,
                    split: true,
                }));
            }
            _ => terms.push(Term { output, coefficient: 1.0, node: root, split: false }),
        }
    }
    terms
}

/// The terms of the sum at `root` into `parts`, left to right, through
/// `+`, `-`, negation and products with a constant that nothing else uses
/// (a node used twice is a term: its value is computed once); `None` past
/// `budget` terms. `stack` is room to work in.
fn split_sum(
    dag: &ExprDag,
    uses: &[u32],
    root: NodeId,
    budget: usize,
    parts: &mut Vec<(f64, NodeId)>,
    stack: &mut Vec<(f64, NodeId)>,
) -> Option<()> {
    parts.clear();
    stack.clear();
    stack.push((1.0, root));
    while let Some((c, id)) = stack.pop() {
        let args = dag.args(id);
        if id != root && uses[id.index()] > 1 {
            parts.push((c, id));
            continue;
        }
        match dag.op(id) {
            Op::Add => stack.extend([(c, args[1]), (c, args[0])]),
            Op::Sub => stack.extend([(-c, args[1]), (c, args[0])]),
            Op::Neg => stack.push((-c, args[0])),
            Op::Mul if dag.as_const(args[0]).is_some() && dag.as_const(args[1]).is_none() => {
                stack.push((c * dag.as_const(args[0]).unwrap_or(1.0), args[1]));
            }
            Op::Mul if dag.as_const(args[1]).is_some() && dag.as_const(args[0]).is_none() => {
                stack.push((c * dag.as_const(args[1]).unwrap_or(1.0), args[0]));
            }
            _ => parts.push((c, id)),
        }
        if parts.len() + stack.len() > budget {
            return None;
        }
    }
    Some(())
}

/// How each node is held: a constant or parameter expression is copied
/// into every instance reading it; so is a cheap value many operations use
/// ([`MapRules::copy_ops`]; a call's result copies the call: its cost is
/// the function's written out, its uses all its results' uses), or it is
/// computed once ([`MapRules::compute_common`]); the rest is owned.
fn shared(dag: &ExprDag, uses: &[u32], num_variables: usize, rules: &MapRules) -> Vec<Share> {
    let expensive = rules.copy_ops + 1;
    let mut reads = vec![false; dag.len()];
    let mut ops = vec![0usize; dag.len()];
    let mut shared = vec![Share::Owned; dag.len()];
    let mut site_uses = vec![0u32; dag.sites().len()];
    for id in dag.ids() {
        if let Op::Call(c) = dag.op(id) {
            site_uses[c.site as usize] += uses[id.index()];
        }
    }
    let mut function_ops: FxHashMap<FunctionId, usize> = FxHashMap::default();
    for id in dag.ids() {
        let i = id.index();
        let args = dag.args(id);
        let (own, used) = match dag.op(id) {
            Op::Call(c) => {
                let function = dag.site(c.site).called();
                let ops = *function_ops.entry(FunctionId::of(&function)).or_insert_with(|| {
                    let body = function.body();
                    usize::try_from(crate::call::inlined_ops(body.dag(), body.roots())).unwrap_or(usize::MAX)
                });
                (ops, site_uses[c.site as usize])
            }
            _ => (1, uses[i]),
        };
        (reads[i], ops[i]) = match dag.op(id) {
            Op::Input(k) => ((k as usize) < num_variables, 0),
            Op::Const(_) => (false, 0),
            _ => (
                args.iter().any(|a| reads[a.index()]),
                args.iter().fold(own.min(expensive), |n, a| (n + ops[a.index()]).min(expensive)),
            ),
        };
        let cheap_and_common = used as usize >= rules.copy_uses && ops[i] <= rules.copy_ops;
        shared[i] = match (reads[i], cheap_and_common) {
            _ if dag.op(id).is_leaf() => Share::Leaf,
            (false, _) => Share::Copied,
            (true, true) if rules.compute_common => Share::Computed,
            (true, true) => Share::Copied,
            (true, false) => Share::Owned,
        };
    }
    shared
}

/// The terms grouped into instances: terms reaching a common operation
/// (one not `shared`) or call site are one instance, and a term reaching
/// none joins its output's instance where the output has one. Each list in
/// term order; instances in the order of their first term.
fn instances(dag: &ExprDag, terms: &[Term], shared: &[Share]) -> Vec<Vec<usize>> {
    const NONE: u32 = u32::MAX;
    let mut owner = vec![NONE; dag.len()];
    let mut site_owner = vec![NONE; dag.sites().len()];
    let mut sets = UnionFind::new(terms.len());
    let mut stack = Vec::new();
    // The terms that read an operation of their own, and the others.
    let (mut owning, mut bare) = (Vec::new(), Vec::new());
    for (t, term) in terms.iter().enumerate() {
        stack.push(term.node);
        let mut owns = false;
        while let Some(id) = stack.pop() {
            if shared[id.index()] != Share::Owned {
                continue;
            }
            owns = true;
            if owner[id.index()] != NONE {
                sets.union(t, owner[id.index()] as usize);
                continue;
            }
            owner[id.index()] = t as u32;
            if let Op::Call(c) = dag.op(id) {
                let site = &mut site_owner[c.site as usize];
                if *site == NONE {
                    *site = t as u32;
                } else {
                    sets.union(t, *site as usize);
                }
            }
            // Only what a term can own: leaves and shared values are passed
            // over anyway, and they are most of a call's arguments.
            let owned = |a: &&NodeId| shared[a.index()] == Share::Owned;
            stack.extend(dag.args(id).iter().filter(owned));
        }
        if owns {
            owning.push(t);
        } else {
            bare.push(t);
        }
    }
    // A term that owns nothing (an input, `c*x`, `-x`: a defect's `- x[k+1]`)
    // joins its output's instance where the output's terms that own
    // something are one instance (a defect), rather than making a map of its
    // own of one input per instance; in a sum over many instances it stays
    // apart, so that they stay alike.
    let mut instance_of: FxHashMap<u32, Option<usize>> = FxHashMap::default();
    for t in owning {
        let set = sets.find(t);
        let one = instance_of.entry(terms[t].output).or_insert(Some(set));
        if *one != Some(set) {
            *one = None;
        }
    }
    for t in bare {
        if let Some(&Some(set)) = instance_of.get(&terms[t].output) {
            sets.union(t, set);
        }
    }
    let mut index = vec![NONE; terms.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for t in 0..terms.len() {
        let root = sets.find(t);
        if index[root] == NONE {
            index[root] = groups.len() as u32;
            groups.push(Vec::new());
        }
        groups[index[root] as usize].push(t);
    }
    groups
}

/// Disjoint sets of terms.
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind((0..n).collect())
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        // The smaller root wins: the result does not depend on the order of unions.
        let (low, high) = (a.min(b), a.max(b));
        self.0[high] = low;
    }
}

/// What makes two instances the same up to their leaves: the operations in
/// post-order (inputs as their placeholder, call sites numbered within the
/// instance), the arguments as positions in that order, the functions
/// called, and each term's node, coefficient and result (the first of
/// the instance's terms with the same output: they are added in the body).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
struct Shape {
    ops: Vec<Op>,
    args: Vec<u32>,
    functions: Vec<(FunctionId, u32)>,
    terms: Vec<(u32, u64, u32)>,
}

impl Shape {
    fn clear(&mut self) {
        self.ops.clear();
        self.args.clear();
        self.functions.clear();
        self.terms.clear();
    }
}

/// Whether the shape reads `id`'s two arguments the other way round, so
/// that the order does not depend on when their nodes were made.
/// Hash-consing puts a commutative operation's lower node id first, and a
/// literal's node is made where it is first written: in the first interval
/// of a written-out model `0.05*t` has its arguments the other way round
/// from every later interval's, which made that instance a shape of its own
/// (`gen.py cartpole 1000 --flat`: 999 intervals mapped, the first compiled
/// apart). A constant comes first; swapping the arguments of a commutative
/// operation never changes its value. `constant` marks the constants.
fn swapped(dag: &ExprDag, constant: &[bool], id: NodeId) -> bool {
    let args = dag.args(id);
    dag.op(id).is_commutative() && constant[args[1].index()] && !constant[args[0].index()]
}

/// `args` in the order [`swapped`] says.
fn in_order(args: &[NodeId], swap: bool) -> impl DoubleEndedIterator<Item = NodeId> + '_ {
    let n = args.len();
    (0..n).map(move |k| args[if swap { n - 1 - k } else { k }])
}

/// Each instance's shape, in canonical form, with what rebuilding it needs.
struct Shapes {
    /// Per instance: its shape's index in `distinct`.
    shape_of: Vec<usize>,
    distinct: Vec<Shape>,
    /// Per instance: the kernel inputs its placeholders stand for,
    /// variables, then computed values (numbered from the kernel's
    /// `num_inputs()`), then parameters.
    leaves: Vec<Vec<u32>>,
    /// Per instance: the number of variable and computed placeholders.
    variables: Vec<usize>,
    /// Per instance: its nodes in post-order (as the shape numbers them),
    /// computed values as leaves.
    nodes: Vec<Vec<NodeId>>,
    /// The computed values instances read, in the order first read.
    computed: Vec<NodeId>,
    /// By node: its index in `computed`.
    computed_index: FxHashMap<NodeId, u32>,
    /// The kernel's `num_inputs()`: where computed values' numbers start.
    num_inputs: u32,
    /// Per instance: the constants taken out of it, in post-order
    /// ([`MapRules::lift_constants`]).
    constants: Vec<Vec<NodeId>>,
}

impl Shapes {
    /// The shapes of `instances`; `None` past `rules.work` nodes visited.
    fn of(
        kernel: &Kernel,
        terms: &[Term],
        instances: &[Vec<usize>],
        share: &[Share],
        rules: &MapRules,
    ) -> Option<Shapes> {
        let dag = kernel.dag();
        let num_variables = kernel.num_variables();
        let mut local = vec![u32::MAX; dag.len()];
        let mut stamp = vec![u32::MAX; dag.len()];
        let mut shapes = Shapes {
            shape_of: Vec::with_capacity(instances.len()),
            distinct: Vec::new(),
            leaves: Vec::with_capacity(instances.len()),
            variables: Vec::with_capacity(instances.len()),
            nodes: Vec::with_capacity(instances.len()),
            computed: Vec::new(),
            computed_index: FxHashMap::default(),
            num_inputs: u32::try_from(kernel.num_inputs()).expect("fewer than 2^32 inputs"),
            constants: Vec::with_capacity(instances.len()),
        };
        let lifted = liftable(dag, rules.lift_constants);
        let constant: Vec<bool> = dag.ids().map(|id| matches!(dag.op(id), Op::Const(_))).collect();
        let mut index: FxHashMap<Shape, usize> = FxHashMap::default();
        let mut work = 0usize;
        let mut stack = Vec::new();
        // One set of buffers for every instance (10^4 gmm points: 11
        // allocations each, and their growth, were a third of the search);
        // what an instance keeps is copied out at its size.
        let mut shape = Shape::default();
        let (mut vars, mut params, mut nodes) = (Vec::new(), Vec::new(), Vec::new());
        let (mut computed, mut constants) = (Vec::new(), Vec::new());
        let mut sites: FxHashMap<u32, u32> = FxHashMap::default();
        // Per output: the instance's result adding into it.
        let mut results: FxHashMap<u32, u32> = FxHashMap::default();
        for (i, members) in instances.iter().enumerate() {
            shape.clear();
            vars.clear();
            params.clear();
            computed.clear();
            nodes.clear();
            constants.clear();
            sites.clear();
            results.clear();
            for &t in members {
                // Visits `id` (its arguments visited): numbers it and adds
                // it to the shape. A leaf or computed value has no
                // arguments in the shape.
                macro_rules! visit {
                    ($id:expr, $swap:expr, $is_computed:expr) => {{
                        let (id, swap, is_computed): (NodeId, bool, bool) = ($id, $swap, $is_computed);
                        work += 1;
                        if work > rules.work {
                            return None;
                        }
                        stamp[id.index()] = i as u32;
                        local[id.index()] = nodes.len() as u32;
                        nodes.push(id);
                        let op = match dag.op(id) {
                            _ if is_computed => {
                                let next = shapes.computed.len() as u32;
                                let c = *shapes.computed_index.entry(id).or_insert(next);
                                if c == next {
                                    shapes.computed.push(id);
                                }
                                computed.push(shapes.num_inputs + c);
                                Op::Input(COMPUTED_PLACEHOLDER + computed.len() as u32 - 1)
                            }
                            Op::Input(k) if (k as usize) < num_variables => {
                                vars.push(k);
                                Op::Input(vars.len() as u32 - 1)
                            }
                            Op::Input(k) => {
                                params.push(k);
                                Op::Input(PARAM_PLACEHOLDER + params.len() as u32 - 1)
                            }
                            Op::Const(_) if lifted[id.index()] => {
                                constants.push(id);
                                Op::Input(CONSTANT_PLACEHOLDER + constants.len() as u32 - 1)
                            }
                            Op::Call(c) => {
                                let site = dag.site(c.site);
                                let next = sites.len() as u32;
                                let numbered = *sites.entry(c.site).or_insert(next);
                                shape.functions.push((FunctionId::of(&site.function), site.level));
                                Op::Call(CallOut { site: numbered, out: c.out })
                            }
                            op => op,
                        };
                        shape.ops.push(op);
                        if !is_computed && !op.is_leaf() {
                            shape.args.extend(in_order(dag.args(id), swap).map(|a| local[a.index()]));
                        }
                    }};
                }
                stack.push((terms[t].node, false, false));
                while let Some((id, expanded, swap)) = stack.pop() {
                    if stamp[id.index()] == i as u32 {
                        continue;
                    }
                    let is_computed = share[id.index()] == Share::Computed;
                    if expanded || is_computed || share[id.index()] == Share::Leaf {
                        visit!(id, swap, is_computed);
                        continue;
                    }
                    // Arguments first, in order. Leaves and computed values
                    // have none to visit before them, so those at the front
                    // are visited here, in the order the stack would give
                    // them: every instance meets all the shared arguments
                    // of its calls, and they are most of a call's.
                    let swap = swapped(dag, &constant, id);
                    stack.push((id, true, swap));
                    let args = dag.args(id);
                    let at = |k: usize| args[if swap { args.len() - 1 - k } else { k }];
                    let mut k = 0;
                    while k < args.len() {
                        let a = at(k);
                        if stamp[a.index()] != i as u32 {
                            let a_computed = share[a.index()] == Share::Computed;
                            if !a_computed && share[a.index()] != Share::Leaf {
                                break;
                            }
                            visit!(a, false, a_computed);
                        }
                        k += 1;
                    }
                    stack.extend(
                        (k..args.len())
                            .rev()
                            .map(at)
                            .filter(|a| stamp[a.index()] != i as u32)
                            .map(|a| (a, false, false)),
                    );
                }
                let next = results.len() as u32;
                let result = *results.entry(terms[t].output).or_insert(next);
                shape.terms.push((local[terms[t].node.index()], terms[t].coefficient.to_bits(), result));
            }
            let s = match index.get(&shape) {
                Some(&s) => s,
                None => {
                    let s = shapes.distinct.len();
                    index.insert(shape.clone(), s);
                    shapes.distinct.push(Shape::default());
                    s
                }
            };
            shapes.shape_of.push(s);
            shapes.variables.push(vars.len() + computed.len());
            shapes.leaves.push([&vars[..], &computed, &params].concat());
            shapes.nodes.push(nodes.clone());
            shapes.constants.push(constants.clone());
        }
        Some(shapes)
    }

    /// The instances of each shape repeated at least `min` times, by first instance.
    fn groups(&self, min: usize) -> Vec<Vec<usize>> {
        let mut by_shape: Vec<Vec<usize>> = vec![Vec::new(); self.distinct.len()];
        for (i, &s) in self.shape_of.iter().enumerate() {
            by_shape[s].push(i);
        }
        by_shape.into_iter().filter(|g| g.len() >= min.max(2)).collect()
    }

    /// The map of the instances `group` (one shape): the body rebuilt from
    /// its first instance, the leaves and targets of each. Constants taken
    /// out that differ between the instances are body inputs, their values
    /// appended to `constants`; the others are put back.
    fn map(
        &self,
        dag: &ExprDag,
        terms: &[Term],
        instances: &[Vec<usize>],
        group: &[usize],
        constants: &mut Vec<f64>,
    ) -> Map {
        let first = group[0];
        let variables = self.variables[first];
        let value = |i: usize, c: usize| dag.as_const(self.constants[i][c]).map(f64::to_bits);
        let differ: Vec<usize> = (0..self.constants[first].len())
            .filter(|&c| group.iter().any(|&i| value(i, c) != value(first, c)))
            .collect();
        let mut body = ExprDag::new();
        let mut rebuilt: FxHashMap<NodeId, NodeId> = FxHashMap::default();
        let position =
            |k: u32| self.leaves[first].iter().position(|&l| l == k).expect("a placeholder per leaf");
        for (d, &c) in differ.iter().enumerate() {
            let input = body.input(self.leaves[first].len() + d);
            rebuilt.insert(self.constants[first][c], input);
        }
        for &id in &self.nodes[first] {
            if let Some(&c) = self.computed_index.get(&id) {
                rebuilt.insert(id, body.input(position(self.num_inputs + c)));
                continue;
            }
            if rebuilt.contains_key(&id) {
                continue; // a constant that differs: an input
            }
            let args: Vec<NodeId> = dag.args(id).iter().map(|a| rebuilt[a]).collect();
            let new = match dag.op(id) {
                Op::Input(k) => body.input(position(k)),
                Op::Call(c) => {
                    let site = dag.site(c.site);
                    let function: &Arc<FunctionDef> = &site.function;
                    body.call_at_level(function, site.level, &args, c.out as usize)
                }
                op => body.intern(Node::new(op, &args)),
            };
            rebuilt.insert(id, new);
        }
        // One result per output the instance adds into: its terms there, added in order.
        let mut roots: Vec<NodeId> = Vec::new();
        // The position of each result's first term in the instance.
        let mut first_terms: Vec<usize> = Vec::new();
        let mut result: FxHashMap<u32, usize> = FxHashMap::default();
        for (k, &t) in instances[first].iter().enumerate() {
            let term = scaled(&mut body, terms[t].coefficient, rebuilt[&terms[t].node]);
            match result.get(&terms[t].output) {
                Some(&r) => roots[r] = body.intern(Node::new(Op::Add, &[roots[r], term])),
                None => {
                    result.insert(terms[t].output, roots.len());
                    roots.push(term);
                    first_terms.push(k);
                }
            }
        }
        let num_inputs = self.leaves[first].len() + differ.len();
        let body = Kernel::new(body, roots, num_inputs)
            .expect("the body reads its placeholders")
            .with_variables(variables);
        let from = self.num_inputs as usize + self.computed.len();
        let mut leaves = Vec::with_capacity(group.len() * num_inputs);
        for &i in group {
            leaves.extend_from_slice(&self.leaves[i]);
            for &c in &differ {
                leaves.push(u32::try_from(from + constants.len()).expect("fewer than 2^32 inputs"));
                constants.push(dag.as_const(self.constants[i][c]).expect("a constant"));
            }
        }
        // Each result's output: its first term's (at the same position in
        // every instance of one shape).
        let targets = group
            .iter()
            .flat_map(|&i| first_terms.iter().map(move |&k| terms[instances[i][k]].output))
            .collect();
        Map { body, instances: group.len(), leaves, targets }
    }
}

/// `coefficient * node`, as the sum it came from wrote it: `node` for 1,
/// `-node` for -1.
fn scaled(dag: &mut ExprDag, coefficient: f64, node: NodeId) -> NodeId {
    if coefficient == 1.0 {
        node
    } else if coefficient == -1.0 {
        dag.intern(Node::new(Op::Neg, &[node]))
    } else {
        let c = dag.intern(Node::new(Op::Const(Real::new(coefficient)), &[]));
        dag.intern(Node::new(Op::Mul, &[c, node]))
    }
}

/// Parameters' placeholders are numbered from here in shapes, apart from
/// the variables'.
const PARAM_PLACEHOLDER: u32 = 1 << 31;

/// Computed values' placeholders are numbered from here in shapes.
const COMPUTED_PLACEHOLDER: u32 = 1 << 30;

/// Placeholders of constants taken out of instances are numbered from here.
const CONSTANT_PLACEHOLDER: u32 = PARAM_PLACEHOLDER + COMPUTED_PLACEHOLDER;

/// Per node: whether it is a constant `lift` takes out of instances
/// ([`MapRules::lift_constants`]): every constant but exponents, which
/// lowering turns into cheaper operations (`x^2` into `x*x`), and zeros,
/// whose partials are structural zeros (`b*0` has no entry for `b` in the
/// Jacobian's pattern, `b*t` has): an instance with a zero keeps it and is
/// an instance of its own.
fn liftable(dag: &ExprDag, lift: bool) -> Vec<bool> {
    let mut liftable = vec![false; dag.len()];
    if lift {
        for id in dag.ids() {
            liftable[id.index()] = matches!(dag.op(id), Op::Const(c) if c.get() != 0.0);
        }
        for id in dag.ids().filter(|&id| dag.op(id) == Op::Pow) {
            liftable[dag.args(id)[1].index()] = false;
        }
    }
    liftable
}

/// The kernel with the terms `mapped` taken out of its outputs: an output
/// none of whose terms is mapped keeps its root; the others are the sum of
/// what is left, in order (0 if nothing). A DAG of its own, holding only
/// what its outputs reach, so that later stages cost what is left.
fn rest(kernel: &Kernel, terms: &[Term], mapped: &[bool]) -> Kernel {
    let outputs = kernel.num_outputs();
    let mut kept = Vec::new();
    let mut touched = vec![false; outputs];
    for (term, &is_mapped) in terms.iter().zip(mapped) {
        touched[term.output as usize] |= is_mapped || term.split;
    }
    for (o, &root) in kernel.roots().iter().enumerate() {
        if !touched[o] {
            kept.push(root);
        }
    }
    kept.extend(
        terms.iter().zip(mapped).filter(|(t, &m)| !m && touched[t.output as usize]).map(|(t, _)| t.node),
    );
    let mut dag = ExprDag::new();
    let imported = dag.import(kernel.dag(), &kept, None);
    let (whole, parts) = imported.split_at(outputs - touched.iter().filter(|&&t| t).count());
    let (mut whole, mut parts) = (whole.iter(), parts.iter());
    let mut sums: Vec<Option<NodeId>> = vec![None; outputs];
    for (term, &is_mapped) in terms.iter().zip(mapped) {
        let o = term.output as usize;
        if is_mapped || !touched[o] {
            continue;
        }
        let value = scaled(&mut dag, term.coefficient, *parts.next().expect("a node per kept term"));
        sums[o] = Some(match sums[o] {
            None => value,
            Some(sum) => dag.intern(Node::new(Op::Add, &[sum, value])),
        });
    }
    let roots = (0..outputs)
        .map(|o| match (touched[o], sums[o]) {
            (false, _) => *whole.next().expect("a node per untouched output"),
            (true, Some(sum)) => sum,
            (true, None) => dag.constant(0.0),
        })
        .collect();
    Kernel::new(dag, roots, kernel.num_inputs())
        .expect("the kernel's inputs")
        .with_variables(kernel.num_variables())
}

/// Where instance `i`'s value `j` goes: `base + step * i`, or a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// `base + step * i`.
    Affine {
        /// At instance 0.
        base: u32,
        /// Per instance.
        step: i64,
    },
    /// One entry per instance.
    Table(Vec<u32>),
}

impl Column {
    /// The column of `values` (one per instance): affine if they are.
    pub fn of(values: Vec<u32>) -> Column {
        let at = |i: usize| i64::from(values[i]);
        let step = if values.len() > 1 { at(1) - at(0) } else { 0 };
        if (0..values.len()).all(|i| at(i) == at(0) + step * i as i64) {
            Column::Affine { base: values.first().copied().unwrap_or(0), step }
        } else {
            Column::Table(values)
        }
    }

    /// The same value for every instance: a shared input, a summed output.
    pub fn constant(&self) -> Option<u32> {
        match self {
            Column::Affine { base, step: 0 } => Some(*base),
            _ => None,
        }
    }
}

/// A table of `instances` rows of `width` indices, kept a column at a time,
/// affine columns as two numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// One per position in a row.
    pub columns: Vec<Column>,
}

impl Columns {
    /// The table whose row `i` is `rows[i * width..(i + 1) * width]`.
    pub fn new(rows: &[u32], width: usize) -> Columns {
        let instances = rows.len().checked_div(width).unwrap_or(0);
        let columns =
            (0..width).map(|j| Column::of((0..instances).map(|i| rows[i * width + j]).collect())).collect();
        Columns { columns }
    }

    /// Entry `j` of row `i`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> usize {
        match &self.columns[j] {
            Column::Affine { base, step } => (i64::from(*base) + step * i as i64) as usize,
            Column::Table(t) => t[i] as usize,
        }
    }

    /// Indices stored in tables (affine columns store none).
    pub fn table_len(&self) -> usize {
        self.columns.iter().map(|c| if let Column::Table(t) = c { t.len() } else { 0 }).sum()
    }
}

/// One map of a [`MapKernel`]: `body` evaluated per instance on inputs
/// gathered from the kernel's input, its outputs added into the kernel's.
#[derive(Clone, Debug)]
pub struct Piece {
    /// The per-instance kernel (one input array).
    pub body: Kernel,
    /// How many instances.
    pub instances: usize,
    /// Row `i`: where each body input is in the kernel's input.
    pub gather: Columns,
    /// Row `i`: where each body output is added in the kernel's output.
    pub places: Columns,
}

/// A kernel computed as `rest` plus maps (a derivative of a
/// [`Decomposition`]), in this order:
/// 1. `pre` computes values appended to the input, and `constants` follow
///    them (what pieces gather past the input: shared computed arguments,
///    data taken out of the bodies);
/// 2. the output and `scratch` slots after it start at zero;
/// 3. `rest`'s outputs (over the input alone) are added at `rest_places`;
/// 4. each piece's outputs are added at its places (in the output or the
///    scratch slots: adjoints of computed values); an output whose place
///    is the same for every instance is summed over the instances first,
///    in two sums, one of the even instances and one of the odd ones, each
///    in order, and the two sums' sum added (compiled, two instances run
///    at once, one per SIMD lane, each lane adding into a sum of its own);
/// 5. `post` reads the input, the computed values and the scratch slots,
///    and its outputs are added at its places (chaining the summed
///    adjoints through the computed values).
#[derive(Clone, Debug)]
pub struct MapKernel {
    /// Values computed once, over the kernel's input.
    pub pre: Option<Kernel>,
    /// Constants the pieces read after `pre`'s values (data taken out of
    /// the bodies: [`Decomposition::constants`]).
    pub constants: Vec<f64>,
    /// Over the kernel's input.
    pub rest: Kernel,
    /// Where each output of `rest` is added.
    pub rest_places: Vec<u32>,
    /// The maps.
    pub pieces: Vec<Piece>,
    /// Slots after the output that pieces add into and `post` reads.
    pub scratch: usize,
    /// Over the input, `pre`'s values and the scratch slots.
    pub post: Option<Post>,
    /// Length of the output.
    pub num_outputs: usize,
}

/// The last step of a [`MapKernel`]: a kernel and where its outputs are added.
#[derive(Clone, Debug)]
pub struct Post {
    /// Input: the kernel's input, the computed values, the scratch slots.
    pub kernel: Kernel,
    /// Where each output is added in the kernel's output.
    pub places: Vec<u32>,
}

impl MapKernel {
    /// The output at `input` by the interpreter: what compiled map kernels
    /// are checked against, bit for bit.
    pub fn eval(&self, input: &[f64]) -> Vec<f64> {
        let mut extended = input.to_vec();
        if let Some(pre) = &self.pre {
            extended.extend(pre.eval(input));
        }
        let computed = extended.len();
        extended.extend_from_slice(&self.constants);
        let mut out = vec![0.0; self.num_outputs + self.scratch];
        for (value, &at) in self.rest.eval(input).into_iter().zip(&self.rest_places) {
            out[at as usize] += value;
        }
        for piece in &self.pieces {
            let mut gathered = vec![0.0; piece.body.num_inputs()];
            // Outputs at a place the same for every instance: summed over
            // the even instances and over the odd ones, then both added.
            let mut sums = vec![[0.0; 2]; piece.body.num_outputs()];
            for i in 0..piece.instances {
                for (j, g) in gathered.iter_mut().enumerate() {
                    *g = extended[piece.gather.get(i, j)];
                }
                for (j, value) in piece.body.eval(&gathered).into_iter().enumerate() {
                    match piece.places.columns[j].constant() {
                        Some(_) => sums[j][i % 2] += value,
                        None => out[piece.places.get(i, j)] += value,
                    }
                }
            }
            for (j, [even, odd]) in sums.into_iter().enumerate() {
                if let Some(at) = piece.places.columns[j].constant() {
                    out[at as usize] += even + odd;
                }
            }
        }
        if let Some(post) = &self.post {
            extended.truncate(computed);
            extended.extend_from_slice(&out[self.num_outputs..]);
            for (value, &at) in post.kernel.eval(&extended).into_iter().zip(&post.places) {
                out[at as usize] += value;
            }
        }
        out.truncate(self.num_outputs);
        out
    }

    /// Length of the input (the rest's).
    pub fn num_inputs(&self) -> usize {
        self.rest.num_inputs()
    }

    /// Operations per evaluation: the rest's, `pre`'s and `post`'s, each
    /// body's once per instance.
    pub fn count_ops(&self) -> usize {
        let once = |k: &Option<Kernel>| k.as_ref().map_or(0, Kernel::count_ops);
        self.rest.count_ops()
            + once(&self.pre)
            + self.post.as_ref().map_or(0, |p| p.kernel.count_ops())
            + self.pieces.iter().map(|p| p.instances * p.body.count_ops()).sum::<usize>()
    }
}
