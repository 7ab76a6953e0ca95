//! Loading a grammar for a command: import it in whatever format it is in, analyse it, print
//! warnings, refuse errors.

use std::path::Path;

use crate::analysis::Analysis;
use crate::diagnostic::Diagnostics;
use crate::grammar::Grammar;
use crate::import;

pub fn load_grammar(path: &Path) -> Result<(Grammar, Analysis), Diagnostics> {
    load_imported(path).map(|(grammar, analysis, _)| (grammar, analysis))
}

/// [`load_grammar`], with the external tokens the grammar has no reading for (see
/// [`import::Imported::unread_externals`]), for the commands that report them.
pub fn load_imported(path: &Path) -> Result<(Grammar, Analysis, Vec<String>), Diagnostics> {
    let imported = import::load(path)?;
    for warning in &imported.warnings {
        eprintln!("{warning}");
    }
    let grammar = imported.grammar;
    let analysis = Analysis::new(&grammar);
    for warning in analysis.check(&grammar)? {
        eprintln!("{warning}");
    }
    Ok((grammar, analysis, imported.unread_externals))
}
