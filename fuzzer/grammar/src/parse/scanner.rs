//! Matching one terminal at one position of the input.
//!
//! A terminal may match several lengths at once (the pool values `a` and `ab` at `ab...`);
//! the recognizer keeps them all and the extractor picks one, so the scanner reports every
//! end. Literals and pool values are matched whole, which lets the recognizer jump over a
//! token instead of visiting each of its characters.

use std::collections::HashSet;

use ahash::AHashMap;
use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::{Anchored, Input, MatchKind};

use super::input::marker;
use crate::grammar::{Grammar, LayoutToken, PoolId, Terminal, TerminalId};

pub(crate) struct Scanner<'g> {
    grammar: &'g Grammar,
    pools: Vec<PoolMatcher>,
    /// The grammar's reserved keywords, which a pool value never is (pools exclude them when
    /// their values are derived), so an unknown word must not be one either; a literal that
    /// is only a piece of a longer token (an escape's `x`) is no keyword.
    keywords: HashSet<&'g str>,
    /// The other keywords (`Grammar::reserved`), with their literals: a word equal to one is
    /// a word of a pool only where the grammar does not expect the keyword, which the
    /// recognizer decides once it knows every item of the position.
    soft: AHashMap<&'g [u8], TerminalId>,
    /// Per terminal, the bytes a match can start with (a 256-bit set), so that the recognizer
    /// skips most terminals with one lookup instead of a scan.
    first_bytes: Vec<[u64; 4]>,
    /// Terminals that can match the empty word (an empty literal), at any position.
    empty: Vec<bool>,
    /// Line structure is read into layout markers; otherwise NEWLINE matches a line break.
    indented: bool,
    /// Per terminal, the pools with a pattern whose words it may cut short: the pool itself,
    /// or for a literal every pool whose language holds it (`if`, but not `+`). Where such a
    /// terminal is a whole token it must end where the longest word of each of these pools
    /// ends.
    word_pools: Vec<Vec<PoolId>>,
    /// Per terminal, for an operator literal (punctuation only) that is a whole token: the
    /// longer operators that begin with it, where the layout would have separated the two
    /// tokens it would otherwise be read as. Where one of them matches, a lexer takes it
    /// (maximal munch, as Python's and C's tokenizers do): `**` is one operator, never `*`
    /// followed by `*`, which the layout writes `* *`.
    longer_operators: Vec<Vec<(TerminalId, &'g [u8])>>,
}

/// Where [`Scanner::scan`] appends what it finds.
pub(crate) struct Found<'a> {
    pub ends: &'a mut Vec<u32>,
    pub unknown: &'a mut Vec<u32>,
    pub soft: &'a mut Vec<SoftWord>,
}

/// A pool's word that is also a keyword, but not a reserved one (see `Grammar::reserved`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SoftWord {
    pub end: u32,
    /// The keyword's literal.
    pub keyword: TerminalId,
    /// Not a value of the pool: read only with renaming.
    pub unknown: bool,
}

struct PoolMatcher {
    /// The distinct lengths of the values in bytes: a match is one hash lookup per length.
    lengths: Vec<usize>,
    index: AHashMap<Box<[u8]>, u32>,
    /// The pool's regex, to recognise words of the pool's language that are not among its
    /// values; `None` for pools given as a list.
    pattern: Option<dense::DFA<Vec<u32>>>,
}

/// DFAs above this size are not built; their pool then only knows its listed values.
const DFA_SIZE_LIMIT: usize = 1 << 22;

impl<'g> Scanner<'g> {
    pub fn new(grammar: &'g Grammar, indented: bool) -> Self {
        let pools = grammar
            .pools
            .iter()
            .map(|pool| {
                let mut index = AHashMap::new();
                for (i, value) in pool.values.iter().enumerate() {
                    index
                        .entry(value.as_bytes().to_vec().into_boxed_slice())
                        .or_insert(i as u32);
                }
                let mut lengths: Vec<usize> = pool.values.iter().map(String::len).collect();
                lengths.sort_unstable();
                lengths.dedup();
                let pattern = pool.pattern.as_deref().and_then(|p| {
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
                PoolMatcher {
                    lengths,
                    index,
                    pattern,
                }
            })
            .collect();
        let keywords = grammar.reserved_keywords();
        let all = grammar.keywords();
        let soft = grammar
            .terminals
            .iter()
            .enumerate()
            .filter_map(|(t, terminal)| match terminal {
                Terminal::Literal(s)
                    if all.contains(s.as_str()) && !keywords.contains(s.as_str()) =>
                {
                    Some((s.as_bytes(), TerminalId(t as u32)))
                }
                _ => None,
            })
            .collect();
        let mut first_bytes = vec![[0u64; 4]; grammar.terminals.len()];
        let mut empty = vec![false; grammar.terminals.len()];
        for (t, terminal) in grammar.terminals.iter().enumerate() {
            let set = &mut first_bytes[t];
            let mut add = |b: u8| set[(b >> 6) as usize] |= 1 << (b & 63);
            match terminal {
                Terminal::Literal(s) => match s.as_bytes().first() {
                    Some(&b) => add(b),
                    None => empty[t] = true,
                },
                Terminal::Class(class) => {
                    for &(a, b) in class.ranges() {
                        let (first, last) = (lead_byte(a), lead_byte(b));
                        for byte in first..=last {
                            add(byte);
                        }
                    }
                }
                Terminal::Layout(LayoutToken::Newline) if !indented => {
                    add(b'\n');
                    add(b'\r');
                }
                Terminal::Layout(token) => match marker(*token) {
                    Some(byte) => add(byte),
                    None => {
                        empty[t] = true;
                        for byte in 0..=255 {
                            add(byte);
                        }
                    }
                },
                Terminal::Pool(p) => {
                    if grammar.pools[p.index()].pattern.is_some() {
                        // Unknown words may start with anything the pattern allows.
                        for byte in 0..=255 {
                            add(byte);
                        }
                    }
                    for value in &grammar.pools[p.index()].values {
                        if let Some(&b) = value.as_bytes().first() {
                            add(b);
                        }
                    }
                }
            }
        }
        let mut scanner = Self {
            grammar,
            pools,
            keywords,
            soft,
            first_bytes,
            empty,
            indented,
            word_pools: Vec::new(),
            longer_operators: Vec::new(),
        };
        let operators: Vec<(TerminalId, &str)> = grammar
            .terminals
            .iter()
            .enumerate()
            .filter_map(|(t, terminal)| match terminal {
                // Every literal of punctuation, tokens' pieces included: a string's opening
                // `"""` is a longer opener than `"` where both are expected.
                Terminal::Literal(s)
                    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_punctuation()) =>
                {
                    Some((TerminalId(t as u32), s.as_str()))
                }
                _ => None,
            })
            .collect();
        scanner.longer_operators = grammar
            .terminals
            .iter()
            .map(|terminal| match terminal {
                Terminal::Literal(s) if operators.iter().any(|&(_, o)| o == s) => {
                    let last = s.chars().next_back().unwrap_or(' ');
                    operators
                        .iter()
                        .filter(|(_, longer)| {
                            let next = longer[s.len().min(longer.len())..].chars().next();
                            longer.len() > s.len()
                                && longer.starts_with(s.as_str())
                                && next
                                    .is_some_and(|next| crate::text::needs_space(last, next, false))
                        })
                        .map(|&(t, longer)| (t, longer.as_bytes()))
                        .collect()
                }
                _ => Vec::new(),
            })
            .collect();
        scanner.word_pools = grammar
            .terminals
            .iter()
            .map(|terminal| match terminal {
                Terminal::Literal(s) if !s.is_empty() => (0..grammar.pools.len())
                    .map(|p| PoolId(p as u32))
                    .filter(|&p| scanner.longest_word(p, s.as_bytes(), 0) == Some(s.len()))
                    .collect(),
                Terminal::Pool(p) if scanner.pools[p.index()].pattern.is_some() => vec![*p],
                _ => Vec::new(),
            })
            .collect();
        scanner
    }

    /// The operators longer than `terminal` that match at `pos`: where the grammar expects
    /// one of them, a lexer would not read `terminal` there (see `longer_operators`).
    pub fn longer_operators_here<'a>(
        &'a self,
        terminal: TerminalId,
        units: &'a [u8],
        pos: usize,
    ) -> impl Iterator<Item = TerminalId> + 'a {
        let rest = units.get(pos..).unwrap_or_default();
        self.longer_operators[terminal.index()]
            .iter()
            .filter(move |(_, longer)| rest.starts_with(longer))
            .map(|&(t, _)| t)
    }

    /// The pools whose words `terminal` must not cut short where it is a whole token.
    pub fn word_pools(&self, terminal: TerminalId) -> &[PoolId] {
        &self.word_pools[terminal.index()]
    }

    /// Whether `terminal` can match at all where the next byte is `next` (`None` at the end).
    pub fn may_match(&self, terminal: TerminalId, next: Option<u8>) -> bool {
        match next {
            Some(b) => self.first_bytes[terminal.index()][(b >> 6) as usize] & (1 << (b & 63)) != 0,
            None => self.empty[terminal.index()],
        }
    }

    pub fn grammar(&self) -> &'g Grammar {
        self.grammar
    }

    pub fn indented(&self) -> bool {
        self.indented
    }

    /// Ends of the matches of `terminal` at `pos`, appended to `ends`. With `rename`, a word
    /// of a pool's language that is not one of its values also matches (its longest match
    /// only, as any tokenizer reads identifiers), and its end is appended to `unknown` too.
    /// A pool's word (value or not) that is a keyword but not a reserved one goes to `soft`
    /// instead, for the recognizer to decide.
    pub fn scan(
        &self,
        terminal: TerminalId,
        units: &[u8],
        pos: usize,
        rename: bool,
        found: Found<'_>,
    ) {
        let Found {
            ends,
            unknown,
            soft,
        } = found;
        let rest = &units[pos..];
        match self.grammar.terminal(terminal) {
            Terminal::Literal(s) => {
                if rest.starts_with(s.as_bytes()) {
                    ends.push((pos + s.len()) as u32);
                }
            }
            Terminal::Class(class) => {
                if let Some((c, len)) = char_at(units, pos)
                    && class.offset_of(c).is_some()
                {
                    ends.push((pos + len) as u32);
                }
            }
            Terminal::Layout(LayoutToken::Newline) if !self.indented => {
                if rest.starts_with(b"\r\n") {
                    ends.push(pos as u32 + 2);
                } else if rest.starts_with(b"\n") {
                    ends.push(pos as u32 + 1);
                }
            }
            Terminal::Layout(token) => match marker(*token) {
                Some(byte) if rest.first() == Some(&byte) => ends.push(pos as u32 + 1),
                Some(_) => {}
                None => ends.push(pos as u32),
            },
            Terminal::Pool(p) => {
                let matcher = &self.pools[p.index()];
                for &len in &matcher.lengths {
                    if let Some(word) = rest.get(..len)
                        && matcher.index.contains_key(word)
                    {
                        match self.soft.get(word) {
                            Some(&keyword) => soft.push(SoftWord {
                                end: (pos + len) as u32,
                                keyword,
                                unknown: false,
                            }),
                            None => ends.push((pos + len) as u32),
                        }
                    }
                }
                if rename && let Some(end) = self.unknown_word(*p, units, pos) {
                    match self.soft.get(&units[pos..end]) {
                        Some(&keyword) => soft.push(SoftWord {
                            end: end as u32,
                            keyword,
                            unknown: true,
                        }),
                        None => {
                            ends.push(end as u32);
                            unknown.push(end as u32);
                        }
                    }
                }
            }
        }
    }

    /// The longest word of the pool's language at `pos`, if it is neither a value of the pool
    /// nor a reserved keyword of the grammar.
    pub fn unknown_word(&self, pool: PoolId, units: &[u8], pos: usize) -> Option<usize> {
        let end = self.longest_word(pool, units, pos)?;
        let word = &units[pos..end];
        let known = self.pools[pool.index()].index.contains_key(word);
        let keyword = std::str::from_utf8(word).is_ok_and(|w| self.keywords.contains(w));
        (!known && !keyword).then_some(end)
    }

    /// The end of the longest word of the pool's language at `pos`, if the pool has a pattern
    /// and some word starts there.
    pub fn longest_word(&self, pool: PoolId, units: &[u8], pos: usize) -> Option<usize> {
        let dfa = self.pools[pool.index()].pattern.as_ref()?;
        let input = Input::new(units).range(pos..).anchored(Anchored::Yes);
        let mut state = dfa.start_state_forward(&input).ok()?;
        let mut longest = None;
        let mut dead = false;
        for (i, &b) in units[pos..].iter().enumerate() {
            state = dfa.next_state(state, b);
            if dfa.is_match_state(state) {
                // DFA matches are reported one byte late.
                longest = Some(pos + i);
            } else if dfa.is_dead_state(state) {
                dead = true;
                break;
            }
        }
        if !dead {
            state = dfa.next_eoi_state(state);
            if dfa.is_match_state(state) {
                longest = Some(units.len());
            }
        }
        longest.filter(|&end| end > pos)
    }

    /// The pool values that end exactly at `end`, as (start, value index), longest first.
    pub fn pool_values_ending_at(
        &self,
        pool: PoolId,
        units: &[u8],
        end: usize,
        out: &mut Vec<(u32, u32)>,
    ) {
        let matcher = &self.pools[pool.index()];
        for &len in matcher.lengths.iter().rev() {
            if let Some(start) = end.checked_sub(len)
                && let Some(&value) = matcher.index.get(&units[start..end])
            {
                out.push((start as u32, value));
            }
        }
    }
}

/// The first UTF-8 byte of `c`; the lead bytes of a range of characters are a range too.
fn lead_byte(c: char) -> u8 {
    let mut buf = [0u8; 4];
    c.encode_utf8(&mut buf).as_bytes()[0]
}

/// The character starting at `pos`, with its length in bytes; `None` at a layout marker, at
/// the end, or in the middle of a character.
pub(crate) fn char_at(units: &[u8], pos: usize) -> Option<(char, usize)> {
    let first = *units.get(pos)?;
    let len = match first {
        0x00..=0x7F => return Some((first as char, 1)),
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return None,
    };
    let bytes = units.get(pos..pos + len)?;
    let c = std::str::from_utf8(bytes).ok()?.chars().next()?;
    Some((c, len))
}

/// The character ending at `end`, with its length in bytes.
pub(crate) fn char_before(units: &[u8], end: usize) -> Option<(char, usize)> {
    let last = *units.get(end.checked_sub(1)?)?;
    if last < 0x80 {
        return Some((last as char, 1));
    }
    (1..=4.min(end))
        .filter(|&len| units[end - len] & 0xC0 != 0x80)
        .find_map(|len| char_at(units, end - len).filter(|&(_, l)| l == len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_decoded_both_ways() {
        let units = "aé€😀".as_bytes();
        assert_eq!(char_at(units, 0), Some(('a', 1)));
        assert_eq!(char_at(units, 1), Some(('é', 2)));
        assert_eq!(char_at(units, 2), None);
        assert_eq!(char_before(units, units.len()), Some(('😀', 4)));
        assert_eq!(char_before(units, 3), Some(('é', 2)));
        assert_eq!(char_before(units, 2), None);
        assert_eq!(char_at(&[0xFD], 0), None);
    }

    #[test]
    fn pools_match_values_and_recognise_unknown_words() {
        let grammar =
            Grammar::from_text("t", "s = ID \"if\" ID ;\n%pool ID = /[a-z][a-z0-9]*/ ;").unwrap();
        let scanner = Scanner::new(&grammar, false);
        let Symbol::Terminal(id) = grammar.rules[0].alternatives[0].symbols[0] else {
            panic!("ID is a terminal");
        };
        let (mut ends, mut unknown) = (Vec::new(), Vec::new());
        let mut soft = Vec::new();
        for rename in [false, true] {
            let found = Found {
                ends: &mut ends,
                unknown: &mut unknown,
                soft: &mut soft,
            };
            scanner.scan(id, b"ab1 x", 0, rename, found);
            if !rename {
                assert_eq!(ends, [1, 2], "values a and ab");
            }
        }
        assert!(soft.is_empty(), "every keyword is reserved");
        assert_eq!(unknown, [3], "ab1 is not among the first values");
        assert_eq!(scanner.unknown_word(PoolId(0), b"if x", 0), None, "keyword");
        assert_eq!(scanner.unknown_word(PoolId(0), b"iffy", 0), Some(4));
        let mut found = Vec::new();
        scanner.pool_values_ending_at(PoolId(0), b"x ab", 4, &mut found);
        assert_eq!(
            found,
            [(2, 26 + 10 + 1), (3, 1)],
            "ab (after a..z and a0..a9, aa), then b"
        );
    }

    use crate::grammar::Symbol;
}
