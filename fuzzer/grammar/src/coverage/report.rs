//! One criterion's result: covered of total, and what is missing, in the grammar's names.

use serde::Serialize;

use super::requirements::Required;
use super::{Criterion, Requirements, Tally};
use crate::grammar::Grammar;

/// How far the inputs satisfy one criterion.
#[derive(Clone, Debug, Serialize)]
pub struct CriterionReport {
    /// The criterion, as `--criteria` spells it.
    pub criterion: String,
    /// Feasible items some input covers.
    pub covered: u128,
    /// Feasible items: what a complete suite covers.
    pub total: u128,
    /// covered / total (1 when there is nothing to cover).
    pub ratio: f64,
    /// Items of the grammar text no derivation can contain, left out of `total`.
    pub infeasible: usize,
    /// Whether `missing` lists every uncovered item; false when the criterion has too many
    /// items to enumerate, and then only the counts are known.
    pub listed: bool,
    /// The uncovered items, described in the grammar's names, in grammar order.
    pub missing: Vec<String>,
}

impl CriterionReport {
    /// Compares what `tally` covered with what `requirements` asks for `criterion`.
    pub fn new(
        grammar: &Grammar,
        requirements: &Requirements<'_>,
        tally: &Tally,
        criterion: Criterion,
    ) -> Self {
        let covered = tally.covered(criterion);
        let infeasible = requirements.infeasible(criterion);
        let (covered, total, listed, missing) = match requirements.required(criterion) {
            Required::Listed(required) => {
                let missing: Vec<String> = required
                    .iter()
                    .filter(|item| !covered.contains(item))
                    .map(|item| item.describe(grammar))
                    .collect();
                let total = required.len() as u128;
                (total - missing.len() as u128, total, true, missing)
            }
            Required::Counted(total) => (covered.len() as u128, total, false, Vec::new()),
        };
        Self {
            criterion: criterion.to_string(),
            covered,
            total,
            ratio: if total == 0 {
                1.0
            } else {
                covered as f64 / total as f64
            },
            infeasible,
            listed,
            missing,
        }
    }

    /// One line of counts, then the missing items (at most `show`), for a terminal.
    pub fn text(&self, show: usize) -> String {
        let mut out = format!(
            "{:10} {:>8} / {:<8} {:6.1}%",
            self.criterion,
            self.covered,
            self.total,
            100.0 * self.ratio
        );
        if self.infeasible > 0 {
            out.push_str(&format!("  ({} infeasible, not counted)", self.infeasible));
        }
        if !self.listed {
            out.push_str("  (too many to list the missing ones)");
        }
        out.push('\n');
        for item in self.missing.iter().take(show) {
            out.push_str(&format!("    never produced: {item}\n"));
        }
        if self.missing.len() > show {
            out.push_str(&format!(
                "    ... and {} more (--show N, or --json for all)\n",
                self.missing.len() - show
            ));
        }
        out
    }
}
