//! What the sampler and the shortest-derivation walk compute per set of saturated rules, kept
//! within a byte budget.
//!
//! Both need, at every rule, an analysis of the grammar without the rules that have reached the
//! depth bound on the current path: a fixpoint over the whole grammar, far too slow to redo at
//! every node, so each set's result is cached in a *slot*. The sets met depend on the paths the
//! inputs take, and replays of mutated sequences keep meeting new ones: a fuzzing process of
//! naga's WGSL grammar at bounds 1,1,1 grew by 0.5 to 1 MB a second, and a heap profile put 91%
//! of the growth in these slots (`docs/results/issue-35-soak.md`).
//! So a cache holds at most its budget: when it is over it at the start of a walk, where no slot
//! is in use, it keeps the most recently used slots up to half the budget and drops the others,
//! which are computed again if they come back. The slot of the empty set is never dropped and
//! stays slot 0.

use ahash::AHashMap;
use fixedbitset::FixedBitSet;

/// Heap bytes a cached value holds, for the budget; an estimate from its vectors' lengths.
pub trait HeapSize {
    fn heap_bytes(&self) -> usize;
}

/// Bytes of `Vec<Vec<T>>`'s heap: the inner headers and their elements.
pub fn nested_vec_bytes<T>(vecs: &[Vec<T>]) -> usize {
    vecs.iter()
        .map(|v| size_of::<Vec<T>>() + v.len() * size_of::<T>())
        .sum()
}

/// What a cache holds and has done, for benchmarks and tests of the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Slots held now.
    pub slots: usize,
    /// Their bytes, by [`HeapSize`].
    pub bytes: usize,
    /// Slots computed so far: the first meeting of each set, and each return of a dropped one.
    pub computed: u64,
}

/// Values per set of saturated rules, numbered by slot.
pub struct SaturatedCache<T> {
    by_set: AHashMap<FixedBitSet, usize>,
    slots: Vec<Slot<T>>,
    bytes: usize,
    budget: usize,
    /// Walks started; a slot's `used` is the walk that used it last.
    clock: u64,
    computed: u64,
}

struct Slot<T> {
    value: T,
    set: FixedBitSet,
    bytes: usize,
    used: u64,
}

impl<T: HeapSize> SaturatedCache<T> {
    /// A cache holding `empty`'s value as slot 0, and at most about `budget` bytes of slots.
    pub fn new(empty: FixedBitSet, value: T, budget: usize) -> Self {
        let mut cache = Self {
            by_set: AHashMap::new(),
            slots: Vec::new(),
            bytes: 0,
            budget,
            clock: 0,
            computed: 0,
        };
        cache.insert(empty, value);
        cache
    }

    /// Keeps about `budget` bytes from the next walk on.
    pub fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
    }

    /// The slot of `set`, computed with `make` if it is not cached.
    pub fn slot(&mut self, set: &FixedBitSet, make: impl FnOnce() -> T) -> usize {
        let slot = match self.by_set.get(set) {
            Some(&slot) => slot,
            None => {
                self.computed += 1;
                self.insert(set.clone(), make())
            }
        };
        self.touch(slot);
        slot
    }

    /// Marks `slot` used by the current walk: for callers that remember slots by number and so
    /// reach one without [`Self::slot`].
    #[inline]
    pub fn touch(&mut self, slot: usize) {
        self.slots[slot].used = self.clock;
    }

    #[inline]
    pub fn get(&self, slot: usize) -> &T {
        &self.slots[slot].value
    }

    #[inline]
    pub fn get_mut(&mut self, slot: usize) -> &mut T {
        &mut self.slots[slot].value
    }

    /// Slots cached now.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// What the cache holds and has computed.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            slots: self.slots.len(),
            bytes: self.bytes,
            computed: self.computed,
        }
    }

    /// To be called where a walk starts and no slot number but 0 is held. Over the budget, keeps
    /// slot 0 and the most recently used slots up to half the budget and renumbers them in their
    /// old order; returns, per old slot, its new number or `None` when dropped, so that numbers
    /// kept inside the values can be mended. `None` when nothing was dropped.
    pub fn start_walk(&mut self) -> Option<Vec<Option<u32>>> {
        self.clock += 1;
        if self.bytes <= self.budget {
            return None;
        }
        let mut by_recency: Vec<usize> = (1..self.slots.len()).collect();
        by_recency.sort_unstable_by_key(|&s| std::cmp::Reverse(self.slots[s].used));
        let mut keep = vec![false; self.slots.len()];
        keep[0] = true;
        let mut kept_bytes = self.slots[0].bytes;
        for s in by_recency {
            if kept_bytes + self.slots[s].bytes > self.budget / 2 {
                break;
            }
            kept_bytes += self.slots[s].bytes;
            keep[s] = true;
        }
        let mut renumber = Vec::with_capacity(self.slots.len());
        let mut next = 0u32;
        for &kept in &keep {
            renumber.push(kept.then(|| {
                next += 1;
                next - 1
            }));
        }
        let old = std::mem::take(&mut self.slots);
        self.by_set.clear();
        self.bytes = 0;
        for (slot, kept) in old.into_iter().zip(keep) {
            if kept {
                self.by_set.insert(slot.set.clone(), self.slots.len());
                self.bytes += slot.bytes;
                self.slots.push(slot);
            }
        }
        Some(renumber)
    }

    fn insert(&mut self, set: FixedBitSet, value: T) -> usize {
        let bytes = value.heap_bytes() + 2 * set.as_slice().len() * size_of::<usize>();
        let slot = self.slots.len();
        self.by_set.insert(set.clone(), slot);
        self.slots.push(Slot {
            value,
            set,
            bytes,
            used: self.clock,
        });
        self.bytes += bytes;
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Blob(Vec<u8>);

    impl HeapSize for Blob {
        fn heap_bytes(&self) -> usize {
            self.0.len()
        }
    }

    fn set(bits: &[usize]) -> FixedBitSet {
        let mut set = FixedBitSet::with_capacity(64);
        for &b in bits {
            set.insert(b);
        }
        set
    }

    fn blob(fill: u8) -> Blob {
        Blob(vec![fill; 100])
    }

    #[test]
    fn a_set_met_again_gets_its_slot_without_computing_it() {
        let mut cache = SaturatedCache::new(set(&[]), blob(0), 1 << 20);
        let a = cache.slot(&set(&[1]), || blob(1));
        let b = cache.slot(&set(&[2]), || blob(2));
        assert_eq!(cache.slot(&set(&[1]), || unreachable!()), a);
        assert_ne!(a, b);
        assert_eq!(cache.get(b).0[0], 2);
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn over_budget_the_least_recently_used_go_and_the_empty_set_stays() {
        // Each slot is about 100 bytes plus its set: a budget of 1,000 holds some 8 of them
        // and keeps 4 when pruned.
        let mut cache = SaturatedCache::new(set(&[]), blob(0), 1000);
        for walk in 1..=20usize {
            assert!(cache.start_walk().is_none() || cache.stats().bytes <= 500);
            cache.slot(&set(&[walk]), || blob(walk as u8));
            // Slot of set {1} is used by every walk: it must survive every pruning.
            cache.slot(&set(&[1]), || blob(1));
        }
        assert!(
            cache.len() < 21,
            "20 slots of 100 bytes exceed a budget of 1,000"
        );
        assert!(
            cache.stats().bytes <= 1000 + 116,
            "{} bytes",
            cache.stats().bytes
        );
        assert_eq!(cache.get(0).0[0], 0, "slot 0 is still the empty set's");
        let recent = cache.slot(&set(&[20]), || unreachable!("the last set used is kept"));
        assert_eq!(cache.get(recent).0[0], 20);
        cache.slot(&set(&[1]), || {
            unreachable!("the set used by every walk is kept")
        });
        let mut made = false;
        cache.slot(&set(&[2]), || {
            made = true;
            blob(2)
        });
        assert!(
            made,
            "a set unused for 18 walks was dropped and is computed again"
        );
    }

    #[test]
    fn renumbering_says_where_each_kept_slot_went() {
        // Slots of about 116 bytes: four and slot 0 exceed 500, and a pruning keeps two.
        let mut cache = SaturatedCache::new(set(&[]), blob(0), 500);
        for walk in 1..=4usize {
            assert!(cache.start_walk().is_none());
            cache.slot(&set(&[walk]), || blob(walk as u8));
        }
        let kept = cache.slot(&set(&[4]), || unreachable!());
        let renumber = cache.start_walk().expect("over budget");
        assert_eq!(renumber[0], Some(0));
        let new = renumber[kept].expect("the most recent slot is kept") as usize;
        assert_eq!(cache.get(new).0[0], 4);
        assert_eq!(renumber.iter().filter(|n| n.is_some()).count(), cache.len());
    }
}
