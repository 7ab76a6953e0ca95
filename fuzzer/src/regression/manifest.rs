//! `manifest.json` of an exported regression corpus: what each input did at export time.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::source::read_json;
use crate::diagnostic::Diagnostic;
use crate::replay::Outcome;

pub use crate::layout::CORPUS_MANIFEST;
/// Marks a directory as an exported corpus, so that export only ever overwrites its own kind.
pub const CORPUS_FORMAT: &str = "bonsai-regression-corpus";

/// Contents of `manifest.json`: enough to rerun every input and to tell which of its results
/// changed since the export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorpusManifest {
    /// Always [`CORPUS_FORMAT`]; anything else is not loaded.
    pub format: String,
    /// Version of the manifest layout, for readers outside Bonsai; 1 so far.
    pub version: u32,
    /// Name of the target the inputs were run on; a check against another target is refused.
    pub target: String,
    /// The grammar of the `.choices` files, as the fuzzing run named it.
    pub grammar: PathBuf,
    /// [`crate::grammar::Grammar::fingerprint`] of that grammar, as 16 hex digits.
    pub grammar_fingerprint: String,
    /// Bounds of the run the inputs come from (the top node's).
    pub bounds: String,
    /// The directory exported from.
    pub source: PathBuf,
    /// Whether each entry stores the target's output.
    pub golden: bool,
    /// Whether only the inputs that carry the queue's coverage were kept
    /// ([`super::distill`]); `queue_inputs` is how many distinct inputs the queue held.
    #[serde(default)]
    pub distilled: bool,
    /// Distinct inputs of the source queue; more than `inputs` holds only when distilled, and 0
    /// in manifests written before the field existed.
    #[serde(default)]
    pub queue_inputs: usize,
    /// Edges the whole corpus covers.
    pub edges: usize,
    /// One entry per input file, in file order.
    pub inputs: Vec<CorpusEntry>,
}

/// One input of an exported corpus, with what the target did with it at export time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorpusEntry {
    /// The input's text, relative to the corpus directory.
    pub file: String,
    /// Its choice sequence, relative to the corpus directory.
    pub choices: Option<String>,
    /// Bytes.
    pub size: usize,
    /// What the target did with the input at export time; `replay --check` compares against it.
    pub verdict: Outcome,
    /// The run's message (an invalid input's reason, a fault's description); omitted when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The lattice node whose queue first held this text (`None` outside a campaign).
    pub node: Option<String>,
    /// The queue entry it was exported from, relative to the source directory.
    pub origin: String,
    /// Edges it covers.
    pub edges: usize,
    /// Edges no other input of the corpus covers.
    pub unique_edges: usize,
    /// With `--golden`: [`crate::target::Target::output`] at export time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl CorpusManifest {
    /// Reads and checks `DIR/manifest.json`; every problem is located.
    pub fn load(dir: &Path) -> Result<CorpusManifest, Diagnostic> {
        let path = dir.join(CORPUS_MANIFEST);
        let manifest: CorpusManifest = read_json(&path, "a Bonsai corpus manifest")?;
        if manifest.format != CORPUS_FORMAT {
            return Err(Diagnostic::error(format!(
                "format is '{}', expected '{CORPUS_FORMAT}'",
                manifest.format
            ))
            .in_file(&path));
        }
        for entry in &manifest.inputs {
            let escapes = Path::new(&entry.file)
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)));
            if escapes || entry.file.is_empty() {
                return Err(Diagnostic::error(format!(
                    "input file '{}' is not a plain name inside the corpus",
                    entry.file
                ))
                .in_file(&path));
            }
        }
        Ok(manifest)
    }
}
