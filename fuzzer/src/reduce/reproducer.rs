//! Reducing one recorded input (a `.choices` file) to a smaller one that keeps a criterion,
//! with a choice sequence for the result whenever it has one.

use super::{Criterion, Hdd, Judge, ReproducerError, Strategy};
use crate::choice::SavedChoices;
use crate::grammar::Grammar;
use crate::parse::{ParseOptions, Parser};
use crate::sampler::replay_strict;
use crate::text::render_words;

/// A reduced input, ready to be written beside the original.
#[derive(Clone, Debug)]
pub struct Reproducer {
    /// The reduced input's text, as the target runs it.
    pub text: String,
    /// Choices that replay to exactly `text`: from HDD, or, after ddmin, from parsing the
    /// text back when it is still a sentence of the grammar that renders the same.
    pub choices: Option<SavedChoices>,
}

/// Reduces the input `saved` replays to (under its own bounds) with `strategy`, asking
/// `judge`. `parser` is used to recover choices for a text that ddmin edited; without one,
/// such a result has none.
pub fn reduce_recorded<C: Criterion>(
    grammar: &Grammar,
    saved: &SavedChoices,
    strategy: Strategy,
    judge: &mut Judge<C>,
    parser: Option<&Parser<'_>>,
) -> Result<Reproducer, ReproducerError> {
    let mut hdd = Hdd::new(grammar, saved.bounds)
        .map_err(ReproducerError::Grammar)?
        .with_words(saved.words.clone());
    let reduced = strategy
        .reduce(&mut hdd, saved.choices.as_slice(), judge)
        .map_err(ReproducerError::Reduction)?;
    let choices = match &reduced.derivation {
        Some(derivation) => Some(SavedChoices {
            grammar: grammar.fingerprint(),
            bounds: saved.bounds,
            choices: derivation.choices.clone(),
            words: saved.words.clone(),
        }),
        None => parser.and_then(|p| choices_of_text(grammar, p, &reduced.text)),
    };
    Ok(Reproducer {
        text: reduced.text,
        choices,
    })
}

/// The choices of `text` when it parses and its derivation renders back to exactly `text`.
pub fn choices_of_text(grammar: &Grammar, parser: &Parser<'_>, text: &str) -> Option<SavedChoices> {
    let parsed = parser
        .parse_bytes(text.as_bytes(), ParseOptions::keeping_words())
        .ok()?;
    let sample = replay_strict(grammar, parsed.bounds, parsed.choices.as_slice()).ok()?;
    (render_words(grammar, &sample.tree, &parsed.words) == text).then(|| SavedChoices {
        grammar: grammar.fingerprint(),
        bounds: parsed.bounds,
        choices: parsed.choices,
        words: parsed.words,
    })
}
