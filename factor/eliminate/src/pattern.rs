//! The structure of a linearized graph under elimination: which edges exist
//! and which are unit, the cost spent so far, and a log of the products that
//! [`crate::accumulate`] replays on the [`frontend::ExprDag`].
//!
//! Costs are decided here, from structure alone: a product costs one
//! multiplication unless a factor is a unit edge, and one addition when it
//! lands on an edge that already exists. A product of two unit edges that
//! creates an edge gives a unit edge; any sum is nonunit.

use crate::cost::Cost;
use crate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::neighbours::Neighbours;

/// One elementary update `c_ki (+)= c_kj · c_ji` of an elimination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// `i`: the tail of the target edge.
    pub from: VertexId,
    /// `j`: the vertex the path passes.
    pub via: VertexId,
    /// `k`: the head of the target edge.
    pub to: VertexId,
    /// Whether `(i, k)` did not exist before: assignment rather than update.
    pub fresh: bool,
}

/// An elimination move on an edge `(i, j)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Move {
    /// Front elimination: for each successor `k` of `j`, `c_ki += c_kj · c_ji`.
    Front(VertexId, VertexId),
    /// Back elimination: for each predecessor `h` of `i`, `c_jh += c_ji · c_ih`.
    Back(VertexId, VertexId),
}

/// The mutable elimination graph.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    kinds: Vec<VertexKind>,
    /// `preds[j][i]` is the unit flag of edge `i → j`.
    preds: Vec<Neighbours<bool>>,
    /// `succs[i][j]` is the place of edge `i → j` in the edge list (0 when
    /// the pattern keeps none).
    succs: Vec<Neighbours<u32>>,
    /// Every edge, indexable so that random moves are drawn in O(1); a
    /// removed edge's place takes the last edge. Kept only by patterns that
    /// draw or list edges ([`Pattern::new`]), not by the vertex
    /// eliminations ([`Pattern::unlisted`]).
    edge_list: Option<Vec<(VertexId, VertexId)>>,
    /// Number of edges.
    edges: usize,
    nonunit: usize,
    /// Intermediates with an in-edge ([`Pattern::is_live_intermediate`]),
    /// counted so that [`Pattern::is_done`] is O(1): randomized searches ask
    /// after every move.
    live_intermediates: usize,
    cost: Cost,
    log: Option<Vec<Step>>,
    /// Edges are counted as live values per group of their head (used by
    /// separators); `live_groups` says which groups count, `live_extra` adds
    /// values held elsewhere.
    group: Vec<u8>,
    group_edges: [usize; 2],
    live_groups: [bool; 2],
    live_extra: usize,
    peak: usize,
}

impl Pattern {
    /// The pattern of `graph`, with logging when `log` is set, listing its
    /// edges ([`Pattern::edge_list`]).
    pub fn new(graph: &LinearizedGraph, log: bool) -> Pattern {
        Pattern::from_edges(graph.kinds().to_vec(), graph.edges().iter().map(|e| (e.from, e.to, e.unit)), log)
    }

    /// [`Pattern::new`] without the edge list, for eliminations that only
    /// eliminate vertices: [`Pattern::edge_list`] panics on it.
    pub fn unlisted(graph: &LinearizedGraph, log: bool) -> Pattern {
        let edges = graph.edges().iter().map(|e| (e.from, e.to, e.unit));
        Pattern::build(graph.kinds().to_vec(), edges, log, false)
    }

    /// A pattern over vertices of the given kinds with the given edges,
    /// listing them.
    pub fn from_edges(
        kinds: Vec<VertexKind>,
        edges: impl IntoIterator<Item = (VertexId, VertexId, bool)>,
        log: bool,
    ) -> Pattern {
        Pattern::build(kinds, edges, log, true)
    }

    fn build(
        kinds: Vec<VertexKind>,
        edges: impl IntoIterator<Item = (VertexId, VertexId, bool)>,
        log: bool,
        listed: bool,
    ) -> Pattern {
        let n = kinds.len();
        let mut pattern = Pattern {
            kinds,
            preds: vec![Neighbours::default(); n],
            succs: vec![Neighbours::default(); n],
            edge_list: listed.then(Vec::new),
            edges: 0,
            nonunit: 0,
            live_intermediates: 0,
            cost: Cost::ZERO,
            log: log.then(Vec::new),
            group: vec![0; n],
            group_edges: [0; 2],
            live_groups: [true, true],
            live_extra: 0,
            peak: 0,
        };
        for (from, to, unit) in edges {
            pattern.insert_edge(from, to, unit);
        }
        pattern
    }

    /// Number of vertices, eliminated ones included.
    pub fn num_vertices(&self) -> usize {
        self.kinds.len()
    }

    /// The role of `v`.
    pub fn kind(&self, v: VertexId) -> VertexKind {
        self.kinds[v.index()]
    }

    /// Whether `v` is an intermediate still present.
    pub fn is_live_intermediate(&self, v: VertexId) -> bool {
        self.kinds[v.index()] == VertexKind::Intermediate && !self.preds[v.index()].is_empty()
    }

    /// The intermediates still present, ascending.
    pub fn live_intermediates(&self) -> impl Iterator<Item = VertexId> + '_ {
        (0..self.num_vertices()).map(VertexId::from_index).filter(|&v| self.is_live_intermediate(v))
    }

    /// Whether no intermediate is left: the edges are the Jacobian.
    pub fn is_done(&self) -> bool {
        debug_assert_eq!(self.live_intermediates == 0, self.live_intermediates().next().is_none());
        self.live_intermediates == 0
    }

    /// The predecessors of `v` with the unit flags of their edges.
    pub fn preds(&self, v: VertexId) -> &Neighbours<bool> {
        &self.preds[v.index()]
    }

    /// The successors of `v`.
    pub fn succs(&self, v: VertexId) -> &Neighbours<u32> {
        &self.succs[v.index()]
    }

    /// The unit flag of edge `i → j`, or `None` if absent.
    pub fn unit(&self, i: VertexId, j: VertexId) -> Option<bool> {
        self.preds[j.index()].get(&i).copied()
    }

    /// Every edge, in insertion order (stable under removals only up to swaps).
    ///
    /// # Panics
    /// On a pattern built by [`Pattern::unlisted`].
    pub fn edge_list(&self) -> &[(VertexId, VertexId)] {
        self.edge_list.as_ref().expect("the pattern lists its edges (Pattern::new)")
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.edges
    }

    /// Number of edges whose label is not `±1`.
    pub fn nonunit_edges(&self) -> usize {
        self.nonunit
    }

    /// The cost spent so far.
    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// The logged steps (empty without logging).
    pub fn log(&self) -> &[Step] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// The Markowitz degree `|P_j| · |S_j|` of vertex `j`.
    pub fn markowitz(&self, j: VertexId) -> usize {
        self.preds[j.index()].len() * self.succs[j.index()].len()
    }

    /// The cost of eliminating vertex `j` now, without doing it.
    pub fn vertex_cost(&self, j: VertexId) -> Cost {
        let mut cost = Cost::ZERO;
        for (&i, &u_ij) in &self.preds[j.index()] {
            for &k in self.succs[j.index()].keys() {
                let u_jk = self.preds[k.index()][&j];
                cost.mults += usize::from(!(u_ij || u_jk));
                cost.adds += usize::from(self.preds[k.index()].contains_key(&i));
            }
        }
        cost
    }

    /// Vertex elimination of intermediate `j`: every path through `j` becomes
    /// an edge, then `j` and its edges go.
    pub fn eliminate_vertex(&mut self, j: VertexId) {
        assert!(self.is_live_intermediate(j), "only live intermediates are eliminated, not {j:?}");
        let preds: Vec<VertexId> = self.preds[j.index()].keys().copied().collect();
        let succs: Vec<VertexId> = self.succs[j.index()].keys().copied().collect();
        for &i in &preds {
            for &k in &succs {
                self.product(i, j, k);
            }
        }
        for &i in &preds {
            self.remove_edge(i, j);
        }
        for &k in &succs {
            self.remove_edge(j, k);
        }
    }

    /// Whether `m` may be applied: its edge exists and the vertex it passes
    /// is an intermediate.
    pub fn allows(&self, m: Move) -> bool {
        match m {
            Move::Front(i, j) => {
                self.kinds[j.index()] == VertexKind::Intermediate && self.unit(i, j).is_some()
            }
            Move::Back(i, j) => {
                self.kinds[i.index()] == VertexKind::Intermediate && self.unit(i, j).is_some()
            }
        }
    }

    /// The moves allowed on edge `(i, j)`.
    pub fn moves_on(&self, i: VertexId, j: VertexId) -> impl Iterator<Item = Move> {
        let front = (self.kinds[j.index()] == VertexKind::Intermediate).then_some(Move::Front(i, j));
        let back = (self.kinds[i.index()] == VertexKind::Intermediate).then_some(Move::Back(i, j));
        front.into_iter().chain(back)
    }

    /// Applies an edge elimination; a vertex left without in-edges (front)
    /// or out-edges (back) is removed with its remaining edges.
    pub fn apply(&mut self, m: Move) {
        assert!(self.allows(m), "{m:?} is not allowed");
        match m {
            Move::Front(i, j) => {
                let succs: Vec<VertexId> = self.succs[j.index()].keys().copied().collect();
                for k in succs {
                    self.product(i, j, k);
                }
                self.remove_edge(i, j);
                if self.preds[j.index()].is_empty() {
                    let succs: Vec<VertexId> = self.succs[j.index()].keys().copied().collect();
                    for k in succs {
                        self.remove_edge(j, k);
                    }
                }
            }
            Move::Back(i, j) => {
                let preds: Vec<VertexId> = self.preds[i.index()].keys().copied().collect();
                for h in preds {
                    self.product(h, i, j);
                }
                self.remove_edge(i, j);
                if self.succs[i.index()].is_empty() {
                    let preds: Vec<VertexId> = self.preds[i.index()].keys().copied().collect();
                    for h in preds {
                        self.remove_edge(h, i);
                    }
                }
            }
        }
    }

    /// The cost of `m`, without applying it.
    pub fn move_cost(&self, m: Move) -> Cost {
        let mut cost = Cost::ZERO;
        let mut count = |from: VertexId, via: VertexId, to: VertexId| {
            let (u1, u2) = (self.preds[via.index()][&from], self.preds[to.index()][&via]);
            cost.mults += usize::from(!(u1 || u2));
            cost.adds += usize::from(self.preds[to.index()].contains_key(&from));
        };
        match m {
            Move::Front(i, j) => self.succs[j.index()].keys().for_each(|&k| count(i, j, k)),
            Move::Back(i, j) => self.preds[i.index()].keys().for_each(|&h| count(h, i, j)),
        }
        cost
    }

    /// The work of scoring or applying `m`: the edges it touches.
    pub fn move_work(&self, m: Move) -> usize {
        1 + match m {
            Move::Front(_, j) => self.succs[j.index()].len(),
            Move::Back(i, _) => self.preds[i.index()].len(),
        }
    }

    /// How `m` would change the number of nonunit edges.
    pub fn nonunit_delta(&self, m: Move) -> isize {
        let mut delta = 0isize;
        let mut target = |from: VertexId, to: VertexId, unit: bool| match self.unit(from, to) {
            Some(existing) => delta += isize::from(existing),
            None => delta += isize::from(!unit),
        };
        match m {
            Move::Front(i, j) => {
                let u_ij = self.preds[j.index()][&i];
                for &k in self.succs[j.index()].keys() {
                    target(i, k, u_ij && self.preds[k.index()][&j]);
                }
                delta -= isize::from(!u_ij);
                if self.preds[j.index()].len() == 1 {
                    let gone = self.succs[j.index()].keys().filter(|&&k| !self.preds[k.index()][&j]).count();
                    delta -= gone as isize;
                }
            }
            Move::Back(i, j) => {
                let u_ij = self.preds[j.index()][&i];
                for (&h, &u_hi) in &self.preds[i.index()] {
                    target(h, j, u_ij && u_hi);
                }
                delta -= isize::from(!u_ij);
                if self.succs[i.index()].len() == 1 {
                    delta -= self.preds[i.index()].values().filter(|u| !**u).count() as isize;
                }
            }
        }
        delta
    }

    /// A key identifying the current structure (edges and unit flags).
    pub fn key(&self) -> Vec<(u32, u32, bool)> {
        let mut key: Vec<(u32, u32, bool)> = Vec::with_capacity(self.edges);
        for (j, preds) in self.preds.iter().enumerate() {
            for (&i, &unit) in preds {
                key.push((i.index() as u32, j as u32, unit));
            }
        }
        key.sort_unstable();
        key
    }

    /// Puts `v` in separator group `group` (0 earlier, 1 later).
    pub fn set_group(&mut self, v: VertexId, group: u8) {
        let edges = self.preds[v.index()].len();
        self.group_edges[usize::from(self.group[v.index()])] -= edges;
        self.group[v.index()] = group;
        self.group_edges[usize::from(group)] += edges;
    }

    /// Chooses which groups count as live values and how many values are
    /// held outside the graph, and restarts the peak from the current count.
    pub fn count_live(&mut self, groups: [bool; 2], extra: usize) {
        self.live_groups = groups;
        self.live_extra = extra;
        self.peak = self.live();
    }

    /// The largest number of live values seen since [`Pattern::count_live`]
    /// (or construction, counting all edges).
    pub fn peak_live(&self) -> usize {
        self.peak.max(self.live())
    }

    fn live(&self) -> usize {
        let [a, b] = self.live_groups;
        self.live_extra + if a { self.group_edges[0] } else { 0 } + if b { self.group_edges[1] } else { 0 }
    }

    /// `c_ki (+)= c_kj · c_ji`.
    fn product(&mut self, i: VertexId, j: VertexId, k: VertexId) {
        let unit = self.preds[j.index()][&i] && self.preds[k.index()][&j];
        let both_nonunit = !self.preds[j.index()][&i] && !self.preds[k.index()][&j];
        self.cost.mults += usize::from(both_nonunit);
        let fresh = match self.preds[k.index()].get_mut(&i) {
            Some(existing) => {
                if *existing {
                    self.nonunit += 1;
                }
                *existing = false;
                self.cost.adds += 1;
                false
            }
            None => {
                self.insert_edge(i, k, unit);
                true
            }
        };
        if let Some(log) = &mut self.log {
            log.push(Step { from: i, via: j, to: k, fresh });
        }
    }

    fn insert_edge(&mut self, from: VertexId, to: VertexId, unit: bool) {
        if self.kinds[to.index()] == VertexKind::Intermediate && self.preds[to.index()].is_empty() {
            self.live_intermediates += 1;
        }
        let absent = self.preds[to.index()].insert(from, unit).is_none();
        debug_assert!(absent, "edge {from:?} -> {to:?} inserted twice");
        let place = self.edge_list.as_ref().map_or(0, |list| list.len());
        self.succs[from.index()].insert(to, u32::try_from(place).expect("fewer than 2^32 edges"));
        if let Some(list) = &mut self.edge_list {
            list.push((from, to));
        }
        self.edges += 1;
        self.nonunit += usize::from(!unit);
        self.group_edges[usize::from(self.group[to.index()])] += 1;
        self.peak = self.peak.max(self.live());
    }

    fn remove_edge(&mut self, from: VertexId, to: VertexId) {
        let unit = self.preds[to.index()].remove(&from).expect("removed edges exist");
        if self.kinds[to.index()] == VertexKind::Intermediate && self.preds[to.index()].is_empty() {
            self.live_intermediates -= 1;
        }
        let place = self.succs[from.index()].remove(&to).expect("removed edges exist");
        if let Some(list) = &mut self.edge_list {
            list.swap_remove(place as usize);
            if let Some(&(i, j)) = list.get(place as usize) {
                *self.succs[i.index()].get_mut(&j).expect("listed edges exist") = place;
            }
        }
        self.edges -= 1;
        self.nonunit -= usize::from(!unit);
        self.group_edges[usize::from(self.group[to.index()])] -= 1;
    }
}
