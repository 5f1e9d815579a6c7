//! A vertex's neighbours in an elimination graph, by vertex: a sorted
//! vector while there are few, a `BTreeMap` past [`SMALL`].
//!
//! Most vertices of the graphs users build have two or three neighbours.
//! A `BTreeMap` gives each of them a node of eleven entries, and the
//! randomized scarcity search, which reads neighbours of vertices drawn at
//! random, became bound by cache misses once those nodes left the cache
//! (collocation's J·v set-up grew 15x from 500 to 4,000 intervals). A few
//! contiguous entries are one cache line. A vertex with many neighbours (a
//! wide sum's output) keeps a tree, so inserting stays logarithmic. Either
//! way iteration is in vertex order, so every search makes the same moves.

use crate::graph::VertexId;
use std::collections::{btree_map, BTreeMap};
use std::ops::Index;

/// Neighbours up to which a vector is kept.
const SMALL: usize = 32;

/// The neighbours of one vertex, each with a value (an edge's unit flag, or
/// `()`), in vertex order.
#[derive(Clone, Debug)]
pub(crate) enum Neighbours<V> {
    Small(Vec<(VertexId, V)>),
    Large(BTreeMap<VertexId, V>),
}

impl<V> Default for Neighbours<V> {
    fn default() -> Self {
        Neighbours::Small(Vec::new())
    }
}

impl<V: Copy> Neighbours<V> {
    /// The value of neighbour `k`.
    pub fn get(&self, k: &VertexId) -> Option<&V> {
        match self {
            Neighbours::Small(v) => v.binary_search_by_key(k, |e| e.0).ok().map(|p| &v[p].1),
            Neighbours::Large(m) => m.get(k),
        }
    }

    /// The value of neighbour `k`, to change.
    pub fn get_mut(&mut self, k: &VertexId) -> Option<&mut V> {
        match self {
            Neighbours::Small(v) => v.binary_search_by_key(k, |e| e.0).ok().map(|p| &mut v[p].1),
            Neighbours::Large(m) => m.get_mut(k),
        }
    }

    /// Whether `k` is a neighbour.
    pub fn contains_key(&self, k: &VertexId) -> bool {
        self.get(k).is_some()
    }

    /// Sets neighbour `k`'s value, returning the one it replaces.
    pub fn insert(&mut self, k: VertexId, value: V) -> Option<V> {
        match self {
            Neighbours::Small(v) => match v.binary_search_by_key(&k, |e| e.0) {
                Ok(p) => Some(std::mem::replace(&mut v[p].1, value)),
                Err(p) if v.len() < SMALL => {
                    v.insert(p, (k, value));
                    None
                }
                Err(_) => {
                    let mut m: BTreeMap<VertexId, V> = v.drain(..).collect();
                    m.insert(k, value);
                    *self = Neighbours::Large(m);
                    None
                }
            },
            Neighbours::Large(m) => m.insert(k, value),
        }
    }

    /// Removes neighbour `k`, returning its value.
    pub fn remove(&mut self, k: &VertexId) -> Option<V> {
        match self {
            Neighbours::Small(v) => v.binary_search_by_key(k, |e| e.0).ok().map(|p| v.remove(p).1),
            Neighbours::Large(m) => m.remove(k),
        }
    }

    /// Number of neighbours.
    pub fn len(&self) -> usize {
        match self {
            Neighbours::Small(v) => v.len(),
            Neighbours::Large(m) => m.len(),
        }
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours and their values, in vertex order.
    pub fn iter(&self) -> Iter<'_, V> {
        match self {
            Neighbours::Small(v) => Iter::Small(v.iter()),
            Neighbours::Large(m) => Iter::Large(m.iter()),
        }
    }

    /// The neighbours, in vertex order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &VertexId> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// The values, in vertex order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }
}

impl<V: Copy> Index<&VertexId> for Neighbours<V> {
    type Output = V;

    /// The value of neighbour `k`, which must be one.
    fn index(&self, k: &VertexId) -> &V {
        self.get(k).expect("a neighbour")
    }
}

impl<'a, V: Copy> IntoIterator for &'a Neighbours<V> {
    type Item = (&'a VertexId, &'a V);
    type IntoIter = Iter<'a, V>;

    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

/// [`Neighbours::iter`].
pub(crate) enum Iter<'a, V> {
    Small(std::slice::Iter<'a, (VertexId, V)>),
    Large(btree_map::Iter<'a, VertexId, V>),
}

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (&'a VertexId, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Small(i) => i.next().map(|(k, v)| (k, v)),
            Iter::Large(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Small(i) => i.size_hint(),
            Iter::Large(i) => i.size_hint(),
        }
    }
}

impl<V> DoubleEndedIterator for Iter<'_, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Small(i) => i.next_back().map(|(k, v)| (k, v)),
            Iter::Large(i) => i.next_back(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn agrees_with_a_btree_map_on_both_sides_of_the_limit() {
        // Random inserts and removals over up to 4x SMALL keys: every
        // answer and the order of iteration match a BTreeMap's.
        let mut rng = Rng::new(11);
        for round in 0..200 {
            let keys = 1 + round % (4 * SMALL);
            let (mut ours, mut theirs) = (Neighbours::default(), BTreeMap::new());
            for step in 0..400 {
                let k = VertexId::from_index(rng.below(keys));
                if rng.below(3) == 0 {
                    assert_eq!(ours.remove(&k), theirs.remove(&k));
                } else {
                    assert_eq!(ours.insert(k, step), theirs.insert(k, step));
                }
                assert_eq!(ours.get(&k), theirs.get(&k));
                assert_eq!(ours.len(), theirs.len());
                assert!(ours.iter().eq(theirs.iter()));
                assert!(ours.keys().rev().eq(theirs.keys().rev()));
            }
        }
    }
}
