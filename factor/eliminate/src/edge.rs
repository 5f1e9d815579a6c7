//! Edge elimination heuristics. Front elimination of `(i, j)` adds
//! `c_kj · c_ji` onto `(i, k)` for every successor `k` of `j`; back
//! elimination adds `c_ji · c_ih` onto `(h, j)` for every predecessor `h` of
//! `i`; a vertex left without in- or out-edges is removed. Vertex
//! elimination is the special case that front-eliminates all in-edges of a
//! vertex at once.

use crate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::pattern::{Move, Pattern};

/// Forward edge elimination: sweeping from the inputs, front-eliminate the
/// edge `(i, j)` into an intermediate with the least `(i, j)`, so each input's
/// edges are pushed through the graph before the next input's.
pub(crate) fn forward_edge(graph: &LinearizedGraph, log: bool) -> Pattern {
    let mut pattern = Pattern::new(graph, log);
    for i in graph.vertices() {
        // Front eliminations of (i, j) only add edges leaving i, to vertices
        // after j: the loop ends once i's successors are all outputs.
        while let Some(j) = first_intermediate(&pattern, pattern.succs(i).keys().copied()) {
            pattern.apply(Move::Front(i, j));
        }
    }
    debug_assert!(pattern.is_done());
    pattern
}

/// Backward edge elimination: sweeping from the outputs, back-eliminate the
/// edge `(j, k)` out of an intermediate with the greatest `(k, j)`.
pub(crate) fn backward_edge(graph: &LinearizedGraph, log: bool) -> Pattern {
    let mut pattern = Pattern::new(graph, log);
    for k in graph.vertices().rev() {
        while let Some(j) = first_intermediate(&pattern, pattern.preds(k).keys().rev().copied()) {
            pattern.apply(Move::Back(j, k));
        }
    }
    debug_assert!(pattern.is_done());
    pattern
}

fn first_intermediate(pattern: &Pattern, mut candidates: impl Iterator<Item = VertexId>) -> Option<VertexId> {
    candidates.find(|&v| pattern.kind(v) == VertexKind::Intermediate)
}
