//! What an interrupted run leaves in its output directory, put right when it resumes.
//!
//! An entry's files are written in the order choices, text, metadata (see `store`): a queue
//! entry's first two in place, every other file through a temporary file and a rename. A run
//! killed, or stopped by a full disk, in the middle of that leaves temporary files, and an
//! entry without its `.meta`: its choices whole and its text missing or torn, or its choices
//! themselves torn and no text. Outputs of older versions, which wrote the text first, may
//! hold a text without choices. None of this may cost a saved input, and none of it should be
//! reported again on every resume: temporary files are removed (the caller holds the
//! directory's lock, so no write is in progress), an entry without metadata gets its text
//! rendered again from its choices where it is missing or differs, torn choices with no text
//! after them (an input whose first file was never finished, so never saved) are removed,
//! missing choices are parsed back from the text, and a missing or unreadable `.meta` (see
//! `StoredEntry::meta_is_readable`) is written again when the resumed run replays the entry
//! (`Seed::needs_meta`).

use std::path::{Path, PathBuf};

use libafl_bolts::rands::StdRand;

use super::DIRECTORIES;
use super::entry_dir::EntryDir;
use super::stored_entry::{Durability, EntryFile, StoredEntry};
use crate::choice::{Replay, SavedChoices};
use crate::grammar::Grammar;
use crate::layout::QUEUE_DIR;
use crate::parse::{ParseOptions, Parser, with_large_stack};
use crate::sampler::{Bounds, Sample, Sampler};
use crate::text::{SavedReplayError, replay_saved};

/// What [`repair`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repaired {
    /// Temporary files of interrupted writes, removed.
    pub temporaries: usize,
    /// Queue texts written again from their choices.
    pub texts: Vec<PathBuf>,
    /// Torn choices of entries whose first write was cut short, removed.
    pub torn: Vec<PathBuf>,
    /// Queue choices parsed back from their texts.
    pub choices: Vec<PathBuf>,
    /// Entries that could not be made whole, and why; they stay as they are.
    pub failed: Vec<(PathBuf, String)>,
}

/// Repairs the output directory `root` of a run on `grammar` within `bounds`.
pub fn repair(root: &Path, grammar: &Grammar, bounds: Bounds) -> Repaired {
    let mut repaired = Repaired {
        temporaries: crate::fs_util::remove_temporaries(root),
        ..Repaired::default()
    };
    for dir in DIRECTORIES {
        repaired.temporaries += crate::fs_util::remove_temporaries(&root.join(dir));
    }
    let Ok(paths) = EntryDir::new(root.join(QUEUE_DIR)).files() else {
        return repaired;
    };
    let mut parser = None;
    for path in &paths {
        let entry = StoredEntry::of_file(path);
        if entry.number().is_none() {
            continue;
        }
        let result = match EntryFile::of(path) {
            Some(EntryFile::Choices) if !entry.meta_is_readable() => {
                finish_first_write(&entry, grammar, &mut repaired)
            }
            Some(EntryFile::Text) if !entry.has(EntryFile::Choices) => {
                let parser = parser.get_or_insert_with(|| Parser::new(grammar));
                parse_choices(&entry, parser, bounds)
                    .map(|()| repaired.choices.push(entry.choices_path()))
            }
            _ => Ok(()),
        };
        if let Err(reason) = result {
            repaired.failed.push((path.clone(), reason));
        }
    }
    repaired
}

/// Completes an entry whose `.meta` is missing or unreadable: its text, as the strict replay
/// of its choices renders it, where the file is missing or holds anything else (a text written
/// in place may be torn). Choices that do not decode, with no text after them, are the first
/// file of a write cut short: removed.
fn finish_first_write(
    entry: &StoredEntry,
    grammar: &Grammar,
    repaired: &mut Repaired,
) -> Result<(), String> {
    let saved = match entry.read_choices() {
        Ok(saved) => saved,
        Err(_) if !entry.has(EntryFile::Text) => {
            let path = entry.choices_path();
            std::fs::remove_file(&path).map_err(|e| format!("cannot remove: {e}"))?;
            repaired.torn.push(path);
            return Ok(());
        }
        Err(d) => return Err(d.message),
    };
    let text = replay_saved(grammar, &saved).map_err(|e| match e {
        SavedReplayError::OtherGrammar => "recorded with a different grammar".to_string(),
        SavedReplayError::Bounds(m) | SavedReplayError::Replay(m) => m,
    })?;
    if std::fs::read(entry.text_path()).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(());
    }
    entry
        .write(EntryFile::Text, text.as_bytes(), Durability::Unsynced)
        .map_err(|d| d.message)?;
    repaired.texts.push(entry.text_path());
    Ok(())
}

/// Writes the entry's choices from its text: the choices that replay, strictly and within
/// the run's bounds, to exactly that text, as the fuzzer would have written them.
fn parse_choices(entry: &StoredEntry, parser: &Parser<'_>, bounds: Bounds) -> Result<(), String> {
    let grammar = parser.grammar();
    let text = entry.read_text().map_err(|d| d.message)?;
    // Extraction recurses as deep as the text nests.
    // An imported seed's own words parse back as words of its own.
    let parsed = with_large_stack(|| parser.parse_with(&text, ParseOptions::keeping_words()))
        .map_err(|e| e.message)?;
    if !parsed.bounds.within(&bounds) {
        return Err(format!(
            "its text needs bounds {}, beyond the run's {bounds}",
            parsed.bounds
        ));
    }
    let mut sampler = Sampler::new(grammar, bounds).map_err(|d| d.message)?;
    let mut sample = Sample::default();
    with_large_stack(|| {
        sampler.sample(
            parsed.choices.as_slice(),
            Replay::Strict,
            &mut StdRand::with_seed(0),
            &mut sample,
        )
    })
    .map_err(|e| e.to_string())?;
    if crate::text::render_words(grammar, &sample.tree, &parsed.words) != text {
        return Err("its text does not parse back to the same text".into());
    }
    let saved = SavedChoices {
        grammar: grammar.fingerprint(),
        bounds,
        choices: sample.choices,
        words: parsed.words,
    };
    entry
        .write(EntryFile::Choices, &saved.to_bytes(), Durability::Unsynced)
        .map_err(|d| d.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceSequence;

    /// An output directory with its subdirectories, empty, and the tests' grammar and bounds.
    fn output_dir() -> (Grammar, Bounds, tempfile::TempDir) {
        let grammar = Grammar::from_text("g", "s = item* ; item = \"a\" | \"b\" ;").unwrap();
        let bounds: Bounds = "1,3,1".parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        for sub in DIRECTORIES {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        (grammar, bounds, dir)
    }

    /// The saved choices that render "a b".
    fn a_b(grammar: &Grammar, bounds: Bounds) -> SavedChoices {
        SavedChoices {
            grammar: grammar.fingerprint(),
            bounds,
            choices: ChoiceSequence(vec![2, 0, 1]),
            words: Default::default(),
        }
    }

    #[test]
    fn a_cut_short_write_is_made_whole_and_temporaries_go() {
        let (grammar, bounds, dir) = output_dir();
        let root = dir.path();
        let queue = root.join("queue");
        // Choices written, text not yet.
        a_b(&grammar, bounds)
            .write(&queue.join("000000.choices"))
            .unwrap();
        // An older version's order: text written, choices not yet.
        std::fs::write(queue.join("000001.txt"), "b b a").unwrap();
        // Text beyond the bounds: left alone, and said why.
        std::fs::write(queue.join("000002.txt"), "a a a a").unwrap();
        std::fs::write(root.join(".fuzz.json.tmp77"), "").unwrap();
        std::fs::write(queue.join(".000003.choices.tmp77"), "").unwrap();
        std::fs::write(root.join("crashes/.000000.meta.tmp78"), "").unwrap();

        let repaired = repair(root, &grammar, bounds);
        assert_eq!(repaired.temporaries, 3);
        assert_eq!(repaired.texts, vec![queue.join("000000.txt")]);
        assert_eq!(repaired.choices, vec![queue.join("000001.choices")]);
        assert_eq!(repaired.failed.len(), 1, "{:?}", repaired.failed);
        assert!(
            repaired.failed[0].1.contains("beyond"),
            "{:?}",
            repaired.failed
        );
        assert_eq!(
            std::fs::read_to_string(queue.join("000000.txt")).unwrap(),
            "a b"
        );
        let rebuilt = SavedChoices::read(&queue.join("000001.choices")).unwrap();
        assert_eq!(rebuilt.bounds, bounds);
        let mut sampler = Sampler::new(&grammar, bounds).unwrap();
        let mut sample = Sample::default();
        sampler
            .sample(
                rebuilt.choices.as_slice(),
                Replay::Strict,
                &mut StdRand::with_seed(0),
                &mut sample,
            )
            .unwrap();
        assert_eq!(crate::text::render(&grammar, &sample.tree), "b b a");
        // Nothing is left to do a second time.
        let again = repair(root, &grammar, bounds);
        assert_eq!(
            (again.temporaries, again.texts.len(), again.choices.len()),
            (0, 0, 0)
        );
    }

    #[test]
    fn a_first_write_torn_in_its_choices_goes_and_one_torn_in_its_text_is_rendered_again() {
        let (grammar, bounds, dir) = output_dir();
        let root = dir.path();
        let queue = root.join("queue");
        let bytes = a_b(&grammar, bounds).to_bytes();
        // Killed within the first file: half the choices, nothing else.
        std::fs::write(queue.join("000000.choices"), &bytes[..bytes.len() / 2]).unwrap();
        // Killed within the text: the choices whole, the text torn, no metadata.
        std::fs::write(queue.join("000001.choices"), &bytes).unwrap();
        std::fs::write(queue.join("000002.choices"), &bytes).unwrap();
        std::fs::write(queue.join("000001.txt"), "a").unwrap();
        // Complete: its metadata marks it so, and nothing of it is touched.
        std::fs::write(queue.join("000002.txt"), "a b").unwrap();
        std::fs::write(queue.join("000002.meta"), "valid=yes edges=3\n").unwrap();
        assert!(StoredEntry::numbered(&queue, 2).meta_is_readable());

        let repaired = repair(root, &grammar, bounds);
        assert_eq!(repaired.torn, vec![queue.join("000000.choices")]);
        assert!(!queue.join("000000.choices").exists());
        assert_eq!(repaired.texts, vec![queue.join("000001.txt")]);
        assert_eq!(
            std::fs::read_to_string(queue.join("000001.txt")).unwrap(),
            "a b"
        );
        assert!(repaired.failed.is_empty(), "{:?}", repaired.failed);
        assert!(queue.join("000002.choices").exists());
        let again = repair(root, &grammar, bounds);
        assert_eq!(
            (again.torn.len(), again.texts.len(), again.failed.len()),
            (0, 0, 0)
        );
    }
}
