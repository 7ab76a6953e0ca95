//! The Earley chart: one set of items per input position that some item reached.
//!
//! Sets live in one flat item array. Positions that no item reaches (the inside of a literal
//! the recognizer jumped over) get no set at all. Once a set is closed its items are sorted by
//! (nonterminal waited for, dot, origin): completion then finds the items waiting for a
//! nonterminal, and extraction tests whether an item is present, each with a binary search,
//! and no per-set hash table is kept.

use std::ops::Range;

use ahash::AHashMap;

use super::table::{NONE, ParseTable};
use crate::grammar::PoolId;

/// A dotted production with the position its production started at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Item {
    pub dot: u32,
    pub origin: u32,
}

#[derive(Clone, Copy, Debug)]
struct Set {
    position: u32,
    items: (u32, u32),
}

#[derive(Default)]
pub(crate) struct Chart {
    pub items: Vec<Item>,
    sets: Vec<Set>,
    /// Set index per input position, or [`NONE`].
    set_at: Vec<u32>,
    /// Words of a pool's language that are not among its values, by (pool, end): their
    /// starts. Only filled when renaming pools.
    pub unknown_words: AHashMap<(PoolId, u32), Vec<u32>>,
}

impl Chart {
    pub fn new(positions: usize) -> Self {
        Self {
            items: Vec::new(),
            sets: Vec::new(),
            set_at: vec![NONE; positions + 1],
            unknown_words: AHashMap::new(),
        }
    }

    /// Sorts the items from `start` on, which form the set at `position`, and records it.
    pub fn close(&mut self, table: &ParseTable, position: usize, start: usize) {
        self.items[start..].sort_unstable_by_key(|item| key(table, item.dot, item.origin));
        self.set_at[position] = self.sets.len() as u32;
        self.sets.push(Set {
            position: position as u32,
            items: (start as u32, self.items.len() as u32),
        });
    }

    pub fn last_position(&self) -> Option<usize> {
        self.sets.last().map(|s| s.position as usize)
    }

    pub fn set(&self, position: usize) -> Option<&[Item]> {
        let index = *self.set_at.get(position)?;
        (index != NONE).then(|| {
            let (start, end) = self.sets[index as usize].items;
            &self.items[start as usize..end as usize]
        })
    }

    fn range(&self, position: usize) -> Option<Range<usize>> {
        let index = *self.set_at.get(position)?;
        (index != NONE).then(|| {
            let (start, end) = self.sets[index as usize].items;
            start as usize..end as usize
        })
    }

    /// Indices into `items` of the items at `position` that wait for `nonterminal`.
    pub fn waiting(&self, table: &ParseTable, position: usize, nonterminal: u32) -> Range<usize> {
        let Some(range) = self.range(position) else {
            return 0..0;
        };
        let set = &self.items[range.clone()];
        let dots = &table.dots;
        let low = set.partition_point(|i| dots[i.dot as usize].waits_for < nonterminal);
        let high = set.partition_point(|i| dots[i.dot as usize].waits_for <= nonterminal);
        range.start + low..range.start + high
    }

    /// Items at `position` with dot `dot`, which must not wait for a nonterminal (a complete
    /// dot, say).
    pub fn with_dot(&self, table: &ParseTable, position: usize, dot: u32) -> &[Item] {
        let Some(set) = self.set(position) else {
            return &[];
        };
        let low = set.partition_point(|i| key(table, i.dot, i.origin) < key(table, dot, 0));
        let high = set.partition_point(|i| key(table, i.dot, i.origin) <= key(table, dot, NONE));
        &set[low..high]
    }

    pub fn contains(&self, table: &ParseTable, position: usize, dot: u32, origin: u32) -> bool {
        self.set(position).is_some_and(|set| {
            set.binary_search_by_key(&key(table, dot, origin), |i| key(table, i.dot, i.origin))
                .is_ok()
        })
    }
}

fn key(table: &ParseTable, dot: u32, origin: u32) -> (u32, u32, u32) {
    (table.dots[dot as usize].waits_for, dot, origin)
}
