//! Which reducers run, in which order.

use std::fmt;
use std::str::FromStr;

use super::{Criterion, Hdd, Judge, ReductionError, ddmin};
use crate::sampler::Sample;

/// The reducers a user can ask for. The paper's baseline ran both, grammar-based reduction
/// first (picireny) and then character ddmin (picire) on what was left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Grammar-aware reduction only: the result is still a sentence of the grammar, with a
    /// derivation that replays within the bounds.
    Hdd,
    /// Lines, then characters: the result may lie outside the grammar.
    Ddmin,
    /// HDD, then ddmin on its result.
    #[default]
    HddThenDdmin,
}

/// A reduced input: its text, and its derivation while it still has one (after HDD alone, or
/// when ddmin found nothing to remove).
#[derive(Clone, Debug)]
pub struct Reduced {
    /// The reduced input, as the target runs it.
    pub text: String,
    /// Tree and choices that render to exactly `text`; `None` once ddmin has changed the text.
    pub derivation: Option<Sample>,
}

impl Strategy {
    /// Every strategy, in the order `--reducer` lists them; parsing a name searches this list.
    pub const ALL: [Strategy; 3] = [Strategy::Hdd, Strategy::Ddmin, Strategy::HddThenDdmin];

    /// Whether the strategy needs the input's derivation, and so a grammar and bounds; ddmin works
    /// on text alone.
    pub fn uses_grammar(self) -> bool {
        self != Strategy::Ddmin
    }

    /// Reduces the input that `choices` replay to with `hdd`'s grammar and bounds, asking
    /// `judge`.
    pub fn reduce<C: Criterion>(
        self,
        hdd: &mut Hdd<'_>,
        choices: &[u32],
        judge: &mut Judge<C>,
    ) -> Result<Reduced, ReductionError> {
        let (sample, text) = match self {
            Strategy::Ddmin => {
                let text = hdd.replay(choices).map_err(ReductionError::OutOfBounds)?;
                return Ok(Reduced {
                    text: ddmin::reduce_text(&text, judge)?,
                    derivation: None,
                });
            }
            Strategy::Hdd | Strategy::HddThenDdmin => hdd.reduce(choices, judge)?,
        };
        if self == Strategy::Hdd {
            return Ok(Reduced {
                text,
                derivation: Some(sample),
            });
        }
        let reduced = ddmin::reduce_chars(&ddmin::reduce_lines(&text, judge), judge);
        let derivation = (reduced == text).then_some(sample);
        Ok(Reduced {
            text: reduced,
            derivation,
        })
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Hdd => "hdd",
            Strategy::Ddmin => "ddmin",
            Strategy::HddThenDdmin => "hdd+ddmin",
        })
    }
}

impl FromStr for Strategy {
    type Err = UnknownReducer;

    fn from_str(s: &str) -> Result<Self, UnknownReducer> {
        Strategy::ALL
            .into_iter()
            .find(|strategy| strategy.to_string() == s)
            .ok_or_else(|| UnknownReducer(s.to_string()))
    }
}

/// A `--reducer` value that names no [`Strategy`]; clap prints it after "invalid value".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownReducer(pub String);

impl fmt::Display for UnknownReducer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown reducer '{}': expected hdd, ddmin or hdd+ddmin",
            self.0
        )
    }
}

impl std::error::Error for UnknownReducer {}
