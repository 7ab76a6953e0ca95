//! How fine a difference in coverage earns an input its place in the corpus.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::Novelty;

/// What counts as new coverage when deciding whether to keep an input.
///
/// Saving on a new hit-count class of a known edge (AFL's and Zest's default) gives the search
/// stepping stones towards loops run more often, but four fifths of such a corpus are inputs
/// that cover no edge the rest lacks, and they are three to six times larger than the ones
/// that brought edges (docs/results/issue-10-concise-corpora.md). A regression corpus wants the edges: the Bonsai
/// paper's own runs disabled Zest's saving of new counts (`jqf.ei.DISABLE_SAVE_NEW_COUNTS`),
/// for the lattice and the baseline alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoverageGrain {
    /// An edge no earlier input covered.
    Edges,
    /// Also a hit-count class (1, 2, 3, 4-7, 8-15, ...) of a known edge not seen before.
    #[default]
    #[serde(rename = "counts")]
    HitCounts,
}

impl CoverageGrain {
    /// Whether what an execution added to a history is new at this grain.
    pub fn is_new(self, novelty: Novelty) -> bool {
        match self {
            CoverageGrain::Edges => novelty.new_edges > 0,
            CoverageGrain::HitCounts => novelty.new_class,
        }
    }
}

impl FromStr for CoverageGrain {
    type Err = UnknownGrain;

    fn from_str(s: &str) -> Result<Self, UnknownGrain> {
        match s {
            "edges" => Ok(Self::Edges),
            "counts" => Ok(Self::HitCounts),
            _ => Err(UnknownGrain(s.to_string())),
        }
    }
}

/// A `--save-on` value that names no grain; clap prints it after "invalid value".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGrain(pub String);

impl fmt::Display for UnknownGrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown grain '{}' (expected edges or counts)", self.0)
    }
}

impl std::error::Error for UnknownGrain {}

impl fmt::Display for CoverageGrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Edges => "edges",
            Self::HitCounts => "counts",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_count_of_a_known_edge_is_new_only_at_the_count_grain() {
        let count_only = Novelty {
            new_class: true,
            new_edges: 0,
        };
        let new_edge = Novelty {
            new_class: true,
            new_edges: 1,
        };
        assert!(CoverageGrain::HitCounts.is_new(count_only));
        assert!(!CoverageGrain::Edges.is_new(count_only));
        assert!(CoverageGrain::Edges.is_new(new_edge));
        assert!(!CoverageGrain::Edges.is_new(Novelty::default()));
    }

    #[test]
    fn names_round_trip() {
        for grain in [CoverageGrain::Edges, CoverageGrain::HitCounts] {
            assert_eq!(grain.to_string().parse::<CoverageGrain>(), Ok(grain));
        }
        assert!("hits".parse::<CoverageGrain>().is_err());
    }
}
