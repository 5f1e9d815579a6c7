//! [`KernelCache`]: compiled kernels by what they compute, bounded by
//! count, the least recently used dropped first. A [`Function`](crate::Function)
//! keeps its kernels in one, by [`Request`](crate::Request); a front door
//! that compiles many programs (the REPL) keys one by its own names.

use crate::compiled::Compiled;
use std::sync::Arc;

/// At most `capacity` kernels by key; each costs about 16 KB of code and
/// data for a small function.
///
/// ```
/// use dstar::{KernelCache, Options, Request};
/// let kernel = std::sync::Arc::new(dstar::compile("in x\nout x + 1", Request::Values, &Options::default())?);
/// let mut cache = KernelCache::new(2);
/// for key in ["a", "b", "c"] {
///     cache.insert(key, kernel.clone());
/// }
/// assert_eq!(cache.keys(), ["b", "c"]); // "a" went first
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Clone)]
pub struct KernelCache<K> {
    capacity: usize,
    /// Least recently used first.
    kernels: Vec<(K, Arc<Compiled>)>,
    /// Kernels inserted over the cache's life.
    inserted: usize,
}

impl<K: PartialEq + Clone> KernelCache<K> {
    /// Kernels kept by default: a few hundred kilobytes.
    pub const CAPACITY: usize = 32;

    /// An empty cache of at most `capacity` kernels (at least 1).
    pub fn new(capacity: usize) -> KernelCache<K> {
        KernelCache { capacity: capacity.max(1), kernels: Vec::new(), inserted: 0 }
    }

    /// The kernel for `key`, now the most recently used.
    pub fn get(&mut self, key: &K) -> Option<Arc<Compiled>> {
        let i = self.kernels.iter().position(|(k, _)| k == key)?;
        let entry = self.kernels.remove(i);
        let kernel = Arc::clone(&entry.1);
        self.kernels.push(entry);
        Some(kernel)
    }

    /// Caches `kernel` under `key` (in place of the one there, if any),
    /// dropping the least recently used past the capacity.
    pub fn insert(&mut self, key: K, kernel: Arc<Compiled>) {
        self.kernels.retain(|(k, _)| *k != key);
        while self.kernels.len() >= self.capacity {
            self.kernels.remove(0);
        }
        self.kernels.push((key, kernel));
        self.inserted += 1;
    }

    /// The kernel for `key` if there is one, else `kernel`, cached: of two
    /// threads that compiled one key at once, the first one stored is kept.
    pub fn get_or_insert(&mut self, key: K, kernel: Arc<Compiled>) -> Arc<Compiled> {
        match self.get(&key) {
            Some(cached) => cached,
            None => {
                self.insert(key, Arc::clone(&kernel));
                kernel
            }
        }
    }

    /// Keeps only the kernels whose keys `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.kernels.retain(|(k, _)| keep(k));
    }

    /// Kernels held now.
    pub fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    /// Kernels inserted so far (compiled, for a caller that inserts only
    /// what it compiled).
    pub fn inserted(&self) -> usize {
        self.inserted
    }

    /// The keys, least recently used first.
    pub fn keys(&self) -> Vec<K> {
        self.kernels.iter().map(|(k, _)| k.clone()).collect()
    }
}

impl<K: std::fmt::Debug> std::fmt::Debug for KernelCache<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<&K> = self.kernels.iter().map(|(k, _)| k).collect();
        f.debug_struct("KernelCache").field("capacity", &self.capacity).field("keys", &keys).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel() -> Arc<Compiled> {
        let options = crate::Options::default();
        Arc::new(crate::compile("in x\nout x + 1", crate::Request::Values, &options).unwrap())
    }

    #[test]
    fn evicts_the_least_recently_used_past_its_capacity() {
        let k = kernel();
        let mut cache = KernelCache::new(3);
        for name in ["a", "b", "c"] {
            cache.insert(name, Arc::clone(&k));
        }
        assert!(cache.get(&"a").is_some(), "a is now the most recent");
        cache.insert("d", Arc::clone(&k));
        assert_eq!(cache.keys(), ["c", "a", "d"], "b went first");
        cache.insert("c", Arc::clone(&k));
        assert_eq!(cache.keys(), ["a", "d", "c"], "a key inserted again moves, not duplicates");
        assert!(cache.get(&"b").is_none());
        assert_eq!((cache.len(), cache.inserted()), (3, 5));
    }

    #[test]
    fn stays_bounded_over_any_sequence_of_uses() {
        // A deterministic pseudo-random walk over 50 keys against a model.
        let k = kernel();
        let mut cache = KernelCache::new(7);
        let mut model: Vec<u64> = vec![];
        let mut state = 12345u64;
        for _ in 0..2000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = (state >> 33) % 50;
            if cache.get(&key).is_none() {
                cache.insert(key, Arc::clone(&k));
            }
            model.retain(|n| *n != key);
            model.push(key);
            if model.len() > 7 {
                model.remove(0);
            }
            assert_eq!(cache.keys(), model);
        }
    }
}
