//! The regression corpora committed under corpus/ stay usable: every manifest loads, names its
//! grammar, and every input's `.choices` replays strictly, under its recorded bounds, to the
//! exact text of its file. A grammar edit that changed what a corpus means fails here, before
//! a user's `replay --check` would report confusing changes.

use std::path::PathBuf;

use bonsai::choice::{Replay, SavedChoices};
use bonsai::grammar::Grammar;
use bonsai::regression::CorpusManifest;
use bonsai::sampler::{Sample, Sampler};
use bonsai::text::render;
use libafl_bolts::rands::StdRand;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_committed_corpus_replays_to_its_files() {
    let mut corpora = 0;
    for dir in std::fs::read_dir(root().join("corpus")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.join("manifest.json").is_file() {
            continue;
        }
        corpora += 1;
        let manifest = CorpusManifest::load(&dir).unwrap_or_else(|d| panic!("{d:?}"));
        let grammar = Grammar::from_file(&root().join(&manifest.grammar))
            .unwrap_or_else(|e| panic!("{}: {e:?}", manifest.grammar.display()));
        assert_eq!(
            manifest.grammar_fingerprint,
            format!("{:016x}", grammar.fingerprint()),
            "{}: the grammar changed since the export",
            dir.display()
        );
        assert!(!manifest.inputs.is_empty());
        let mut rng = StdRand::with_seed(0);
        for entry in &manifest.inputs {
            let text = std::fs::read_to_string(dir.join(&entry.file)).unwrap();
            assert_eq!(text.len(), entry.size, "{}", entry.file);
            let choices = entry.choices.as_ref().expect("every input has choices");
            let saved = SavedChoices::read(&dir.join(choices)).unwrap();
            assert_eq!(saved.grammar, grammar.fingerprint(), "{}", entry.file);
            let mut sampler = Sampler::new(&grammar, saved.bounds).unwrap();
            let mut sample = Sample::default();
            sampler
                .sample(
                    saved.choices.as_slice(),
                    Replay::Strict,
                    &mut rng,
                    &mut sample,
                )
                .unwrap_or_else(|e| panic!("{}: {e}", entry.file));
            assert_eq!(render(&grammar, &sample.tree), text, "{}", entry.file);
        }
    }
    assert!(corpora >= 1, "corpus/ holds no exported corpus");
}
