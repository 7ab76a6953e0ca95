//! Loading a grammar for a command: import it in whatever format it is in, analyse it, print
//! warnings, refuse errors.

use std::path::Path;

use crate::analysis::Analysis;
use crate::diagnostic::Diagnostics;
use crate::grammar::Grammar;
use crate::import;

pub fn load_grammar(path: &Path) -> Result<(Grammar, Analysis), Diagnostics> {
    let imported = import::load(path)?;
    for warning in &imported.warnings {
        eprintln!("{warning}");
    }
    let grammar = imported.grammar;
    let analysis = Analysis::new(&grammar);
    for warning in analysis.check(&grammar)? {
        eprintln!("{warning}");
    }
    Ok((grammar, analysis))
}
