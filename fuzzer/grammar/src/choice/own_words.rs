//! Words an input brings of its own for pool values: a real seed's identifiers.
//!
//! A pool holds the values the bound m counts (`a`, `b`, ...), while a seed file names things
//! `total` and `parse_header`. Renaming them to pool values changes the seed's text; keeping
//! them means the input carries them: each of its own words stands in for one pool value, the
//! one the parser would have renamed it to. The choices stay what they were (the value's index,
//! so m still counts distinct names and the sequence replays under the same bounds), and only
//! the text changes back to the seed's. Mutants inherit their parent's words, so a mutation of
//! an imported seed keeps the seed's vocabulary as well as its structure.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::grammar::PoolId;

/// One pool value spoken as a word of the input's own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OwnWord {
    /// The pool whose value the word stands in for.
    pub pool: PoolId,
    /// The index of that value (below the pool's length, so every bound that allows the
    /// value allows the word).
    pub value: u32,
    /// What the text says instead of the pool's value.
    pub word: String,
}

/// An input's own words, ordered by pool and value, at most one per value.
///
/// Shared, not copied: the fuzzing loop hands an input's words to every execution of its
/// mutants, and most inputs (all generated ones) have none, which costs no allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct OwnWords(Option<Arc<[OwnWord]>>);

impl OwnWords {
    /// The words, sorted; of two words for one value, the first given is kept, as the parser
    /// gives each value to one word only.
    pub fn new(mut words: Vec<OwnWord>) -> Self {
        if words.is_empty() {
            return Self(None);
        }
        words.sort_by_key(|w| (w.pool, w.value));
        words.dedup_by_key(|w| (w.pool, w.value));
        Self(Some(words.into()))
    }

    /// No words of its own: the input speaks only pool values.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many pool values have a word of their own.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// The words in pool and value order.
    pub fn as_slice(&self) -> &[OwnWord] {
        self.0.as_deref().unwrap_or(&[])
    }

    /// The word that stands in for `value` of `pool`, if the input has one.
    pub fn get(&self, pool: PoolId, value: u32) -> Option<&str> {
        let words = self.as_slice();
        words
            .binary_search_by_key(&(pool, value), |w| (w.pool, w.value))
            .ok()
            .map(|i| words[i].word.as_str())
    }
}

impl Serialize for OwnWords {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for OwnWords {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<OwnWord>::deserialize(deserializer).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(pool: u32, value: u32, word: &str) -> OwnWord {
        OwnWord {
            pool: PoolId(pool),
            value,
            word: word.into(),
        }
    }

    #[test]
    fn looks_up_by_pool_and_value_and_keeps_the_first_word_of_a_value() {
        let words = OwnWords::new(vec![
            word(1, 0, "total"),
            word(0, 2, "sys"),
            word(0, 0, "os"),
            word(0, 2, "later"),
        ]);
        assert_eq!(words.len(), 3);
        assert_eq!(words.get(PoolId(0), 0), Some("os"));
        assert_eq!(words.get(PoolId(0), 2), Some("sys"));
        assert_eq!(words.get(PoolId(1), 0), Some("total"));
        assert_eq!(words.get(PoolId(0), 1), None);
        assert_eq!(words.get(PoolId(2), 0), None);
        assert!(OwnWords::new(vec![]).is_empty());
        let bytes = postcard::to_stdvec(&words).unwrap();
        assert_eq!(postcard::from_bytes::<OwnWords>(&bytes).unwrap(), words);
    }
}
