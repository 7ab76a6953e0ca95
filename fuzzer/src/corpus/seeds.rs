//! Seeds: saved choice sequences replayed strictly under the run's bounds.

use std::path::{Path, PathBuf};

use libafl_bolts::rands::StdRand;

use super::entry_dir::EntryDir;
use super::stored_entry::{EntryFile, StoredEntry};
use crate::choice::{ChoiceInput, Replay};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::layout::QUEUE_DIR;
use crate::sampler::{Bounds, Sample, Sampler};

/// A seed that replays within the bounds.
#[derive(Clone, Debug)]
pub struct Seed {
    /// The choices as the strict replay normalized them, under the run's bounds.
    pub input: ChoiceInput,
    /// The `.choices` file it was read from.
    pub path: PathBuf,
    /// Length of the text it renders to; seeds run smallest first.
    pub size: usize,
    /// Its number, when it comes from the run's own queue (a resume).
    pub existing: Option<u32>,
    /// An entry of the run's own queue whose `.meta` is missing or unreadable (its write was
    /// cut short, or something overwrote it):
    /// the resumed run keeps it again, whatever its coverage, so that the store writes it.
    pub needs_meta: bool,
}

/// A file that is not used as a seed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The file passed over.
    pub path: PathBuf,
    /// Why, in words meant for the user (the run prints them).
    pub reason: String,
}

/// What [`Seeds::load`] found in a directory: usable seeds, smallest first and without
/// duplicates, and every file it passed over, so nothing is dropped without a word.
#[derive(Clone, Debug, Default)]
pub struct Seeds {
    /// Seeds that replay strictly, sorted by rendered size, then path.
    pub seeds: Vec<Seed>,
    /// Files that were not used, each with its reason.
    pub skipped: Vec<Skipped>,
}

/// The directory holding the inputs of `dir`: `dir/queue` for a fuzzing output directory,
/// `dir` itself otherwise.
pub fn input_directory(dir: &Path) -> PathBuf {
    let queue = dir.join(QUEUE_DIR);
    if queue.is_dir() {
        queue
    } else {
        dir.to_path_buf()
    }
}

impl Seeds {
    /// Reads every `.choices` file of `dir` (or of `dir/queue`) and replays it strictly: a
    /// sequence that the bounds do not admit, or that was recorded with another grammar, is
    /// reported in [`Seeds::skipped`], never silently dropped or silently repaired into a
    /// different input. Text files without choices are reported too (`bonsai import` turns them
    /// into choice sequences). `own` marks the run's own queue, whose entries keep their
    /// numbers.
    pub fn load(
        dir: &Path,
        grammar: &Grammar,
        bounds: Bounds,
        own: bool,
    ) -> Result<Seeds, Diagnostic> {
        let dir = input_directory(dir);
        let paths = EntryDir::new(&dir).files().map_err(|e| {
            Diagnostic::error(format!("cannot read seed directory: {e}")).in_file(&dir)
        })?;
        let fingerprint = grammar.fingerprint();
        let mut sampler = Sampler::new(grammar, bounds)?;
        let mut rng = StdRand::with_seed(0);
        let mut sample = Sample::default();
        let mut seeds = Seeds::default();
        for path in &paths {
            let entry = StoredEntry::of_file(path);
            match EntryFile::of(path) {
                Some(EntryFile::Choices) => {}
                Some(EntryFile::Text) if is_import_report(path) => continue,
                Some(EntryFile::Text) if !entry.has(EntryFile::Choices) => {
                    seeds.skipped.push(Skipped {
                        path: path.clone(),
                        reason: "a text file without a .choices file: turn text seeds into choice sequences with `bonsai import` first".into(),
                    });
                    continue;
                }
                _ => continue,
            }
            let skip = |reason: String| Skipped {
                path: path.clone(),
                reason,
            };
            let saved = match entry.read_choices() {
                Ok(saved) => saved,
                Err(e) => {
                    seeds.skipped.push(skip(e.message));
                    continue;
                }
            };
            if let Err(other) = saved.check_grammar(fingerprint) {
                seeds.skipped.push(skip(format!(
                    "{other} (fingerprint {:016x}, expected {:016x})",
                    other.recorded, other.expected
                )));
                continue;
            }
            if let Err(e) = sampler.sample(
                saved.choices.as_slice(),
                Replay::Strict,
                &mut rng,
                &mut sample,
            ) {
                seeds
                    .skipped
                    .push(skip(format!("{e} under bounds {bounds}")));
                continue;
            }
            if sample.choices.len() != saved.choices.len() {
                seeds.skipped.push(skip(format!(
                    "only {} of its {} choices are used: it is not a normalized sequence",
                    sample.choices.len(),
                    saved.choices.len()
                )));
                continue;
            }
            let mut text = String::new();
            crate::text::render_words_into(grammar, &sample.tree, &saved.words, &mut text);
            let existing = own.then(|| entry.number()).flatten();
            seeds.seeds.push(Seed {
                input: ChoiceInput::new(sample.choices.clone(), bounds)
                    .with_words(saved.words.clone()),
                path: path.clone(),
                size: text.len(),
                existing,
                needs_meta: existing.is_some() && !entry.meta_is_readable(),
            });
        }
        seeds
            .seeds
            .sort_by(|a, b| (a.size, &a.path).cmp(&(b.size, &b.path)));
        seeds
            .seeds
            .dedup_by(|a, b| a.input.choices == b.input.choices && a.input.words == b.input.words);
        Ok(seeds)
    }
}

/// The reports `bonsai import` writes beside the entries it makes: the output of an import
/// is meant to be passed to `--seeds` as it is, reports and all.
pub const IMPORT_REPORT_TXT: &str = crate::layout::IMPORT_REPORT_TXT;
/// The JSON form of the import report, also skipped when loading seeds.
pub const IMPORT_REPORT_JSON: &str = crate::layout::IMPORT_REPORT_JSON;

fn is_import_report(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == IMPORT_REPORT_TXT || name == IMPORT_REPORT_JSON)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceSequence;
    use crate::choice::SavedChoices;

    #[test]
    fn replays_strictly_and_reports_what_it_skips() {
        let grammar = Grammar::from_text("g", "s = item* ; item = \"a\" | \"b\" ;").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let save = |name: &str, bounds: &str, choices: Vec<u32>, fingerprint: u64| {
            SavedChoices {
                grammar: fingerprint,
                bounds: bounds.parse().unwrap(),
                choices: ChoiceSequence(choices),
                words: Default::default(),
            }
            .write(&dir.path().join(name))
            .unwrap();
        };
        let fp = grammar.fingerprint();
        save("000001.choices", "1,2,1", vec![2, 0, 1], fp); // two items: a b
        save("000000.choices", "1,1,1", vec![1, 1], fp); // one item: b
        save("000002.choices", "1,3,1", vec![3, 0, 0, 0], fp); // three items: beyond n = 2
        save("000003.choices", "1,1,1", vec![1, 1], fp ^ 1); // another grammar
        std::fs::write(dir.path().join("000004.choices"), b"garbage").unwrap();
        std::fs::write(dir.path().join("loose.txt"), b"a b").unwrap();
        let bounds: Bounds = "1,2,1".parse().unwrap();
        let seeds = Seeds::load(dir.path(), &grammar, bounds, true).unwrap();
        let kept: Vec<_> = seeds
            .seeds
            .iter()
            .map(|s| s.input.choices.0.clone())
            .collect();
        assert_eq!(kept, vec![vec![1, 1], vec![2, 0, 1]], "smallest first");
        assert_eq!(seeds.seeds[0].existing, Some(0));
        let skipped: Vec<String> = seeds
            .skipped
            .iter()
            .map(|s| s.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            skipped,
            vec![
                "000002.choices",
                "000003.choices",
                "000004.choices",
                "loose.txt"
            ]
        );
        assert!(seeds.skipped[0].reason.contains("out of bounds"));
        assert!(seeds.skipped[1].reason.contains("different grammar"));
    }
}
