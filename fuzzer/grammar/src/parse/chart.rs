//! The Earley chart: one set of items per input position that some item reached.
//!
//! Items that start where they are (origin = position) are exactly the closures of the
//! nonterminals predicted there, so a set stores only the predicted nonterminals that opened
//! each closure, not their items: that halves the items of a typical set. Such *virtual* items
//! are found through `ParseTable::closure_sorted` and `closure_waiting`; the stored, *explicit*
//! items all started earlier.
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

/// A dotted production with the position its production started at. The nonterminal the
/// dot waits for is copied in, first, so that sets sort and search by plain comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Item {
    pub waits_for: u32,
    pub dot: u32,
    pub origin: u32,
}

impl Item {
    pub fn new(table: &ParseTable, dot: u32, origin: u32) -> Self {
        Self {
            waits_for: table.dots[dot as usize].waits_for,
            dot,
            origin,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Set {
    position: u32,
    items: (u32, u32),
    /// Items before this index wait for a nonterminal, grouped by it.
    waiting_end: u32,
    /// Range in `Chart::predicted` of the nonterminals whose closures were opened here.
    predicted: (u32, u32),
}

/// Sets up to this size are only partitioned (items waiting for a nonterminal first, grouped
/// by it) and searched linearly, which is faster than sorting them; larger sets are sorted and
/// binary searched.
const SMALL_SET: usize = 24;

#[derive(Default)]
pub(crate) struct Chart {
    pub items: Vec<Item>,
    /// Predicted nonterminals of all sets, in set order.
    pub predicted: Vec<u32>,
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
            items: Vec::with_capacity(positions * 4),
            predicted: Vec::new(),
            sets: Vec::new(),
            set_at: vec![NONE; positions + 1],
            unknown_words: AHashMap::new(),
        }
    }

    /// Sorts the items from `start` on, which form the set at `position`, and records it.
    /// `predicted_start` is where this set's predicted nonterminals begin in `predicted`.
    pub fn close(&mut self, position: usize, start: usize, predicted_start: usize) {
        let set = &mut self.items[start..];
        let waiting = if set.len() > SMALL_SET {
            set.sort_unstable();
            set.partition_point(|i| i.waits_for != NONE)
        } else {
            let mut waiting = 0;
            for i in 0..set.len() {
                if set[i].waits_for != NONE {
                    set.swap(i, waiting);
                    waiting += 1;
                }
            }
            set[..waiting].sort_unstable_by_key(|i| i.waits_for);
            waiting
        };
        self.set_at[position] = self.sets.len() as u32;
        self.sets.push(Set {
            position: position as u32,
            items: (start as u32, self.items.len() as u32),
            waiting_end: (start + waiting) as u32,
            predicted: (predicted_start as u32, self.predicted.len() as u32),
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

    /// Indices into `items` of the items at `position` that wait for `nonterminal`.
    pub fn waiting(&self, position: usize, nonterminal: u32) -> Range<usize> {
        let Some(&index) = self.set_at.get(position) else {
            return 0..0;
        };
        if index == NONE {
            return 0..0;
        }
        let set = self.sets[index as usize];
        let start = set.items.0 as usize;
        let waiting = &self.items[start..set.waiting_end as usize];
        let low = waiting.partition_point(|i| i.waits_for < nonterminal);
        let high = low + waiting[low..].partition_point(|i| i.waits_for <= nonterminal);
        start + low..start + high
    }

    /// Items at `position` whose dot lies in `dots` and waits for no nonterminal (complete
    /// dots, among others).
    /// In a small set, all items that wait for no nonterminal (callers check the dot).
    pub fn not_waiting(&self, position: usize, dots: Range<u32>) -> &[Item] {
        let Some(&index) = self.set_at.get(position) else {
            return &[];
        };
        if index == NONE {
            return &[];
        }
        let info = self.sets[index as usize];
        let set = &self.items[info.waiting_end as usize..info.items.1 as usize];
        if set.len() + (info.waiting_end - info.items.0) as usize <= SMALL_SET {
            return set;
        }
        let low = set.partition_point(|i| i.dot < dots.start);
        let high = low + set[low..].partition_point(|i| i.dot < dots.end);
        &set[low..high]
    }

    /// Range in `predicted` of the nonterminals predicted at `position`.
    pub fn predicted_at(&self, position: usize) -> std::ops::Range<usize> {
        match self.set_at.get(position) {
            Some(&index) if index != NONE => {
                let (start, end) = self.sets[index as usize].predicted;
                start as usize..end as usize
            }
            _ => 0..0,
        }
    }

    /// Every item at `position`, virtual ones included; for messages, not for hot paths.
    pub fn items_at(&self, table: &ParseTable, position: usize) -> Vec<Item> {
        let mut items = self.set(position).map_or_else(Vec::new, <[Item]>::to_vec);
        for p in self.predicted_at(position) {
            for &dot in &table.closure[self.predicted[p] as usize] {
                items.push(Item::new(table, dot, position as u32));
            }
        }
        items.sort_unstable();
        items.dedup();
        items
    }

    pub fn contains(&self, table: &ParseTable, position: usize, dot: u32, origin: u32) -> bool {
        if origin as usize == position {
            return self.predicted_at(position).any(|p| {
                table.closure_sorted[self.predicted[p] as usize]
                    .binary_search(&dot)
                    .is_ok()
            });
        }
        let item = Item::new(table, dot, origin);
        self.set(position).is_some_and(|set| {
            if set.len() <= SMALL_SET {
                set.contains(&item)
            } else {
                set.binary_search(&item).is_ok()
            }
        })
    }
}
