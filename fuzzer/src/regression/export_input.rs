//! The inputs of a queue as export takes them: from the entries themselves, checked.
//!
//! An entry's `.meta` says nothing export needs (export runs every input again), so an entry
//! whose `.meta` is missing or unreadable, which a kill or a full disk can leave, is exported
//! like any other. Its `.choices` is copied only when it replays, under the grammar, to the
//! entry's text: a truncated or foreign file would otherwise become a corpus file that
//! `generate --replay` refuses while `replay --check` sees nothing wrong. A text that is
//! missing is rendered from the choices. Whatever cannot be made whole is exported as far as
//! it can be and listed in the notes; an entry with neither a readable text nor usable
//! choices is listed as not exported.

use std::path::{Path, PathBuf};

use crate::choice::SavedChoices;
use crate::corpus::{EntryDir, EntryFile, StoredEntry};
use crate::grammar::Grammar;
use crate::text::{SavedReplayError, replay_saved};

/// One input of the queue, ready to be exported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportInput {
    pub text: String,
    /// The `.choices` bytes, when they replay to `text`.
    pub choices: Option<Vec<u8>>,
    /// The file the input comes from: the `.txt`, or the `.choices` it was rendered from.
    pub origin: PathBuf,
}

/// The inputs of `queue` in entry order, and a note per entry that could not be taken whole.
/// `grammar` checks the choices; without it (`Err`: why it is not available) every input
/// goes without its choices, with one note saying so.
pub fn read_inputs(
    queue: &Path,
    grammar: Result<&Grammar, &str>,
) -> (Vec<ExportInput>, Vec<String>) {
    let mut inputs = Vec::new();
    let mut notes = Vec::new();
    if let Err(why) = grammar {
        notes.push(format!(
            "the .choices files cannot be checked ({why}): the inputs are exported without them; \
             pass --grammar to include them"
        ));
    }
    for entry in EntryDir::new(queue).numbered() {
        let text_path = entry.text_path();
        let choices_path = entry.choices_path();
        let text = entry.read_text().map_err(|d| d.message);
        let choices = match (entry.has(EntryFile::Choices), grammar) {
            // A complete entry (its `.meta` is written last) without choices was written so
            // on purpose: `reduce-corpus` keeps choices only while the input is a sentence.
            (false, _) if entry.has(EntryFile::Meta) => Err(String::new()),
            (false, _) => Err("there is no .choices file".to_string()),
            (true, Err(_)) => Err(String::new()),
            (true, Ok(grammar)) => replay(&choices_path, grammar),
        };
        let shown = text_path.display();
        match (text, choices) {
            (Ok(text), Ok((rendered, bytes))) if rendered == text => inputs.push(ExportInput {
                text,
                choices: Some(bytes),
                origin: text_path,
            }),
            (Ok(text), Ok(_)) => {
                notes.push(format!(
                    "{shown}: its .choices replays to another text; exported without it"
                ));
                inputs.push(ExportInput {
                    text,
                    choices: None,
                    origin: text_path,
                });
            }
            (Ok(text), Err(why)) => {
                if !why.is_empty() {
                    notes.push(format!("{shown}: exported without its choices: {why}"));
                }
                inputs.push(ExportInput {
                    text,
                    choices: None,
                    origin: text_path,
                });
            }
            (Err(_), Ok((text, bytes))) => {
                notes.push(format!(
                    "{}: its text is missing or unreadable; exported the text its choices replay to",
                    choices_path.display()
                ));
                inputs.push(ExportInput {
                    text,
                    choices: Some(bytes),
                    origin: choices_path,
                });
            }
            (Err(text_error), Err(why)) => {
                let why = if why.is_empty() {
                    "its choices cannot be checked".to_string()
                } else {
                    why
                };
                notes.push(format!(
                    "{}: not exported: the text {text_error}, and {why}",
                    entry.base().display()
                ));
            }
        }
    }
    (inputs, notes)
}

/// The minimal reproducer of each fault bucket of the run in `dir` (`triage`), so that
/// `replay --check` of the exported corpus runs every bug the run found: a fixed one shows as
/// a changed verdict. Its `.choices` goes with it when they replay to its text.
pub fn fault_inputs(
    dir: &Path,
    grammar: Result<&Grammar, &str>,
) -> (Vec<ExportInput>, Vec<String>) {
    let mut inputs = Vec::new();
    let mut notes = Vec::new();
    let list = match crate::triage::gather(dir) {
        Ok(list) => list,
        Err(why) => return (inputs, vec![why.to_string()]),
    };
    notes.extend(list.problems.iter().map(ToString::to_string));
    for bucket in &list.buckets {
        let (path, _) = bucket.reproducer();
        let Ok(text) = std::fs::read_to_string(path) else {
            notes.push(format!(
                "{}: the reproducer of a {} cannot be read; not exported",
                path.display(),
                bucket.kind
            ));
            continue;
        };
        let choices_path = if path == bucket.entry {
            StoredEntry::of_file(path).choices_path()
        } else {
            bucket
                .reduced
                .as_ref()
                .and_then(|r| r.choices.clone())
                .unwrap_or_default()
        };
        let choices = grammar
            .ok()
            .filter(|_| choices_path.is_file())
            .and_then(|grammar| replay(&choices_path, grammar).ok())
            .filter(|(rendered, _)| *rendered == text)
            .map(|(_, bytes)| bytes);
        inputs.push(ExportInput {
            text,
            choices,
            origin: path.to_path_buf(),
        });
    }
    (inputs, notes)
}

/// The text a `.choices` file replays to (strictly, under its recorded bounds), and its bytes.
fn replay(path: &Path, grammar: &Grammar) -> Result<(String, Vec<u8>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read its .choices: {e}"))?;
    let saved = SavedChoices::from_bytes(&bytes).map_err(|e| format!("its .choices is {e}"))?;
    let text = replay_saved(grammar, &saved).map_err(|e| match e {
        SavedReplayError::OtherGrammar => {
            "its .choices was recorded with a different grammar".to_string()
        }
        SavedReplayError::Bounds(m) => m,
        SavedReplayError::Replay(m) => format!("its .choices does not replay: {m}"),
    })?;
    Ok((text, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceSequence;

    #[test]
    fn entries_are_taken_from_what_is_there_and_damage_is_listed() {
        let grammar = Grammar::from_text("g", "s = item* ; item = \"a\" | \"b\" ;").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let queue = dir.path();
        let choices = |choices: Vec<u32>| {
            SavedChoices {
                grammar: grammar.fingerprint(),
                bounds: "1,3,1".parse().unwrap(),
                choices: ChoiceSequence(choices),
                words: Default::default(),
            }
            .to_bytes()
        };
        let put = |name: &str, bytes: &[u8]| std::fs::write(queue.join(name), bytes).unwrap();
        // Whole, but without its .meta.
        put("000000.txt", b"a b");
        put("000000.choices", &choices(vec![2, 0, 1]));
        // Truncated choices.
        put("000001.txt", b"b");
        put("000001.choices", &choices(vec![1, 1])[..12]);
        put("000001.meta", b"size=1 valid=yes\n");
        // Choices only.
        put("000002.choices", &choices(vec![1, 0]));
        // Nothing usable.
        put("000003.meta", b"size=1\n");
        // Choices of another text.
        put("000004.txt", b"b b");
        put("000004.choices", &choices(vec![1, 0]));
        // Complete without choices, as reduce-corpus writes a reduction that is no sentence.
        put("000005.txt", b"b a b");
        put("000005.meta", b"size=5\n");
        // Past six digits: after the others.
        put("1000000.txt", b"a");

        let (inputs, notes) = read_inputs(queue, Ok(&grammar));
        let taken: Vec<(&str, bool)> = inputs
            .iter()
            .map(|i| (i.text.as_str(), i.choices.is_some()))
            .collect();
        assert_eq!(
            taken,
            vec![
                ("a b", true),
                ("b", false),
                ("a", true),
                ("b b", false),
                ("b a b", false),
                ("a", false)
            ]
        );
        assert_eq!(inputs[2].origin, queue.join("000002.choices"));
        let noted =
            |stem: &str, needle: &str| notes.iter().any(|n| n.contains(stem) && n.contains(needle));
        assert!(noted("000001.txt", "corrupt"), "{notes:#?}");
        assert!(noted("000002.choices", "replay to"), "{notes:#?}");
        assert!(noted("000003", "not exported"), "{notes:#?}");
        assert!(noted("000004.txt", "another text"), "{notes:#?}");
        assert!(noted("1000000.txt", "no .choices"), "{notes:#?}");
        assert_eq!(notes.len(), 5, "{notes:#?}");

        let (inputs, notes) = read_inputs(queue, Err("grammar file not found"));
        assert!(inputs.iter().all(|i| i.choices.is_none()));
        assert_eq!(inputs.len(), 5, "choices only need the grammar");
        assert!(notes[0].contains("grammar file not found"), "{notes:#?}");
    }
}
