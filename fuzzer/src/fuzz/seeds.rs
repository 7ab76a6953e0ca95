//! A run's seeds: its own queue on resume, the `--seeds` directories, a cover suite's words,
//! and a client's share of them.

use super::client::ClientRole;
use super::config::FuzzConfig;
use crate::choice::ChoiceInput;
use crate::corpus::{OutDir, Seed, Seeds};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::grammar::Grammar;
use crate::layout::QUEUE_DIR;

/// A client's share of the seeds: every `count`-th one, so that the clients run the seeds
/// side by side and send each other what they keep. Entries the run's clients wrote
/// (numbered from `queue_below` on) are not seeds: the client receives them over LLMP.
pub(super) fn share_seeds(seeds: Vec<Seed>, role: ClientRole) -> Vec<Seed> {
    seeds
        .into_iter()
        .filter(|seed| seed.existing.is_none_or(|n| n < role.queue_below))
        .enumerate()
        .filter(|(i, _)| i % role.count == role.index)
        .map(|(_, seed)| seed)
        .collect()
}

/// The words of a cover suite as seeds: a start from every production (or context, or
/// k-path) of the grammar at once, each in its shortest word.
pub(super) fn cover_seeds(
    grammar: &Grammar,
    analysis: &crate::analysis::Analysis,
    criterion: crate::coverage::Criterion,
    bounds: crate::bounds::Bounds,
) -> Result<Vec<Seed>, Diagnostics> {
    let suite = crate::parse::with_large_stack(|| {
        crate::cover::cover(grammar, analysis, criterion, bounds)
    })
    .map_err(|e| Diagnostic::error(e.to_string()))?;
    tracing::info!(
        "seeding from the {criterion} cover suite: {} words, {} of {} requirements covered under the bounds",
        suite.words.len(),
        suite.required - suite.uncovered.len(),
        suite.required
    );
    Ok(suite
        .words
        .into_iter()
        .enumerate()
        .map(|(i, word)| Seed {
            input: ChoiceInput::new(word.choices, word.bounds),
            path: std::path::PathBuf::from(format!("{criterion} cover word {}", i + 1)),
            size: word.text.len(),
            existing: None,
            needs_meta: false,
        })
        .collect())
}

/// The run's own queue (on resume) and then every `--seeds` directory, smallest input first.
pub(super) fn load_seeds(
    config: &FuzzConfig,
    grammar: &Grammar,
    out: &OutDir,
) -> Result<(Vec<Seed>, usize), Diagnostics> {
    let mut all = Seeds::default();
    if out.resumed {
        let own = Seeds::load(&out.root.join(QUEUE_DIR), grammar, config.bounds, true)?;
        all.seeds.extend(own.seeds);
        all.skipped.extend(own.skipped);
    }
    for dir in &config.seeds {
        let more = Seeds::load(dir, grammar, config.bounds, false)?;
        all.seeds.extend(more.seeds);
        all.skipped.extend(more.skipped);
    }
    for skipped in &all.skipped {
        tracing::warn!(
            "{}: skipped seed: {}",
            skipped.path.display(),
            skipped.reason
        );
    }
    all.seeds.sort_by_key(|s| s.size);
    Ok((all.seeds, all.skipped.len()))
}
