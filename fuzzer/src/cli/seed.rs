//! Reading one seed file for `bonsai parse` and `bonsai import`: parse, then prove the result
//! by replaying its choices through the sampler, as the fuzzer will.

use crate::choice::SavedChoices;
use crate::parse::{ParseError, ParseOptions, Parser, Rename};
use crate::sampler::{StrictReplayError, replay_strict};
use crate::text::render;

/// How the re-rendered text compares with the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fidelity {
    /// Byte for byte the seed.
    Exact,
    /// The same tokens; only whitespace between them differs (the grammar's layout is applied).
    Layout,
    /// Pool words were renamed (`--rename-pools`).
    Renamed,
}

impl Fidelity {
    pub fn describe(self) -> &'static str {
        match self {
            Fidelity::Exact => "exact",
            Fidelity::Layout => "layout differs",
            Fidelity::Renamed => "pool words renamed",
        }
    }
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
    let text = render(grammar, &replayed.tree);
    if replayed.tree != parsed.tree {
        return Err(ParseError {
            offset: 0,
            message: "internal error: the parsed choices replay to a different tree".into(),
        });
    }
    let original = String::from_utf8_lossy(bytes);
    let fidelity = if !parsed.renames.is_empty() {
        Fidelity::Renamed
    } else if text == original {
        Fidelity::Exact
    } else if without_whitespace(&text) == without_whitespace(&original) {
        Fidelity::Layout
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
        },
        text,
        fidelity,
        renames: parsed.renames,
    })
}

fn without_whitespace(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
