//! Whether two token languages share a word, for an exported lexer that must resolve ties.
//!
//! A lexer such as ANTLR's gives a word that two token rules both match to the rule defined
//! first, whatever the parser expects at that point; Bonsai has no lexer and draws each token
//! from its own rule. An exported parser therefore has to accept, wherever it expects a token,
//! every earlier token that can take one of its words. Languages are compared exactly: each is
//! compiled to a DFA and the pair's product is searched for a state where both accept.

use std::collections::HashSet;

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::util::primitives::StateID;
use regex_automata::{Anchored, Input, MatchKind};

/// DFAs above this size are not built: the pair is then taken to overlap, which only costs
/// an alternative the parser never needs.
const DFA_SIZE_LIMIT: usize = 1 << 20;

/// A token's language, ready to be compared.
pub struct Language {
    dfa: Option<dense::DFA<Vec<u32>>>,
}

impl Language {
    /// The language of a regex-syntax pattern; `None` (an unknown language) overlaps
    /// everything.
    pub fn new(pattern: Option<&str>) -> Self {
        let dfa = pattern.and_then(|p| {
            dense::Builder::new()
                .configure(
                    dense::Config::new()
                        .start_kind(StartKind::Anchored)
                        .match_kind(MatchKind::All)
                        .dfa_size_limit(Some(DFA_SIZE_LIMIT))
                        .determinize_size_limit(Some(DFA_SIZE_LIMIT)),
                )
                .build(p)
                .ok()
        });
        Self { dfa }
    }

    fn start(dfa: &dense::DFA<Vec<u32>>) -> Option<StateID> {
        dfa.start_state_forward(&Input::new("").anchored(Anchored::Yes))
            .ok()
    }

    /// Whether the whole of `word` is in the language.
    pub fn matches(&self, word: &str) -> bool {
        let Some(dfa) = &self.dfa else {
            return true;
        };
        let Some(mut state) = Self::start(dfa) else {
            return true;
        };
        for &byte in word.as_bytes() {
            state = dfa.next_state(state, byte);
            if dfa.is_dead_state(state) {
                return false;
            }
        }
        dfa.is_match_state(dfa.next_eoi_state(state))
    }

    /// Whether some word is in both languages.
    pub fn overlaps(&self, other: &Language) -> bool {
        let (Some(a), Some(b)) = (&self.dfa, &other.dfa) else {
            return true;
        };
        let (Some(sa), Some(sb)) = (Self::start(a), Self::start(b)) else {
            return true;
        };
        let mut seen = HashSet::new();
        let mut stack = vec![(sa, sb)];
        while let Some((x, y)) = stack.pop() {
            if !seen.insert((x, y)) {
                continue;
            }
            if a.is_match_state(a.next_eoi_state(x)) && b.is_match_state(b.next_eoi_state(y)) {
                return true;
            }
            for byte in 0..=255u8 {
                let (nx, ny) = (a.next_state(x, byte), b.next_state(y, byte));
                if !a.is_dead_state(nx) && !b.is_dead_state(ny) {
                    stack.push((nx, ny));
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_overlap_exactly_when_they_share_a_word() {
        let ilit = Language::new(Some("[1-9]i"));
        let unsigned = Language::new(Some("[1-7]u"));
        let ulit = Language::new(Some("[1-9]u"));
        let index = Language::new(Some("[0-3]u"));
        assert!(!ilit.overlaps(&unsigned));
        assert!(unsigned.overlaps(&ulit));
        assert!(index.overlaps(&ulit), "1u, 2u, 3u");
        assert!(!Language::new(Some("0u")).overlaps(&ulit));
        let string = Language::new(Some(r#""[ -!#-~]*""#));
        let key = Language::new(Some(r#""[a-z]+""#));
        assert!(string.overlaps(&key) && key.overlaps(&string));
        assert!(!Language::new(Some("a+")).overlaps(&Language::new(Some("b+"))));
    }

    #[test]
    fn matches_whole_words_only() {
        let int = Language::new(Some("0|[1-9][0-9]{0,2}"));
        assert!(int.matches("0") && int.matches("120"));
        assert!(!int.matches("01") && !int.matches("1200") && !int.matches(""));
        let unknown = Language::new(None);
        assert!(unknown.matches("anything") && unknown.overlaps(&int));
    }
}
