//! Pool terminals: user-defined terminal classes (identifiers, literals) whose values come from
//! a fixed, ordered list, as the Bonsai bound m requires.
//!
//! A pool draw is an index into the list, so index `i` means the same value under every bound;
//! the bound m only decides which prefix of the list is allowed.

use std::collections::HashSet;

use regex_syntax::hir::{Class, Hir, HirKind};

use crate::diagnostic::Span;

/// How many values a pool derived from a regex holds. The bound m can be at most this; larger
/// values of m simply allow the whole pool.
pub const POOL_CAPACITY: usize = 1024;

/// Values longer than this are never derived: a pool exists to name things, and a regex whose
/// shortest words are longer than this is better written as a regex terminal.
const MAX_VALUE_LEN: usize = 32;

/// A pool terminal: a named, ordered list of values. A draw is an index into the list, so only
/// prefixes of it are ever allowed, which is what lets the bound m mean the same under every run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// The name the grammar declares the pool under, as rules refer to it.
    pub name: String,
    /// The values in draw order; the bound m allows the first m of them.
    pub values: Vec<String>,
    /// The regex the values were derived from, if any. Kept so that an exported grammar says
    /// `/[a-z]+/` rather than listing 256 values: re-deriving gives the same list because the
    /// excluded keywords are the grammar's own reserved literals (with its `%reserved` list).
    pub pattern: Option<String>,
    /// Where the pool is declared in the grammar file, for the unused-pool warning.
    pub span: Span,
}

/// The first `needed` words of the language of `hir`, in shortlex order (shorter first, then
/// by code point), skipping any word in `exclude`. Grammar keywords are excluded so that a
/// derived identifier never collides with a keyword.
pub fn shortlex_words(hir: &Hir, needed: usize, exclude: &HashSet<String>) -> Vec<String> {
    let cap = (needed + exclude.len()) * 2 + 8;
    let max_len = hir
        .properties()
        .maximum_len()
        .map_or(MAX_VALUE_LEN, |m| m.min(MAX_VALUE_LEN));
    // Shortlex order puts every word of at most `limit` characters before every longer one,
    // so once the words up to some limit are enough, they are the first words of the whole
    // language; the limit doubles, so a language with few short words costs a handful of
    // rounds rather than one per length.
    let mut limit = 0;
    loop {
        let words: Vec<String> = words_up_to(hir, limit, cap)
            .into_iter()
            .filter(|w| !exclude.contains(w))
            .take(needed)
            .collect();
        if words.len() >= needed || limit >= max_len {
            return words;
        }
        limit = (limit * 2).clamp(1, max_len);
    }
}

/// The words of `hir`'s language written in ASCII only. A pool's values are drawn from
/// them (when there are any), so that an identifier rule that also admits `名` (for reading a
/// seed's names) still generates `a`, `b`, `c`: shortlex order would otherwise put every
/// one-character word beyond ASCII before `aa`.
pub fn ascii_part(hir: &Hir) -> Hir {
    use regex_syntax::hir::{
        Capture, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Repetition,
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => {
            let mut ascii = class.clone();
            ascii.intersect(&ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7F')]));
            Hir::class(Class::Unicode(ascii))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut ascii = class.clone();
            ascii.intersect(&ClassBytes::new([ClassBytesRange::new(0, 0x7F)]));
            Hir::class(Class::Bytes(ascii))
        }
        HirKind::Literal(literal) if literal.0.is_ascii() => hir.clone(),
        HirKind::Literal(_) => Hir::fail(),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(ascii_part(&rep.sub)),
            ..rep.clone()
        }),
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(ascii_part(&capture.sub)),
            ..capture.clone()
        }),
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(ascii_part).collect()),
        HirKind::Alternation(alts) => Hir::alternation(alts.iter().map(ascii_part).collect()),
        HirKind::Empty | HirKind::Look(_) => hir.clone(),
    }
}

fn shortlex_key(s: &str) -> (usize, &str) {
    (s.chars().count(), s)
}

fn normalize(mut words: Vec<String>, cap: usize) -> Vec<String> {
    words.sort_by(|a, b| shortlex_key(a).cmp(&shortlex_key(b)));
    words.dedup();
    words.truncate(cap);
    words
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The shortlex-smallest `cap` words of at most `limit` characters. Truncating every
/// intermediate result to `cap` is safe: a word among the `cap` smallest of a concatenation is
/// always built from words among the `cap` smallest of each part.
fn words_up_to(hir: &Hir, limit: usize, cap: usize) -> Vec<String> {
    // A part whose every word is longer than the limit has none to give (`\d{65535}`): a
    // character is at most four bytes, and the minimum is known without enumerating.
    if hir
        .properties()
        .minimum_len()
        .is_some_and(|bytes| bytes > 4 * limit)
    {
        return vec![];
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => vec![String::new()],
        HirKind::Literal(lit) => {
            let s = String::from_utf8_lossy(&lit.0).into_owned();
            if char_len(&s) <= limit {
                vec![s]
            } else {
                vec![]
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            if limit == 0 {
                return vec![];
            }
            let mut out = Vec::new();
            'ranges: for range in class.iter() {
                for c in range.start()..=range.end() {
                    if out.len() >= cap {
                        break 'ranges;
                    }
                    out.push(c.to_string());
                }
            }
            out
        }
        HirKind::Class(Class::Bytes(class)) => {
            if limit == 0 {
                return vec![];
            }
            class
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .filter(|b| b.is_ascii())
                .take(cap)
                .map(|b| (b as char).to_string())
                .collect()
        }
        HirKind::Capture(cap_group) => words_up_to(&cap_group.sub, limit, cap),
        HirKind::Concat(parts) => {
            let mut acc = vec![String::new()];
            for part in parts {
                let words = words_up_to(part, limit, cap);
                acc = concat(&acc, &words, limit, cap);
                if acc.is_empty() {
                    break;
                }
            }
            acc
        }
        HirKind::Alternation(alts) => normalize(
            alts.iter()
                .flat_map(|a| words_up_to(a, limit, cap))
                .collect(),
            cap,
        ),
        HirKind::Repetition(rep) => {
            let items = words_up_to(&rep.sub, limit, cap);
            let max = rep.max.map_or(limit + rep.min as usize, |m| m as usize);
            let mut current = vec![String::new()];
            let mut out = Vec::new();
            if rep.min == 0 {
                out.push(String::new());
            }
            for k in 1..=max {
                let next = concat(&current, &items, limit, cap);
                if next.is_empty() {
                    break;
                }
                // When the body can be empty (`(a?){0,5000}`), the words stop changing long
                // before the count runs out; every further round would give the same words.
                let settled = next == current;
                current = next;
                if k >= rep.min as usize || settled {
                    out.extend(current.iter().cloned());
                }
                if settled {
                    break;
                }
            }
            normalize(out, cap)
        }
    }
}

/// The shortlex-smallest `cap` distinct words `a + b` of at most `limit` characters, `a` from
/// `left` and `b` from `right`, both in shortlex order without repeats. For a fixed `a`, the
/// words `a + b` come in the order of `right`, so a merge of one such run per `a` yields the
/// result in order and builds about `cap` words, where taking every pair built `cap²` (seconds
/// for a pool like `/.{4,30}/`).
fn concat(left: &[String], right: &[String], limit: usize, cap: usize) -> Vec<String> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let right_lens: Vec<usize> = right.iter().map(|b| char_len(b)).collect();
    // (length, word, index in left, index in right), smallest first.
    let mut heap = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<_>, a: usize, b: usize| {
        let a_len = char_len(&left[a]);
        if b < right.len() && a_len + right_lens[b] <= limit {
            let word = format!("{}{}", left[a], right[b]);
            #[cfg(test)]
            tests::WORDS_BUILT.with(|built| built.set(built.get() + 1));
            heap.push(Reverse((a_len + right_lens[b], word, a, b)));
        }
    };
    for a in 0..left.len() {
        push(&mut heap, a, 0);
    }
    let mut out: Vec<String> = Vec::new();
    while out.len() < cap {
        let Some(Reverse((_, word, a, b))) = heap.pop() else {
            break;
        };
        push(&mut heap, a, b + 1);
        if out.last() != Some(&word) {
            out.push(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Words `concat` built on this thread: the work a derivation took.
        pub(super) static WORDS_BUILT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// The words of `pattern` and how many words deriving them built.
    fn words_and_work(pattern: &str, n: usize) -> (Vec<String>, usize) {
        WORDS_BUILT.with(|built| built.set(0));
        let found = words(pattern, n, &[]);
        (found, WORDS_BUILT.with(|built| built.get()))
    }

    /// Pools the loader's fuzzer found taking ten seconds each to check (targets/loader): a
    /// branch whose words are all longer than a value may be, and a repetition of a wide class.
    /// Every pair of words was built per concatenation, once per value length.
    #[test]
    fn long_or_wide_repetitions_derive_with_little_work() {
        let (found, work) = words_and_work(r"\d{65535}|[a-c]", POOL_CAPACITY);
        assert_eq!(found, ["a", "b", "c"]);
        assert_eq!(work, 0);
        let (found, work) = words_and_work(r"(?:\d\d|.{4,}){4,30}\d", POOL_CAPACITY);
        assert_eq!(found.len(), POOL_CAPACITY);
        assert_eq!(found[0], "000000000");
        assert!(work < 200_000, "{work} words built");
        let (found, work) = words_and_work(r"[a-z][a-z0-9_]*", POOL_CAPACITY);
        assert_eq!(&found[..3], ["a", "b", "c"]);
        assert!(work < 20_000, "{work} words built");
    }

    fn words(pattern: &str, n: usize, exclude: &[&str]) -> Vec<String> {
        let hir = regex_syntax::parse(pattern).unwrap();
        let exclude = exclude.iter().map(|s| s.to_string()).collect();
        shortlex_words(&hir, n, &exclude)
    }

    #[test]
    fn identifiers_come_shortest_first_and_skip_keywords() {
        assert_eq!(words("[a-z][a-z0-9]*", 4, &["b"]), ["a", "c", "d", "e"]);
        let many = words("[a-c][a-c0-1]*", 8, &[]);
        assert_eq!(many, ["a", "b", "c", "a0", "a1", "aa", "ab", "ac"]);
    }

    #[test]
    fn finite_languages_yield_what_they_have() {
        assert_eq!(words("x|yy|z", 10, &[]), ["x", "z", "yy"]);
        assert_eq!(words("[0-9]{2}", 3, &[]), ["00", "01", "02"]);
    }

    #[test]
    fn a_repeated_nullable_body_settles_instead_of_running_the_whole_count() {
        // Before the body was noticed to settle, this took minutes.
        let many = words("([a-z]?){0,60000}", POOL_CAPACITY, &[""]);
        assert_eq!(many.len(), POOL_CAPACITY);
        assert_eq!(many[..3], ["a", "b", "c"]);
        assert_eq!(many[26..28], ["aa", "ab"]);
        assert_eq!(words("(a?){3,60000}b", 3, &[]), ["b", "ab", "aab"]);
    }

    #[test]
    fn alternation_of_prefixed_words_is_ordered() {
        assert_eq!(
            words("\"[a-b]{0,2}\"", 4, &[]),
            ["\"\"", "\"a\"", "\"b\"", "\"aa\""]
        );
    }
}
