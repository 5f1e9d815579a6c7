//! The hash-consed expression DAG shared by every stage.

use crate::call::{CallOut, FunctionDef, FunctionId, Site};
use crate::op::{Op, Real};
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::fmt;
use std::hash::BuildHasher;
use std::sync::Arc;

/// Index of a node in an [`ExprDag`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// Marks the unused argument slots of a [`Node`].
    pub(crate) const NONE: NodeId = NodeId(u32::MAX);

    /// The id as an index into per-node arrays.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of the node at `index`.
    pub fn from_index(index: usize) -> NodeId {
        NodeId(u32::try_from(index).expect("ExprDag holds at most 2^32 - 1 nodes"))
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.0)
    }
}

/// One operation applied to earlier nodes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Node {
    /// The operation.
    pub op: Op,
    slots: [NodeId; 4],
}

impl Node {
    /// A node applying `op` to `args`. Panics if `args.len() != op.arity()`:
    /// callers build nodes from checked arities.
    pub fn new(op: Op, args: &[NodeId]) -> Node {
        assert_eq!(args.len(), op.arity(), "{} takes {} arguments", op.name(), op.arity());
        // By length: a copy of a length unknown here, loop or
        // `copy_from_slice`, is a call to `memmove` (a tenth of parsing a
        // written-out model).
        let none = NodeId::NONE;
        let slots = match *args {
            [] => [none; 4],
            [a] => [a, none, none, none],
            [a, b] => [a, b, none, none],
            [a, b, c] => [a, b, c, none],
            [a, b, c, d] => [a, b, c, d],
            _ => unreachable!("no operation takes more than 4 arguments"),
        };
        Node { op, slots }
    }

    /// The arguments, `op.arity()` of them.
    pub fn args(&self) -> &[NodeId] {
        &self.slots[..self.op.arity()]
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}{:?}", self.op, self.args())
    }
}

/// A hash-consed expression DAG.
///
/// Nodes are append-only and every node's arguments are created before it, so
/// ascending [`NodeId`]s are a topological order (children before parents) and
/// walks over the DAG are loops over ids, never recursion. Structurally equal
/// nodes are stored once. [`ExprDag::apply`] canonicalizes commutative
/// operands, folds constants and applies only identities that give the same
/// IEEE result for every input, NaN and infinities included:
///
/// | rewrite | why it is exact |
/// |---|---|
/// | `x*1`, `x/1`, `x^1` → `x` | multiplying by one is exact, also for NaN, ±inf, ±0 |
/// | `x*(-1)`, `x/(-1)` → `-x` | sign flip is exact |
/// | `x - 0` → `x`, `x + (-0)` → `x` | (`x + 0` is not: `-0 + 0 = +0`) |
/// | `-(-x)` → `x` | |
/// | `x^0` → `1` | C99 `pow(x, ±0) = 1` for every `x`, NaN included |
/// | `ifelse(c, x, x)` → `x` | both branches equal |
///
/// `x*0 → 0`, `x - x → 0` and `x/x → 1` are *not* applied: they are wrong for
/// NaN and infinities. Each `ExprDag` owns its hash-cons table; there is no
/// global state.
///
/// Calls of functions ([`crate::call`]) are stored once per distinct
/// function and arguments, as [`Site`]s; a result of one is a node
/// `Op::Call`, whose arguments ([`ExprDag::args`]) are its site's.
#[derive(Clone, Default)]
pub struct ExprDag {
    nodes: Vec<Node>,
    /// The hash-cons table: ids of `nodes`, each with 32 bits of its node's
    /// hash, so probing and growing rarely touch `nodes` itself. Eight bytes
    /// a slot: on million-node DAGs interning is bound by cache misses.
    table: HashTable<(NodeId, u32)>,
    /// The call sites, in the order they were made.
    sites: Vec<Site>,
    /// The site of each function (by address) and argument list: ids of
    /// `sites`, each with its hash (growing never hashes an argument list
    /// again).
    site_table: HashTable<(u32, u64)>,
    /// Per node: whether it or a node below it (not inside a called
    /// function) is a `Select`, kept as nodes are interned.
    select_below: Vec<bool>,
    /// The node of input `k` at `inputs[k]` ([`NodeId::NONE`] where there
    /// is none), outside the table: a model's inputs are half its names,
    /// and an index costs no probe. An input whose index is far past the
    /// DAG's size ([`ExprDag::indexed`]) is hashed instead, so a small DAG
    /// over inputs numbered to millions keeps a small array.
    inputs: Vec<NodeId>,
    /// One past the largest index of an input node (0 without inputs),
    /// kept as nodes are made: [`ExprDag::inputs_below`].
    inputs_below: u32,
    /// Whether the table holds an input that could later be kept by index
    /// (one below `2^28`): until it does, an input missing from `inputs` is
    /// not a node, and finding one takes no probe.
    hashed_inputs: bool,
    /// Per node: the one node that reads it, [`NodeId::NONE`] if none does
    /// yet, or [`MANY`] if two or more do. A node equal to a new one reads
    /// all its arguments, so an argument read by no node, or by one, settles
    /// a lookup without the table. Only a node whose arguments all have two
    /// readers or more (or which has none) is in the table, put there when
    /// its last argument gains a second reader: in written-out code most
    /// values are read once, and most nodes never touch the table, whose
    /// probes on million-node DAGs miss the cache.
    readers: Vec<NodeId>,
}

/// In [`ExprDag::readers`], an argument read by two or more nodes: node 0,
/// which reads nothing (a node's arguments come before it).
const MANY: NodeId = NodeId(0);

/// What the readers of a node's arguments say of the node.
enum Known {
    /// This node, the one reader of an argument, is equal to it.
    Found(NodeId),
    /// No node is equal to it: an argument is read by no node, or by one
    /// that differs.
    New,
    /// Every argument has two readers or more (or there are none): the
    /// table knows.
    Ask,
}

impl ExprDag {
    /// An empty DAG.
    pub fn new() -> ExprDag {
        ExprDag::default()
    }

    /// Makes room for `additional` more nodes.
    pub fn reserve(&mut self, additional: usize) {
        self.reserve_split(additional, additional);
    }

    /// Makes room for `nodes` more nodes, of which the hash table holds
    /// `distinct` more without growing. The arrays' room costs nothing
    /// until used; the table's is written when reserved.
    pub fn reserve_split(&mut self, nodes: usize, distinct: usize) {
        self.nodes.reserve(nodes);
        self.select_below.reserve(nodes);
        self.readers.reserve(nodes);
        self.table.reserve(distinct, |(_, hash)| spread(*hash));
    }

    /// One past the largest index of an input node of the DAG (0 if it
    /// has none), whether its roots reach it or not: O(1), kept as nodes
    /// are made. Below a kernel's number of inputs, no root can read an
    /// input out of range.
    pub fn inputs_below(&self) -> u32 {
        self.inputs_below
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether `id` or a node below it is a `Select` (an `ifelse`, or a
    /// partial of `min`, `max` or `ifelse`); calls are not looked into. O(1):
    /// kept as nodes are made.
    pub fn has_select_below(&self, id: NodeId) -> bool {
        self.select_below[id.index()]
    }

    /// Whether the DAG has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The operation of node `id`.
    pub fn op(&self, id: NodeId) -> Op {
        self.node(id).op
    }

    /// The arguments of node `id`: a call result's are its site's.
    pub fn args(&self, id: NodeId) -> &[NodeId] {
        let node = self.node(id);
        match node.op {
            Op::Call(c) => &self.sites[c.site as usize].args,
            _ => node.args(),
        }
    }

    /// The call sites, in the order they were made.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// The call site `site`.
    pub fn site(&self, site: u32) -> &Site {
        &self.sites[site as usize]
    }

    /// The results of `function` applied to `args` (nodes of this DAG, one
    /// per argument), one node per result; the same function applied to the
    /// same arguments is the same site. Panics on a wrong argument count.
    pub fn call(&mut self, function: &Arc<FunctionDef>, args: &[NodeId]) -> Vec<NodeId> {
        assert_eq!(args.len(), function.args().len(), "{}: an argument per parameter", function.name());
        let sites = self.sites.len();
        let site = self.site_of(function, 0, args);
        let results = function.results().len();
        if site as usize != sites {
            return (0..results).map(|out| self.call_out(site, out)).collect();
        }
        // A new site: none of its results can be a node yet.
        let first = NodeId::from_index(self.nodes.len());
        for out in 0..results {
            let out = u32::try_from(out).expect("fewer than 2^32 results");
            self.push(Node::new(Op::Call(CallOut { site, out }), &[]));
        }
        self.sites[site as usize].results = (first, u32::try_from(results).expect("fewer than 2^32 results"));
        (0..results).map(|out| NodeId::from_index(first.index() + out)).collect()
    }

    /// Result `out` of the call of `function`'s derivative chain at `level`
    /// or above on `args` (the site shared with any other such call).
    pub fn call_at_level(
        &mut self,
        function: &Arc<FunctionDef>,
        level: u32,
        args: &[NodeId],
        out: usize,
    ) -> NodeId {
        let site = self.site_of(function, level, args);
        self.call_out(site, out)
    }

    /// The node of result `out` of site `site` (of the function its level
    /// calls).
    pub fn call_out(&mut self, site: u32, out: usize) -> NodeId {
        let out = u32::try_from(out).expect("fewer than 2^32 results");
        self.intern(Node::new(Op::Call(CallOut { site, out }), &[]))
    }

    /// Has site `site` call at least level `level` of its function's
    /// derivative chain (which must be built): the results it had keep
    /// their numbers and values, more follow them.
    pub fn raise(&mut self, site: u32, level: u32) {
        let site = &mut self.sites[site as usize];
        site.level = site.level.max(level);
    }

    /// The site calling `function` at `level` or above on `args`, made if new.
    fn site_of(&mut self, function: &Arc<FunctionDef>, level: u32, args: &[NodeId]) -> u32 {
        assert!(
            args.iter().all(|a| a.index() < self.len()),
            "{}: arguments must be nodes of this DAG",
            function.name()
        );
        let id = FunctionId::of(function);
        let hash = FxBuildHasher.hash_one((id, args));
        let sites = &self.sites;
        let same = |&(site, h): &(u32, u64)| {
            let site = &sites[site as usize];
            h == hash && FunctionId::of(&site.function) == id && *site.args == *args
        };
        if let Some(&(site, _)) = self.site_table.find(hash, same) {
            self.raise(site, level);
            return site;
        }
        let site = u32::try_from(self.sites.len()).expect("fewer than 2^32 call sites");
        let results = (NodeId::NONE, 0);
        self.sites.push(Site { function: Arc::clone(function), level, args: args.into(), results });
        self.site_table.insert_unique(hash, (site, hash), |&(_, h)| h);
        site
    }

    /// All ids, in topological order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator {
        (0..self.len()).map(NodeId::from_index)
    }

    /// The value of a constant node.
    pub fn as_const(&self, id: NodeId) -> Option<f64> {
        match self.op(id) {
            Op::Const(c) => Some(c.get()),
            _ => None,
        }
    }

    /// Whether node `id` is the constant `value` (bitwise, so `0.0 != -0.0`).
    pub fn is_const(&self, id: NodeId, value: f64) -> bool {
        self.op(id) == Op::Const(Real::new(value))
    }

    /// Looks up an existing node without adding it.
    pub fn find(&self, node: &Node) -> Option<NodeId> {
        if let Some(id) = self.site_out(node) {
            return Some(id);
        }
        if let Op::Input(k) = node.op {
            if let Some(&id) = self.inputs.get(k as usize).filter(|&&id| id != NodeId::NONE) {
                return Some(id);
            }
            if k < 1 << 28 && !self.hashed_inputs {
                return None;
            }
        }
        match self.known(node) {
            Known::Found(id) => Some(id),
            Known::New => None,
            Known::Ask => {
                let hash = node_hash(node);
                self.table.find(spread(hash), |(id, _)| self.nodes[id.index()] == *node).map(|(id, _)| *id)
            }
        }
    }

    /// What the readers of `node`'s arguments say of it.
    #[inline]
    fn known(&self, node: &Node) -> Known {
        for a in node.args() {
            match self.readers[a.index()] {
                NodeId::NONE => return Known::New,
                MANY => {}
                only if self.nodes[only.index()] == *node => return Known::Found(only),
                _ => return Known::New,
            }
        }
        Known::Ask
    }

    /// Adds `node` as it is (after canonical operand order), or returns the
    /// id of the equal node already present. No folding, no identities.
    pub fn intern(&mut self, mut node: Node) -> NodeId {
        if node.op.is_commutative() && node.slots[1] < node.slots[0] {
            node.slots.swap(0, 1);
        }
        // Children before parents: a DAG with a dangling argument cannot be built.
        assert!(
            node.args().iter().all(|a| a.index() < self.len()),
            "{node:?}: arguments must be nodes of this DAG, created before their parent"
        );
        if let Some(id) = self.site_out(&node) {
            return id;
        }
        if let Some(k) = self.indexed(&node) {
            if let Some(id) = self.find(&node) {
                return id;
            }
            let id = self.push(node);
            self.index_input(k, id);
            return id;
        }
        match self.known(&node) {
            Known::Found(id) => return id,
            Known::New => {
                let id = self.push_read(node);
                if self.in_table(id) {
                    self.put_in_table(id);
                }
                return id;
            }
            Known::Ask => {}
        }
        let hash = node_hash(&node);
        // One probe: the slot found empty is the new node's.
        let ExprDag { nodes, table, .. } = self;
        let same = |(id, h): &(NodeId, u32)| *h == hash && nodes[id.index()] == node;
        match table.entry(spread(hash), same, |(_, h)| spread(*h)) {
            Entry::Occupied(entry) => entry.get().0,
            Entry::Vacant(entry) => {
                let id = NodeId::from_index(nodes.len());
                entry.insert((id, hash));
                if matches!(node.op, Op::Input(k) if k < 1 << 28) {
                    self.hashed_inputs = true;
                }
                self.push_read(node)
            }
        }
    }

    /// Appends `node`, which is new, read by no node yet.
    fn push(&mut self, node: Node) -> NodeId {
        let id = NodeId::from_index(self.nodes.len());
        if let Op::Input(k) = node.op {
            self.inputs_below = self.inputs_below.max(k.saturating_add(1));
        }
        let below =
            matches!(node.op, Op::Select(_)) || node.args().iter().any(|a| self.select_below[a.index()]);
        self.select_below.push(below);
        self.readers.push(NodeId::NONE);
        self.nodes.push(node);
        id
    }

    /// [`ExprDag::push`], then the node's arguments gain it as a reader. A
    /// reader already there becomes one of many, and goes into the table
    /// when that was the last of its arguments read once.
    fn push_read(&mut self, node: Node) -> NodeId {
        let id = self.push(node);
        for &a in node.args() {
            match self.readers[a.index()] {
                NodeId::NONE => self.readers[a.index()] = id,
                MANY => {}
                only if only == id => {}
                only => {
                    self.readers[a.index()] = MANY;
                    if self.in_table(only) {
                        self.put_in_table(only);
                    }
                }
            }
        }
        id
    }

    /// Whether node `id` belongs in the table: every argument has two
    /// readers or more (which [`ExprDag::known`] leaves to the table).
    fn in_table(&self, id: NodeId) -> bool {
        self.nodes[id.index()].args().iter().all(|a| self.readers[a.index()] == MANY)
    }

    /// Puts node `id`, which is not in the table, into it.
    fn put_in_table(&mut self, id: NodeId) {
        let node = &self.nodes[id.index()];
        if matches!(node.op, Op::Input(k) if k < 1 << 28) {
            self.hashed_inputs = true;
        }
        let hash = node_hash(node);
        self.table.insert_unique(spread(hash), (id, hash), |(_, h)| spread(*h));
    }

    /// The same DAG with input `k` renamed `rename(k)`, which must be
    /// one-to-one on the inputs present: every node keeps its id.
    pub fn renumber_inputs(mut self, rename: impl Fn(u32) -> u32) -> ExprDag {
        // In place: only the inputs' ops and hashes change, so only their
        // slots in the table or the index move (all out first, then all
        // in, as a new index may be an old one of another input).
        let inputs: Vec<NodeId> = self.ids().filter(|&id| matches!(self.op(id), Op::Input(_))).collect();
        for &id in &inputs {
            let node = &self.nodes[id.index()];
            if let Op::Input(k) = node.op {
                if self.inputs.get(k as usize) == Some(&id) {
                    self.inputs[k as usize] = NodeId::NONE;
                    continue;
                }
            }
            let hash = node_hash(node);
            let entry = self.table.find_entry(spread(hash), |(i, _)| *i == id);
            entry.expect("every node is in the table").remove();
        }
        self.inputs_below = 0;
        for &id in &inputs {
            let node = &mut self.nodes[id.index()];
            if let Op::Input(k) = node.op {
                let renamed = rename(k);
                node.op = Op::Input(renamed);
                self.inputs_below = self.inputs_below.max(renamed.saturating_add(1));
            }
            let node = &self.nodes[id.index()];
            if let Some(k) = self.indexed(node) {
                debug_assert!(self.find(node).is_none(), "a one-to-one renaming merges no nodes");
                self.index_input(k, id);
                continue;
            }
            let hash = node_hash(node);
            let nodes = &self.nodes;
            debug_assert!(
                self.table.find(spread(hash), |(i, _)| nodes[i.index()] == nodes[id.index()]).is_none(),
                "a one-to-one renaming merges no nodes"
            );
            self.put_in_table(id);
        }
        self
    }

    /// The index of input node `node` if it is kept by index: an input
    /// below the array's length, or below twice the DAG's size and `2^28`
    /// (parameters while parsing, from `2^31`, are hashed), so the array
    /// grows in proportion to the nodes.
    fn indexed(&self, node: &Node) -> Option<usize> {
        let Op::Input(k) = node.op else { return None };
        let k = k as usize;
        (k < self.inputs.len() || (k < 1 << 28 && k < 2 * self.nodes.len() + 1024)).then_some(k)
    }

    /// The node of call result `node` where it was made with its site's
    /// first results ([`ExprDag::call`]), which keeps it outside the table.
    fn site_out(&self, node: &Node) -> Option<NodeId> {
        let Op::Call(CallOut { site, out }) = node.op else { return None };
        let (first, made) = self.sites.get(site as usize)?.results;
        (out < made).then(|| NodeId::from_index(first.index() + out as usize))
    }

    /// Keeps input node `id` at index `k`.
    fn index_input(&mut self, k: usize, id: NodeId) {
        if self.inputs.len() <= k {
            self.inputs.resize((k + 1).max(2 * self.inputs.len()).min(1 << 28), NodeId::NONE);
        }
        self.inputs[k] = id;
    }

    /// The constant `value`.
    pub fn constant(&mut self, value: f64) -> NodeId {
        self.intern(Node::new(Op::Const(Real::new(value)), &[]))
    }

    /// The `k`-th input.
    pub fn input(&mut self, k: usize) -> NodeId {
        let k = u32::try_from(k).expect("input index fits in u32");
        self.intern(Node::new(Op::Input(k), &[]))
    }

    /// Applies `op` to `args`, folding constants and applying the exact
    /// identities listed on [`ExprDag`]. Panics on a wrong argument count.
    pub fn apply(&mut self, op: Op, args: &[NodeId]) -> NodeId {
        let node = Node::new(op, args);
        if let Some(id) = self.simplify(&node) {
            return id;
        }
        self.intern(node)
    }

    fn simplify(&mut self, node: &Node) -> Option<NodeId> {
        let args = node.args();
        let folds = !node.op.is_leaf() && !matches!(node.op, Op::Call(_));
        if folds && args.iter().all(|&a| self.as_const(a).is_some()) {
            let values: Vec<f64> = args.iter().map(|&a| self.as_const(a).unwrap_or(0.0)).collect();
            return Some(self.constant(node.op.eval(&values)));
        }
        let is = |dag: &ExprDag, i: usize, v: f64| dag.is_const(args[i], v);
        match node.op {
            Op::Mul if is(self, 1, 1.0) => Some(args[0]),
            Op::Mul if is(self, 0, 1.0) => Some(args[1]),
            Op::Mul if is(self, 1, -1.0) => Some(self.apply(Op::Neg, &[args[0]])),
            Op::Mul if is(self, 0, -1.0) => Some(self.apply(Op::Neg, &[args[1]])),
            Op::Div if is(self, 1, 1.0) => Some(args[0]),
            Op::Div if is(self, 1, -1.0) => Some(self.apply(Op::Neg, &[args[0]])),
            Op::Sub if is(self, 1, 0.0) => Some(args[0]),
            Op::Add if is(self, 1, -0.0) => Some(args[0]),
            Op::Add if is(self, 0, -0.0) => Some(args[1]),
            Op::Pow if is(self, 1, 1.0) => Some(args[0]),
            Op::Pow if is(self, 1, 0.0) || is(self, 1, -0.0) => Some(self.constant(1.0)),
            Op::Neg if self.op(args[0]) == Op::Neg => Some(self.args(args[0])[0]),
            Op::Select(cmp) => {
                if args[2] == args[3] {
                    return Some(args[2]);
                }
                match (self.as_const(args[0]), self.as_const(args[1])) {
                    (Some(a), Some(b)) => Some(if cmp.holds(a, b) { args[2] } else { args[3] }),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `a + b`
    pub fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(Op::Add, &[a, b])
    }

    /// `a - b`
    pub fn sub(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(Op::Sub, &[a, b])
    }

    /// `a * b`
    pub fn mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(Op::Mul, &[a, b])
    }

    /// `a / b`
    pub fn div(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(Op::Div, &[a, b])
    }

    /// `-a`
    pub fn neg(&mut self, a: NodeId) -> NodeId {
        self.apply(Op::Neg, &[a])
    }

    /// Copies the nodes that `roots` reach in `other` into `self` (sharing
    /// what is already here) and returns the roots' new ids. `inputs[k]` is
    /// the node that `other`'s input `k` becomes; pass `None` to keep inputs
    /// as inputs of the same index.
    pub fn import(&mut self, other: &ExprDag, roots: &[NodeId], inputs: Option<&[NodeId]>) -> Vec<NodeId> {
        crate::copy::copy(self, other, roots, inputs, crate::copy::Calls::Keep)
    }

    /// The indices `k` of the DAG's input nodes `Op::Input(k)`, ascending:
    /// the inputs a cone copied out on its own reads.
    pub fn input_indices(&self) -> Vec<u32> {
        let mut indices: Vec<u32> = self
            .ids()
            .filter_map(|id| match self.op(id) {
                Op::Input(k) => Some(k),
                _ => None,
            })
            .collect();
        indices.sort_unstable();
        indices
    }

    /// `reads[i]` tells whether node `i` is an input `k < n` or reads one
    /// through its arguments (calls' results through the call's
    /// arguments): the nodes that vary with the first `n` inputs.
    pub fn reads_inputs_below(&self, n: usize) -> Vec<bool> {
        let mut reads = vec![false; self.len()];
        for id in self.ids() {
            reads[id.index()] = match self.op(id) {
                Op::Input(k) => (k as usize) < n,
                _ => self.args(id).iter().any(|a| reads[a.index()]),
            };
        }
        reads
    }

    /// `reachable[i]` tells whether node `i` is reachable from `roots`.
    pub fn reachable(&self, roots: &[NodeId]) -> Vec<bool> {
        let mut reach = vec![false; self.len()];
        for r in roots {
            reach[r.index()] = true;
        }
        for id in self.ids().rev() {
            if reach[id.index()] {
                for a in self.args(id) {
                    reach[a.index()] = true;
                }
            }
        }
        reach
    }

    /// How many times each node is used as an argument by nodes reachable
    /// from `roots`, plus once per appearance in `roots`.
    pub fn use_counts(&self, roots: &[NodeId]) -> Vec<u32> {
        let reach = self.reachable(roots);
        let mut uses = vec![0u32; self.len()];
        for r in roots {
            uses[r.index()] += 1;
        }
        for id in self.ids().filter(|id| reach[id.index()]) {
            for a in self.args(id) {
                uses[a.index()] += 1;
            }
        }
        uses
    }

    /// Number of operations that `roots` reach, counting each `+ - * /`,
    /// negation and built-in function once; constants, inputs and the
    /// results of calls count zero (see [`Program::count_calls`](crate::Program::count_calls)).
    pub fn count_ops(&self, roots: &[NodeId]) -> usize {
        let reach = self.reachable(roots);
        self.ids()
            .filter(|id| reach[id.index()] && !self.op(*id).is_leaf() && !matches!(self.op(*id), Op::Call(_)))
            .count()
    }

    /// The call sites whose results `roots` reach, ascending.
    pub fn reached_sites(&self, roots: &[NodeId]) -> Vec<u32> {
        let reach = self.reachable(roots);
        let mut sites: Vec<u32> = self
            .ids()
            .filter(|id| reach[id.index()])
            .filter_map(|id| match self.op(id) {
                Op::Call(c) => Some(c.site),
                _ => None,
            })
            .collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }
}

/// 32 bits of a node's hash: what the table stores.
fn node_hash(node: &Node) -> u32 {
    let h = FxBuildHasher.hash_one(node);
    (h ^ (h >> 32)) as u32
}

/// The table's 64-bit hash, a function of the stored 32 bits alone so the
/// table can grow without rehashing nodes (the multiplier spreads them over
/// the high bits, which the table uses for its tags).
pub(crate) fn spread(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl fmt::Debug for ExprDag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.ids().map(|id| (id, self.node(id)))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn hash_consing_shares_equal_nodes() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let a = dag.mul(x, y);
        let b = dag.mul(y, x);
        assert_eq!(a, b, "commutative operands are canonicalized");
        let s1 = dag.apply(Op::Sin, &[a]);
        let s2 = dag.apply(Op::Sin, &[b]);
        assert_eq!(s1, s2);
        assert_eq!(dag.len(), 4);
        assert_ne!(dag.sub(x, y), dag.sub(y, x));
    }

    #[test]
    fn folds_constants_and_exact_identities_only() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let one = dag.constant(1.0);
        let zero = dag.constant(0.0);
        let two = dag.constant(2.0);
        let three = dag.constant(3.0);
        assert_eq!(dag.mul(x, one), x);
        assert_eq!(dag.div(x, one), x);
        assert_eq!(dag.sub(x, zero), x);
        let sum = dag.add(two, three);
        assert_eq!(dag.as_const(sum), Some(5.0));
        let nx = dag.neg(x);
        assert_eq!(dag.neg(nx), x);
        // Not exact for NaN, infinities or -0: must stay.
        assert_ne!(dag.mul(x, zero), zero);
        assert_ne!(dag.add(x, zero), x);
        assert_ne!(dag.sub(x, x), zero);
        assert_eq!(dag.apply(Op::Pow, &[x, zero]), one);
    }

    #[test]
    fn inputs_are_found_by_index_or_by_hash_alike() {
        // Small indices by index, one far past the DAG's size by hash, then
        // the array grown past it: every input found once, whichever holds it.
        let mut dag = ExprDag::new();
        let far = 5_000_000;
        let (a, b, c) = (dag.input(0), dag.input(far), dag.input(3));
        assert!(dag.inputs.len() < 10_000, "a small DAG keeps a small array");
        for _ in 0..3_000_000 {
            dag.push(Node::new(Op::Const(Real::new(0.0)), &[]));
        }
        let d = dag.input(far - 1);
        assert!(dag.inputs.len() >= far, "grown with the DAG");
        assert_eq!([dag.input(0), dag.input(far), dag.input(3), dag.input(far - 1)], [a, b, c, d]);
        for (k, id) in [(0, a), (far, b), (3, c), (far - 1, d)] {
            assert_eq!(dag.find(&Node::new(Op::Input(k as u32), &[])), Some(id));
        }
        // Renumbering swaps places between the two, and back.
        let swap = |k: u32| match k {
            0 => far as u32,
            k if k == far as u32 => 0,
            k => k + (1 << 30),
        };
        let dag = dag.renumber_inputs(swap);
        let find = |dag: &ExprDag, k: u32| dag.find(&Node::new(Op::Input(k), &[]));
        assert_eq!(find(&dag, far as u32), Some(a));
        assert_eq!(find(&dag, 0), Some(b));
        assert_eq!(find(&dag, 3 + (1 << 30)), Some(c));
        assert_eq!(find(&dag, 3), None);
        // The largest index follows the renaming, down as well as up.
        assert_eq!(dag.inputs_below(), (far as u32 - 1) + (1 << 30) + 1);
        let dag = dag.renumber_inputs(|k| k % 8);
        assert_eq!(dag.inputs_below(), 8);
    }

    #[test]
    fn inputs_below_is_one_past_the_largest_input_made() {
        let mut dag = ExprDag::new();
        assert_eq!(dag.inputs_below(), 0);
        dag.input(2);
        dag.intern(Node::new(Op::Input(9), &[]));
        assert_eq!(dag.inputs_below(), 10);
        dag.input(u32::MAX as usize);
        assert_eq!(dag.inputs_below(), u32::MAX, "saturates");
        let mut small = ExprDag::new();
        let z = small.input(4);
        small.add(z, z);
        assert_eq!(small.inputs_below(), 5);
        // A kernel over fewer inputs than an input the roots do not reach
        // is checked the slow way, and still fine.
        let y = small.input(0);
        assert!(crate::Kernel::new(small.clone(), vec![y], 1).is_ok());
        assert!(crate::Kernel::new(small, vec![y, NodeId::from_index(0)], 1).is_err());
    }

    #[test]
    fn call_results_are_one_node_each_however_they_are_asked_for() {
        // `call` makes a new site's results outside the table; every other
        // way of asking for them must find the same nodes.
        let mut body = ExprDag::new();
        let (a, b) = (body.input(0), body.input(1));
        let roots = vec![body.add(a, b), body.sub(a, b)];
        let body = crate::Kernel::new(body, roots, 2).expect("a body over its arguments");
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let f = Arc::new(FunctionDef::new("f".into(), names(&["a", "b"]), names(&["s", "d"]), body));
        let mut dag = ExprDag::new();
        let (x, y) = (dag.input(0), dag.input(1));
        // A site made one result at a time, then called whole.
        let late = dag.call_at_level(&f, 0, &[y, x], 1);
        let first = dag.call(&f, &[x, y]);
        assert_eq!(first[1].index(), first[0].index() + 1, "a new site's results are consecutive");
        let size = dag.len();
        assert_eq!(dag.call(&f, &[x, y]), first);
        assert_eq!(dag.call_at_level(&f, 0, &[x, y], 1), first[1]);
        let Op::Call(c) = dag.op(first[0]) else { panic!("a call result") };
        assert_eq!(dag.call_out(c.site, 1), first[1]);
        assert_eq!(dag.find(&Node::new(Op::Call(CallOut { site: c.site, out: 0 }), &[])), Some(first[0]));
        assert_eq!(dag.len(), size, "nothing made twice");
        let whole = dag.call(&f, &[y, x]);
        assert_eq!(whole[1], late);
        assert_eq!(dag.call(&f, &[y, x]), whole);
        assert_eq!(dag.len(), size + 1, "only the late site's first result is new");
    }

    #[test]
    fn ids_are_topological() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let s = dag.apply(Op::Sin, &[x]);
        let t = dag.mul(s, x);
        for id in dag.ids() {
            assert!(dag.args(id).iter().all(|a| *a < id));
        }
        assert_eq!(dag.count_ops(&[t]), 2);
        assert_eq!(dag.use_counts(&[t])[x.index()], 2);
    }

    #[test]
    fn import_shares_existing_nodes() {
        let mut a = ExprDag::new();
        let x = a.input(0);
        let s = a.apply(Op::Sin, &[x]);
        let mut b = ExprDag::new();
        let bx = b.input(0);
        let bs = b.apply(Op::Sin, &[bx]);
        let bc = b.apply(Op::Cos, &[bs]);
        let roots = a.import(&b, &[bs, bc], None);
        assert_eq!(roots[0], s);
        assert_eq!(a.len(), 3);
    }

    proptest::proptest! {
        /// Interning with readers (most nodes never in the table) gives
        /// the ids a map of every node made gives, and `find` answers as
        /// the map does, for nodes made and not made.
        #[test]
        fn readers_intern_as_a_map_of_every_node_does(
            steps in proptest::collection::vec(
                (0u8..8, 0usize..Op::ALL.len(), proptest::array::uniform4(0usize..64), 0u8..4),
                1..300,
            )
        ) {
            let mut dag = ExprDag::new();
            let mut all: HashMap<Node, NodeId> = HashMap::new();
            for (kind, op, picks, value) in steps {
                let len = dag.len();
                // Mostly among the last few nodes, so equal nodes are asked
                // for again, and arguments are read once, twice or more.
                let arg = |p: usize| NodeId::from_index(if p < 48 { len - 1 - p % len.min(6) } else { p % len });
                let mut node = match kind {
                    0 => Node::new(Op::Input(u32::from(value)), &[]),
                    1 => Node::new(Op::Input(3_000_000 + u32::from(value)), &[]),
                    2 => Node::new(Op::Const(Real::new(f64::from(value))), &[]),
                    _ if len == 0 => Node::new(Op::Input(1 << 31), &[]),
                    _ => {
                        let op = Op::ALL[op];
                        let args: Vec<NodeId> = picks[..op.arity()].iter().map(|&p| arg(p)).collect();
                        Node::new(op, &args)
                    }
                };
                if node.op.is_commutative() && node.slots[1] < node.slots[0] {
                    node.slots.swap(0, 1);
                }
                if kind == 7 && len > 0 {
                    // Asked for, not made.
                    let made = all.get(&node).copied();
                    proptest::prop_assert_eq!(dag.find(&node), made);
                    continue;
                }
                let id = dag.intern(node);
                let next = NodeId::from_index(all.len());
                let expected = *all.entry(node).or_insert(next);
                proptest::prop_assert_eq!(id, expected);
                proptest::prop_assert_eq!(dag.len(), all.len());
            }
            for (node, &id) in &all {
                proptest::prop_assert_eq!(dag.find(node), Some(id));
            }
        }
    }
}
