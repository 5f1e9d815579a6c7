//! The session's compiled kernels: keyed by what they compute, bounded by
//! count, least recently used evicted first.

use super::statement::{Atom, FormName};
use dstar::Compiled;
use indexmap::IndexMap;
use std::sync::Arc;

/// What a cached kernel computes. Parameter values are not part of it: they
/// are given at each call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KernelKey {
    /// A definition's value, as defined at `generation`.
    Definition { name: String, generation: u64 },
    /// A derivative form: its name and the tokens of its arguments, under
    /// the definitions of session generation `generation` (an argument may
    /// use any of them).
    Form { name: FormName, args: Vec<Atom>, generation: u64 },
}

/// At most `capacity` kernels; each costs about 16 KB of code and data.
#[derive(Clone)]
pub struct KernelCache {
    capacity: usize,
    /// Least recently used first.
    kernels: IndexMap<KernelKey, Arc<Compiled>>,
    /// Kernels compiled and inserted over the cache's life.
    inserted: usize,
}

impl KernelCache {
    /// Kernels kept by default: a few hundred kilobytes.
    pub const CAPACITY: usize = 32;

    pub fn new(capacity: usize) -> KernelCache {
        KernelCache { capacity: capacity.max(1), kernels: IndexMap::new(), inserted: 0 }
    }

    /// The kernel for `key`, now the most recently used.
    pub fn get(&mut self, key: &KernelKey) -> Option<Arc<Compiled>> {
        let i = self.kernels.get_index_of(key)?;
        let last = self.kernels.len() - 1;
        self.kernels.move_index(i, last);
        Some(Arc::clone(&self.kernels[last]))
    }

    /// Caches `kernel` under `key`, evicting the least recently used past
    /// the capacity.
    pub fn insert(&mut self, key: KernelKey, kernel: Arc<Compiled>) {
        self.kernels.shift_remove(&key);
        while self.kernels.len() >= self.capacity {
            self.kernels.shift_remove_index(0);
        }
        self.kernels.insert(key, kernel);
        self.inserted += 1;
    }

    /// Keeps only the kernels `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&KernelKey) -> bool) {
        self.kernels.retain(|k, _| keep(k));
    }

    /// Kernels held now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Kernels compiled and inserted so far.
    #[cfg(test)]
    pub fn inserted(&self) -> usize {
        self.inserted
    }

    /// The keys, least recently used first.
    #[cfg(test)]
    pub fn keys(&self) -> Vec<KernelKey> {
        self.kernels.keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> KernelKey {
        KernelKey::Definition { name: name.into(), generation: 0 }
    }

    fn kernel() -> Arc<Compiled> {
        let options = dstar::Options::default();
        Arc::new(dstar::compile("in x\nout x + 1", dstar::Request::Values, &options).unwrap())
    }

    #[test]
    fn evicts_the_least_recently_used_past_its_capacity() {
        let k = kernel();
        let mut cache = KernelCache::new(3);
        for name in ["a", "b", "c"] {
            cache.insert(key(name), Arc::clone(&k));
        }
        assert!(cache.get(&key("a")).is_some(), "a is now the most recent");
        cache.insert(key("d"), Arc::clone(&k));
        assert_eq!(cache.keys(), [key("c"), key("a"), key("d")], "b went first");
        cache.insert(key("c"), Arc::clone(&k));
        assert_eq!(
            cache.keys(),
            [key("a"), key("d"), key("c")],
            "a key inserted again moves, not duplicates"
        );
        assert!(cache.get(&key("b")).is_none());
        assert_eq!((cache.len(), cache.inserted()), (3, 5));
    }

    #[test]
    fn stays_bounded_over_any_sequence_of_uses() {
        // A deterministic pseudo-random walk over 50 keys against a model.
        let k = kernel();
        let mut cache = KernelCache::new(7);
        let mut model: Vec<String> = vec![];
        let mut state = 12345u64;
        for _ in 0..2000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let name = format!("k{}", (state >> 33) % 50);
            if cache.get(&key(&name)).is_none() {
                cache.insert(key(&name), Arc::clone(&k));
            }
            model.retain(|n| *n != name);
            model.push(name);
            if model.len() > 7 {
                model.remove(0);
            }
            let keys: Vec<KernelKey> = model.iter().map(|n| key(n)).collect();
            assert_eq!(cache.keys(), keys);
        }
    }
}
