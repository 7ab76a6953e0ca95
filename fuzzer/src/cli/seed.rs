//! Reading one seed file for `bonsai parse` and `bonsai import`: parse, then prove the result
//! by replaying its choices through the sampler, as the fuzzer will.

use crate::choice::SavedChoices;
use crate::parse::{ParseError, ParseOptions, Parser, PoolWords, Rename};
use crate::sampler::{StrictReplayError, replay_strict};
use crate::text::render_words;

/// How the re-rendered text compares with the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fidelity {
    /// Byte for byte the seed (with its own words, if it has any: see `ReadSeed::saved`).
    Exact,
    /// The same tokens; only whitespace between them differs (the grammar's layout is applied).
    Layout,
    /// The same tokens; the file's comments are left out, and whitespace may differ.
    Comments,
    /// Pool words were renamed (`--rename-pools`).
    Renamed,
}

impl Fidelity {
    pub fn describe(self) -> &'static str {
        match self {
            Fidelity::Exact => "exact",
            Fidelity::Layout => "layout differs",
            Fidelity::Comments => "comments and layout differ",
            Fidelity::Renamed => "pool words renamed",
        }
    }
}

// The values' descriptions are plain comments: as doc comments, clap would print them
// under the option and turn all of --help into its long form. The book's page has them.
/// `--pool-words`, shared by the commands that read seeds.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub enum PoolWordsArg {
    // Keep them as the seed's own words: the text replays unchanged.
    #[default]
    Keep,
    // Rename them consistently to unused pool values: the text changes.
    Rename,
    // Reject the file at the first one.
    Reject,
}

impl PoolWordsArg {
    /// The parse options for this choice; `rename_pools` (the older flag) means `Rename`.
    pub fn options(self, rename_pools: bool) -> ParseOptions {
        let pool_words = match (self, rename_pools) {
            (_, true) | (PoolWordsArg::Rename, _) => PoolWords::Rename,
            (PoolWordsArg::Keep, false) => PoolWords::Keep,
            (PoolWordsArg::Reject, false) => PoolWords::Reject,
        };
        ParseOptions { pool_words }
    }
}

/// `; 2 words of its own`, as the import and parse reports say it after `prefix`.
pub fn own_words_note(prefix: &str, count: usize) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{prefix}{count} word{plural} of its own")
}

pub struct ReadSeed {
    pub saved: SavedChoices,
    /// The text the saved choices replay to.
    pub text: String,
    pub fidelity: Fidelity,
    pub renames: Vec<Rename>,
}

pub fn read_seed(
    parser: &Parser<'_>,
    bytes: &[u8],
    options: ParseOptions,
) -> Result<ReadSeed, ParseError> {
    let grammar = parser.grammar();
    let parsed = parser.parse_bytes(bytes, options)?;
    let replayed =
        replay_strict(grammar, parsed.bounds, parsed.choices.as_slice()).map_err(|e| match e {
            StrictReplayError::Sampler(message) => ParseError { offset: 0, message },
            StrictReplayError::OutOfBounds(e) => ParseError {
                offset: 0,
                message: format!("internal error: the parsed choices do not replay: {e}"),
            },
        })?;
    let text = render_words(grammar, &replayed.tree, &parsed.words);
    if replayed.tree != parsed.tree {
        return Err(ParseError {
            offset: 0,
            message: "internal error: the parsed choices replay to a different tree".into(),
        });
    }
    let original = String::from_utf8_lossy(bytes);
    // The file as the tokens see it: each comment stands for the space it is.
    let mut uncommented = original.clone().into_owned();
    for range in parsed.comments.iter().rev() {
        if let Some(comment) = uncommented.get(range.clone()) {
            let blank: String = comment
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' })
                .collect();
            uncommented.replace_range(range.clone(), &blank);
        }
    }
    if parsed.renames.is_empty()
        && let Some(offset) = split_or_joined_word(&uncommented, &text)
    {
        return Err(ParseError {
            offset,
            message: "read here as two tokens where the file has one word (or as one where it has two): replaying it would change its meaning".into(),
        });
    }
    let fidelity = if !parsed.renames.is_empty() {
        Fidelity::Renamed
    } else if text == original {
        Fidelity::Exact
    } else if without_whitespace(&text) == without_whitespace(&original) {
        Fidelity::Layout
    } else if without_whitespace(&text) == without_whitespace(&uncommented) {
        Fidelity::Comments
    } else {
        return Err(ParseError {
            offset: 0,
            message: "internal error: the re-rendered text differs from the seed beyond whitespace"
                .into(),
        });
    };
    Ok(ReadSeed {
        saved: SavedChoices {
            grammar: grammar.fingerprint(),
            bounds: parsed.bounds,
            choices: parsed.choices,
            words: parsed.words,
        },
        text,
        fidelity,
        renames: parsed.renames,
    })
}

/// The text's tokens run together: whitespace and line-joining backslashes (Python's `\` at
/// a line's end) left out.
fn without_whitespace(text: &str) -> String {
    text.replace("\\\r\n", "")
        .replace("\\\n", "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Where `replayed` separates two word characters (letters, digits, `_`) that are adjacent in
/// `original`, or joins two that are separated: the byte offset in `original` of the second
/// one. A parse may read `FOO` as the pool values `FO` and `O`, which the layout then writes
/// apart; every language lexes adjacent word characters as one token, so that is a change of
/// meaning, not of layout. Texts that differ beyond whitespace are not compared (None).
fn split_or_joined_word(original: &str, replayed: &str) -> Option<usize> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let (a, b) = (original.as_bytes(), replayed.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut previous_is_word = false;
    loop {
        let (start_i, start_j) = (i, j);
        while a.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        while b.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) else {
            return None;
        };
        if x != y {
            return None;
        }
        let spaced_here = i > start_i;
        let spaced_there = j > start_j;
        if previous_is_word && word(x) && spaced_here != spaced_there {
            return Some(i);
        }
        previous_is_word = word(x);
        i += 1;
        j += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::split_or_joined_word;

    #[test]
    fn a_word_split_or_joined_is_found_and_layout_is_not() {
        assert_eq!(split_or_joined_word("SELECT FOO;", "SELECT FO O;"), Some(9));
        assert_eq!(split_or_joined_word("a b", "ab"), Some(2));
        assert_eq!(split_or_joined_word("returnx", "return x"), Some(6));
        assert_eq!(split_or_joined_word("f(a,b)+1", "f(a, b) + 1"), None);
        assert_eq!(split_or_joined_word("x  =\n  1", "x = 1"), None);
        assert_eq!(split_or_joined_word("x = 1", "x = 2"), None);
    }
}
