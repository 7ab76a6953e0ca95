//! Consistent renaming of identifiers that are not values of their pool.
//!
//! Real seeds name things `total` and `parse_header`, while a pool holds the values its bound
//! m counts (`a`, `b`, `c`, ...). Renaming maps each unknown word, in the order it first occurs
//! in the text, to the first value of the pool that the seed neither uses itself nor has
//! already given to another word. The same word always gets the same value, so the seed keeps
//! its meaning (a variable declared and then used stays one variable), but its text changes,
//! unless the input keeps the word as its own (see [`crate::choice::OwnWords`]): then the value
//! is only the index the choices record, and the text says the word.

use ahash::AHashMap;

use crate::grammar::{Grammar, PoolId};

/// One unknown word and the pool value that replaced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rename {
    /// The pool the word was read as a value of.
    pub pool: PoolId,
    /// The word as it appears in the text.
    pub from: String,
    /// The pool value every occurrence of `from` was replaced with.
    pub to: String,
    /// That value's index in the pool, which the choices record.
    pub value: u32,
}

pub(crate) struct PoolRenamer {
    /// Per pool: which values the text uses itself or has handed out.
    taken: Vec<Vec<bool>>,
    assigned: Vec<AHashMap<String, u32>>,
    pub renames: Vec<Rename>,
}

impl PoolRenamer {
    pub fn new(grammar: &Grammar) -> Self {
        Self {
            taken: grammar
                .pools
                .iter()
                .map(|p| vec![false; p.values.len()])
                .collect(),
            assigned: vec![AHashMap::new(); grammar.pools.len()],
            renames: Vec::new(),
        }
    }

    /// Marks the values the text uses as they are.
    pub fn collect_known(&mut self, values: &[(PoolId, u32)]) {
        for &(pool, value) in values {
            if let Some(slot) = self.taken[pool.index()].get_mut(value as usize) {
                *slot = true;
            }
        }
    }

    pub fn rename(&mut self, grammar: &Grammar, pool: PoolId, word: &str) -> Result<u32, String> {
        if let Some(&value) = self.assigned[pool.index()].get(word) {
            return Ok(value);
        }
        let taken = &mut self.taken[pool.index()];
        let Some(free) = taken.iter().position(|&t| !t) else {
            let pool = &grammar.pools[pool.index()];
            return Err(format!(
                "cannot rename '{word}': the text uses more distinct words than pool {} has values ({})",
                pool.name,
                pool.values.len()
            ));
        };
        taken[free] = true;
        let to = grammar.pools[pool.index()].values[free].clone();
        self.assigned[pool.index()].insert(word.to_string(), free as u32);
        self.renames.push(Rename {
            pool,
            from: word.to_string(),
            to,
            value: free as u32,
        });
        Ok(free as u32)
    }
}
