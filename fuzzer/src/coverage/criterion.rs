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
}

impl Criterion {
    /// Longest k accepted for `kpath:K`: the number of paths grows as the grammar's branching
    /// to the power k, and beyond this even small grammars have more than can be listed.
    pub const MAX_K: usize = 8;

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
        }
    }
}

/// A criterion name `--criteria` cannot read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CriterionError {
    /// Not the name of any criterion.
    Unknown(String),
    /// `kpath:K` with a K that is not a number from 1 to [`Criterion::MAX_K`].
    BadK(String),
}

impl fmt::Display for CriterionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CriterionError::Unknown(text) => write!(
                f,
                "unknown criterion '{text}'; known: symbol, rule, cdrc, kpath:K"
            ),
            CriterionError::BadK(k) => write!(
                f,
                "kpath:K takes a K from 1 to {}, not '{k}'",
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
            _ => {
                let Some(k) = text.strip_prefix("kpath:") else {
                    return Err(CriterionError::Unknown(text.to_string()));
                };
                match k.parse::<usize>() {
                    Ok(k) if (1..=Self::MAX_K).contains(&k) => Ok(Criterion::KPath(k)),
                    _ => Err(CriterionError::BadK(k.to_string())),
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
        assert!(
            "pll"
                .parse::<Criterion>()
                .unwrap_err()
                .to_string()
                .contains("known")
        );
    }
}
