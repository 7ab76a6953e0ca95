//! The suite on disk: one text file per negative and `manifest.json` with every oracle.

use std::path::Path;

use super::{Negative, Summary};
use crate::diagnostic::{Diagnostics, SourceFile};

/// Writes `NNNN.txt` per negative and `manifest.json` into `dir`, which must exist and be empty.
/// Positions are given as byte offsets and as line:column (one-based, in characters), as a
/// parser's error message would give them.
pub fn write_suite(
    dir: &Path,
    grammar: &str,
    negatives: &[Negative],
    summary: &Summary,
) -> Result<(), Diagnostics> {
    let mut entries = Vec::with_capacity(negatives.len());
    for (i, negative) in negatives.iter().enumerate() {
        let file = format!("{:04}.txt", i + 1);
        // One sync for the suite, not one per word: the manifest, written last, is what says
        // the suite is complete.
        crate::fs_util::write_atomic_unsynced(&dir.join(&file), negative.text.as_bytes())?;
        let source = SourceFile::new(&file, &negative.text);
        let at = |offset: usize| {
            let (line, column) = source.line_col(offset);
            format!("{line}:{column}")
        };
        entries.push(serde_json::json!({
            "file": file,
            "operator": negative.operator,
            "source": negative.source,
            "relies_on": negative.relies_on,
            "token": at(negative.token_offset),
            "token_offset": negative.token_offset,
            "reject_by": at(negative.reject_by),
            "reject_by_offset": negative.reject_by,
            "expected_error": "a correct parser rejects at or before reject_by: the word stops being a prefix of the language at token",
        }));
    }
    let operators: Vec<_> = summary
        .operators
        .iter()
        .map(|(name, count)| {
            serde_json::json!({
                "operator": name,
                "possible": count.possible,
                "undecidable": count.undecidable,
                "emitted": count.emitted,
            })
        })
        .collect();
    let manifest = serde_json::json!({
        "grammar": grammar,
        "poisoned_pairs": summary.poisoned_pairs.0,
        "token_pairs": summary.poisoned_pairs.1,
        "positives": summary.positives.0,
        "positives_left_out": summary.positives.1,
        "operators": operators,
        "negatives": entries,
    });
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| crate::diagnostic::Diagnostic::error(format!("internal error: {e}")))?;
    crate::fs_util::write_atomic(&dir.join("manifest.json"), text.as_bytes())?;
    Ok(())
}
