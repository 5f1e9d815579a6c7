//! Directed edge separators: a set of edges whose removal splits the graph
//! into an earlier part (holding the inputs) and a later part (holding the
//! outputs), every cut edge running from earlier to later. The Jacobian is
//! then `J = B · A`: `A` (inputs → cut tails) is accumulated first, with only
//! the earlier part's values live, then `B` (cut tails → outputs), then the
//! product. A live value is an edge value held in memory: the local partials
//! of the part being eliminated, the fill it creates, and finished parts.
//!
//! Two separators: a weighted minimum cut (Ford–Fulkerson with BFS
//! augmentation) between the first and last quarters of the topological
//! order, made directed by infinite-capacity reverse arcs (a cut crossing an
//! edge backwards would cut such an arc, so the minimum never does); and the
//! natural-order cut, the cheapest threshold in topological order.

use crate::accumulate::{finish, Accumulation};
use crate::graph::{LinearizedEdge, LinearizedGraph, VertexId, VertexKind};
use crate::pattern::Pattern;
use crate::vertex::eliminate_markowitz;
use frontend::ExprDag;
use std::collections::VecDeque;

/// A directed edge separator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Separator {
    /// Whether each vertex lies in the earlier part.
    pub earlier: Vec<bool>,
    /// The cut edges `(from, to)`, `from` earlier and `to` later.
    pub cut: Vec<(VertexId, VertexId)>,
}

/// An accumulation part by part, with the memory it needed.
#[derive(Clone, Debug)]
pub struct SeparatedAccumulation {
    /// The Jacobian and its cost (earlier part, later part and product).
    pub accumulation: Accumulation,
    /// The separator used.
    pub separator: Separator,
    /// Peak live values, accumulating part by part.
    pub peak_live: usize,
    /// Peak live values of Markowitz vertex elimination on the whole graph.
    pub peak_live_without: usize,
}

/// The minimum-weight directed cut (each edge weighs one value) between
/// the inputs and first quarter of the vertices and the outputs and last
/// quarter. `None` when every vertex is an input or output.
pub fn min_cut_separator(graph: &LinearizedGraph) -> Option<Separator> {
    graph.intermediates().next()?;
    let n = graph.num_vertices();
    let quarter = n / 4;
    let (source, sink) = (n, n + 1);
    let mut network = Network::new(n + 2);
    const INFINITE: usize = usize::MAX / 4;
    for v in graph.vertices() {
        let is_input = matches!(graph.kind(v), VertexKind::Input(_));
        let is_output = matches!(graph.kind(v), VertexKind::Output(_));
        if (is_input || v.index() < quarter) && !is_output {
            network.arc(source, v.index(), INFINITE);
        } else if is_output || v.index() >= n - quarter {
            network.arc(v.index(), sink, INFINITE);
        }
    }
    for e in graph.edges() {
        network.arc(e.from.index(), e.to.index(), 1);
        network.arc(e.to.index(), e.from.index(), INFINITE);
    }
    let reached = network.max_flow_source_side(source, sink);
    Some(separator_from(graph, reached[..n].to_vec()))
}

/// The natural-order cut: the earlier part is the inputs and the
/// non-output vertices below a threshold, chosen in the middle half of the
/// topological order to cut the fewest edges. `None` without intermediates.
pub fn natural_separator(graph: &LinearizedGraph) -> Option<Separator> {
    graph.intermediates().next()?;
    let n = graph.num_vertices();
    let (mut in_degree, mut out_degree) = (vec![0usize; n], vec![0usize; n]);
    for e in graph.edges() {
        in_degree[e.to.index()] += 1;
        out_degree[e.from.index()] += 1;
    }
    let is_intermediate = |v: usize| graph.kind(VertexId::from_index(v)) == VertexKind::Intermediate;
    // Cut size with only the inputs earlier, then moving vertices 0..t across.
    let mut crossing: usize = graph
        .vertices()
        .filter(|v| matches!(graph.kind(*v), VertexKind::Input(_)))
        .map(|v| out_degree[v.index()])
        .sum();
    let (lo, hi) = (n / 4, n - n / 4);
    let mut best = (usize::MAX, 0);
    for t in 0..=n {
        if (lo..=hi).contains(&t) && crossing < best.0 {
            best = (crossing, t);
        }
        if t < n && is_intermediate(t) {
            crossing = crossing + out_degree[t] - in_degree[t];
        }
    }
    let earlier = graph
        .vertices()
        .map(|v| match graph.kind(v) {
            VertexKind::Input(_) => true,
            VertexKind::Output(_) => false,
            VertexKind::Intermediate => v.index() < best.1,
        })
        .collect();
    Some(separator_from(graph, earlier))
}

fn separator_from(graph: &LinearizedGraph, earlier: Vec<bool>) -> Separator {
    let cut = graph
        .edges()
        .iter()
        .filter(|e| earlier[e.from.index()] && !earlier[e.to.index()])
        .map(|e| (e.from, e.to))
        .collect();
    debug_assert!(
        graph.edges().iter().all(|e| earlier[e.from.index()] || !earlier[e.to.index()]),
        "directed"
    );
    Separator { earlier, cut }
}

/// Accumulates the Jacobian of `graph` (built in `dag`) part by part across
/// `separator`: each cut tail `u` gets an interface copy `u'` (a unit edge
/// `u → u'` carrying the cut edges), the earlier part is eliminated by
/// Markowitz order, then the later part, then the interface.
pub fn accumulate_separated(
    graph: &LinearizedGraph,
    mut dag: ExprDag,
    separator: &Separator,
) -> SeparatedAccumulation {
    let mut whole = Pattern::new(graph, false);
    eliminate_markowitz(&mut whole, |_| true);
    let peak_live_without = whole.peak_live();

    let mut tails: Vec<VertexId> = separator.cut.iter().map(|&(u, _)| u).collect();
    tails.sort_unstable();
    tails.dedup();
    // Renumber so that each copy follows its original: ids stay topological.
    let mut renumber = Vec::with_capacity(graph.num_vertices());
    let mut copy_of = vec![None; graph.num_vertices()];
    let mut kinds = Vec::new();
    let mut nodes = Vec::new();
    let mut earlier = Vec::new();
    for v in graph.vertices() {
        renumber.push(VertexId::from_index(kinds.len()));
        kinds.push(graph.kind(v));
        nodes.push(graph.node(v));
        earlier.push(separator.earlier[v.index()]);
        if tails.binary_search(&v).is_ok() {
            copy_of[v.index()] = Some(VertexId::from_index(kinds.len()));
            kinds.push(VertexKind::Intermediate);
            nodes.push(graph.node(v));
            earlier.push(true);
        }
    }
    let one = dag.constant(1.0);
    let mut edges: Vec<LinearizedEdge> = Vec::new();
    for e in graph.edges() {
        let crosses = separator.earlier[e.from.index()] && !separator.earlier[e.to.index()];
        let from = if crosses {
            copy_of[e.from.index()].expect("cut tails have copies")
        } else {
            renumber[e.from.index()]
        };
        edges.push(LinearizedEdge { from, to: renumber[e.to.index()], ..*e });
    }
    for &u in &tails {
        let copy = copy_of[u.index()].expect("cut tails have copies");
        edges.push(LinearizedEdge { from: renumber[u.index()], to: copy, label: one, unit: true });
    }
    let inputs = (0..graph.num_inputs()).map(|c| graph.input(c).map(|v| renumber[v.index()])).collect();
    let outputs = (0..graph.num_outputs()).map(|r| graph.output(r).map(|v| renumber[v.index()])).collect();
    let split = LinearizedGraph::from_parts(kinds, nodes, edges, inputs, outputs);
    let is_copy: Vec<bool> = {
        let mut marks = vec![false; split.num_vertices()];
        copy_of.iter().flatten().for_each(|c| marks[c.index()] = true);
        marks
    };

    let mut pattern = Pattern::new(&split, true);
    for v in split.vertices() {
        pattern.set_group(v, u8::from(!earlier[v.index()]));
    }
    pattern.count_live([true, false], 0);
    eliminate_markowitz(&mut pattern, |v| earlier[v.index()] && !is_copy[v.index()]);
    let peak_earlier = pattern.peak_live();
    pattern.count_live([true, true], 0);
    eliminate_markowitz(&mut pattern, |v| !earlier[v.index()]);
    let peak_later = pattern.peak_live();
    pattern.count_live([true, true], 0);
    eliminate_markowitz(&mut pattern, |v| is_copy[v.index()]);
    let peak_live = peak_earlier.max(peak_later).max(pattern.peak_live());
    SeparatedAccumulation {
        accumulation: finish(&split, dag, &pattern),
        separator: separator.clone(),
        peak_live,
        peak_live_without,
    }
}

/// A flow network with residual capacities.
struct Network {
    /// Per node, the arcs leaving it: `(head, capacity, index of the reverse arc)`.
    arcs: Vec<Vec<(usize, usize, usize)>>,
}

impl Network {
    fn new(n: usize) -> Network {
        Network { arcs: vec![Vec::new(); n] }
    }

    fn arc(&mut self, from: usize, to: usize, capacity: usize) {
        let (back_at, forth_at) = (self.arcs[to].len(), self.arcs[from].len());
        self.arcs[from].push((to, capacity, back_at));
        self.arcs[to].push((from, 0, forth_at));
    }

    /// Saturates the network by shortest augmenting paths (Ford–Fulkerson
    /// with BFS, i.e. Edmonds–Karp) and returns the nodes still reachable
    /// from `source`: the source side of a minimum cut.
    fn max_flow_source_side(&mut self, source: usize, sink: usize) -> Vec<bool> {
        loop {
            let mut parent: Vec<Option<(usize, usize)>> = vec![None; self.arcs.len()];
            let mut seen = vec![false; self.arcs.len()];
            seen[source] = true;
            let mut queue = VecDeque::from([source]);
            while let Some(u) = queue.pop_front() {
                for (index, &(v, capacity, _)) in self.arcs[u].iter().enumerate() {
                    if capacity > 0 && !seen[v] {
                        seen[v] = true;
                        parent[v] = Some((u, index));
                        queue.push_back(v);
                    }
                }
            }
            if !seen[sink] {
                return seen;
            }
            let mut bottleneck = usize::MAX;
            let mut v = sink;
            while let Some((u, index)) = parent[v] {
                bottleneck = bottleneck.min(self.arcs[u][index].1);
                v = u;
            }
            let mut v = sink;
            while let Some((u, index)) = parent[v] {
                let (_, _, back) = self.arcs[u][index];
                self.arcs[u][index].1 -= bottleneck;
                self.arcs[v][back].1 += bottleneck;
                v = u;
            }
        }
    }
}
