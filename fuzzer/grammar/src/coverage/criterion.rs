//! The coverage criteria `bonsai coverage` measures.

use std::fmt;
use std::str::FromStr;

/// One way of saying what part of a grammar an input exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Criterion {
    /// Every symbol, nonterminal or terminal, occurs in some derivation.
    Symbol,
    /// Every production (a rule with one of its alternatives) is used.
    Rule,
    /// Context-dependent rule coverage: every nonterminal occurrence in a production is expanded
    /// with each of its own productions.
    Cdrc,
    /// Every path of k symbols down a derivation tree (parent to child) occurs.
    KPath(usize),
    /// Full context-dependent rule coverage (CDRC²): every production is used with its
    /// nonterminal positions expanded in every combination of their alternatives, one node
    /// covering the combinations it holds. As in CDRC, the nonterminal at a position is a rule
    /// there or each item of a `?` or `*` there, so a node whose `*` holds two items of
    /// different alternatives covers a combination with each; an absent optional or an empty
    /// repetition expands nothing and is not a choice of its own (it applies no production to
    /// combine, and counting it would make a production with one optional position ask for more
    /// than CDRC does). A production without nonterminal positions has no combinations, as it
    /// has no CDRC contexts: on productions with one nonterminal position CDRC² is CDRC.
    Cdrc2,
    /// k-step coverage: every chain of exactly k productions p1..pk, each p(i+1) expanding the
    /// nonterminal at a given position of p(i)'s right-hand side (a rule there, or an item of a
    /// `?` or `*` there, as in CDRC), is used; an item is the first rule, the k alternatives
    /// and the k - 1 positions. The slides ask for every derivation X ⇒^l αYω with l ≤ k, but
    /// a chain shorter than k is a part of some chain of k unless the grammar ends it (a
    /// production with no nonterminal, a rule no production uses), and those ends are exactly
    /// what the shorter criteria ask for; counting exactly k keeps the criteria nested as
    /// kstep:1 = rule and kstep:2 = CDRC, item for item.
    KStep(usize),
    /// Derivable pair coverage: every (X, Y), X a nonterminal and Y a symbol that X derives in
    /// one or more steps, is covered by a node of X with a descendant Y.
    Pairs,
    /// PLL coverage: every (A, a), a a terminal of first(A), is covered by a node of A whose
    /// first token is a. A token here is a terminal the parser sees: an empty literal and
    /// GLUE are skipped, as the first sets skip them.
    Pll,
}

impl Criterion {
    /// Longest k accepted for `kpath:K` and `kstep:K`: the number of paths and chains grows as
    /// the grammar's branching to the power k, and beyond this even small grammars have more
    /// than can be listed.
    pub const MAX_K: usize = 8;

    /// Every name `--criteria` reads, for messages.
    pub const NAMES: &'static str = "symbol, rule, cdrc, cdrc2, kpath:K, kstep:K, pairs, pll";

    /// What `bonsai report` and `bonsai coverage` show by default.
    pub const DEFAULT: [Criterion; 6] = [
        Criterion::Symbol,
        Criterion::Rule,
        Criterion::Cdrc,
        Criterion::KPath(1),
        Criterion::KPath(2),
        Criterion::KPath(3),
    ];
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Criterion::Symbol => f.write_str("symbol"),
            Criterion::Rule => f.write_str("rule"),
            Criterion::Cdrc => f.write_str("cdrc"),
            Criterion::KPath(k) => write!(f, "kpath:{k}"),
            Criterion::Cdrc2 => f.write_str("cdrc2"),
            Criterion::KStep(k) => write!(f, "kstep:{k}"),
            Criterion::Pairs => f.write_str("pairs"),
            Criterion::Pll => f.write_str("pll"),
        }
    }
}

/// A criterion name `--criteria` cannot read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CriterionError {
    /// Not the name of any criterion.
    Unknown(String),
    /// `kpath:K` or `kstep:K` (the name first) with a K that is not a number from 1 to
    /// [`Criterion::MAX_K`].
    BadK(&'static str, String),
}

impl fmt::Display for CriterionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CriterionError::Unknown(text) => {
                write!(f, "unknown criterion '{text}'; known: {}", Criterion::NAMES)
            }
            CriterionError::BadK(name, k) => write!(
                f,
                "{name}:K takes a K from 1 to {}, not '{k}'",
                Criterion::MAX_K
            ),
        }
    }
}

impl std::error::Error for CriterionError {}

impl FromStr for Criterion {
    type Err = CriterionError;

    fn from_str(text: &str) -> Result<Self, CriterionError> {
        match text {
            "symbol" => Ok(Criterion::Symbol),
            "rule" => Ok(Criterion::Rule),
            "cdrc" => Ok(Criterion::Cdrc),
            "cdrc2" => Ok(Criterion::Cdrc2),
            "pairs" => Ok(Criterion::Pairs),
            "pll" => Ok(Criterion::Pll),
            _ => {
                let (name, k, make): (_, _, fn(usize) -> Criterion) =
                    if let Some(k) = text.strip_prefix("kpath:") {
                        ("kpath", k, Criterion::KPath)
                    } else if let Some(k) = text.strip_prefix("kstep:") {
                        ("kstep", k, Criterion::KStep)
                    } else {
                        return Err(CriterionError::Unknown(text.to_string()));
                    };
                match k.parse::<usize>() {
                    Ok(k) if (1..=Self::MAX_K).contains(&k) => Ok(make(k)),
                    _ => Err(CriterionError::BadK(name, k.to_string())),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for criterion in Criterion::DEFAULT {
            assert_eq!(criterion.to_string().parse::<Criterion>(), Ok(criterion));
        }
        assert!("kpath:0".parse::<Criterion>().is_err());
        assert!("kpath:9".parse::<Criterion>().is_err());
        for name in ["cdrc2", "kstep:1", "kstep:8", "pairs", "pll"] {
            assert_eq!(name.parse::<Criterion>().unwrap().to_string(), name);
        }
        assert_eq!(
            "kstep:0".parse::<Criterion>().unwrap_err().to_string(),
            "kstep:K takes a K from 1 to 8, not '0'"
        );
        let unknown = "adjacent".parse::<Criterion>().unwrap_err().to_string();
        for name in ["cdrc2", "kstep:K", "pairs", "pll", "kpath:K"] {
            assert!(unknown.contains(name), "{unknown}");
        }
    }
}
