//! What a run settles before its fuzzing process starts, and what that process inherits from
//! its supervisor across `fork`: the checked grammar, the output directory (its manifest,
//! repairs on resume), the seeds and where the logs go.

use std::time::Instant;

use super::config::FuzzConfig;
use crate::corpus::{Manifest, OutDir, Repaired, Seed};
use crate::diagnostic::Diagnostics;
use crate::feedback::{SaveCriteria, SeenFaults};
use crate::grammar::Grammar;

/// Everything the fuzzing process inherits from the supervisor across `fork`.
pub(super) struct Prepared {
    pub(super) config: FuzzConfig,
    pub(super) grammar: &'static Grammar,
    pub(super) out: OutDir,
    pub(super) seeds: Vec<Seed>,
    pub(super) seeds_skipped: usize,
    pub(super) seen: SeenFaults,
    pub(super) started: Instant,
    pub(super) map_size: usize,
    /// Where `coverage.csv` left off in earlier runs of this output directory.
    pub(super) coverage_offset: (f64, u64),
    /// Where `coverage.csv` and `summary.json` go: the output directory, or a client's own
    /// directory under it in a multi-core run.
    pub(super) log_dir: std::path::PathBuf,
}

/// Where a run writes `coverage.csv` and `summary.json`.
pub(super) fn log_dir(config: &FuzzConfig) -> std::path::PathBuf {
    config
        .client
        .map_or_else(|| config.out.clone(), |role| role.dir(&config.out))
}

/// The run's grammar, checked as fuzzing needs it (warnings logged), its analysis (which the
/// check computed, and cover seeds need), and the manifest of the output directory it fuzzes
/// into.
pub(super) fn checked_manifest(
    config: &FuzzConfig,
) -> Result<(&'static Grammar, crate::analysis::Analysis, Manifest), Diagnostics> {
    let imported = crate::import::load(&config.grammar)?;
    for warning in &imported.warnings {
        tracing::warn!("{warning}");
    }
    let grammar = imported.grammar;
    let analysis = crate::analysis::Analysis::new(&grammar);
    for warning in analysis.check(&grammar)? {
        tracing::warn!("{warning}");
    }
    let grammar: &'static Grammar = Box::leak(Box::new(grammar));
    crate::sampler::Sampler::new(grammar, config.bounds)?;
    let manifest = Manifest {
        target: config.target.name.to_string(),
        grammar: config.grammar.clone(),
        grammar_fingerprint: format!("{:016x}", grammar.fingerprint()),
        bounds: config.bounds.to_string(),
        valid_only: config.criteria == SaveCriteria::ValidOnly,
    };
    Ok((grammar, analysis, manifest))
}

/// Says what a resume found half-written and made whole (see `corpus::repair`).
pub(super) fn report_repairs(repaired: &Repaired) {
    if repaired.temporaries > 0 {
        tracing::info!(
            "removed {} temporary files of writes an earlier run did not finish",
            repaired.temporaries
        );
    }
    for path in &repaired.texts {
        tracing::info!("{}: rebuilt from its choices", path.display());
    }
    for path in &repaired.choices {
        tracing::info!("{}: rebuilt by parsing its text", path.display());
    }
    for path in &repaired.torn {
        tracing::info!(
            "{}: removed, torn by a kill while its entry was first written (that input was never saved)",
            path.display()
        );
    }
    for (path, reason) in &repaired.failed {
        tracing::warn!(
            "{}: an unfinished entry that cannot be completed: {reason}",
            path.display()
        );
    }
}
