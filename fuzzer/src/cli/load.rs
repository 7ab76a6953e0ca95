//! Loading a grammar for a command: parse, analyse, print warnings, refuse errors.

use std::path::Path;

use crate::analysis::Analysis;
use crate::diagnostic::Diagnostics;
use crate::grammar::Grammar;

pub fn load_grammar(path: &Path) -> Result<(Grammar, Analysis), Diagnostics> {
    let grammar = Grammar::from_file(path)?;
    let analysis = Analysis::new(&grammar);
    for warning in analysis.check(&grammar)? {
        eprintln!("{warning}");
    }
    Ok((grammar, analysis))
}
