//! `bonsai generate`: fresh inputs within bounds, or the replay of a saved sequence.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use libafl_bolts::rands::StdRand;

use super::Failure;
use super::load::load_grammar;
use crate::choice::{Replay, SavedChoices};
use crate::corpus::{Durability, EntryFile, StoredEntry};
use crate::coverage::Criterion;
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::sampler::{Bounds, Sample, Sampler};
use crate::text::{Renderer, render_words_into};

/// How `bonsai generate` produces inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The bounded random sampler the fuzzer uses.
    Random,
    /// Coverage-driven production, until every feasible production is covered.
    Coverage,
    /// k-path production, until every feasible k-path is covered.
    KPath(usize),
}

impl Strategy {
    /// Reads `random`, `coverage` or `kpath:K`, for clap.
    fn parse_arg(text: &str) -> Result<Self, String> {
        match text {
            "random" => Ok(Strategy::Random),
            "coverage" => Ok(Strategy::Coverage),
            other => match other.strip_prefix("kpath:").map(str::parse::<usize>) {
                Some(Ok(k)) if (1..=Criterion::MAX_K).contains(&k) => Ok(Strategy::KPath(k)),
                Some(_) => Err(format!(
                    "kpath:K takes a K from 1 to {}, not '{}'",
                    Criterion::MAX_K,
                    &other["kpath:".len()..]
                )),
                None => Err(format!(
                    "unknown strategy '{other}'; known: random, coverage, kpath:K"
                )),
            },
        }
    }
}

#[derive(Args)]
pub struct GenerateArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// Bounds M,N,D: pool values, items per repetition, nesting depth (--replay: the recorded
    /// ones).
    #[arg(long, value_name = "M,N,D", value_parser = Bounds::parse_arg)]
    bounds: Option<Bounds>,
    /// How many inputs to generate (default 10; with coverage or kpath:K, at most this many).
    #[arg(long)]
    count: Option<u64>,
    /// How inputs are produced: random (the bounded sampler), coverage or kpath:K.
    #[arg(long, value_name = "STRATEGY", default_value = "random",
          value_parser = Strategy::parse_arg)]
    strategy: Strategy,
    /// Random seed; the same seed gives the same inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write one file per input into this directory instead of stdout.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also save each input's choice sequence as NNNNNN.choices (needs --out).
    #[arg(long, requires = "out")]
    save_choices: bool,
    /// Separate inputs on stdout by NUL instead of newline.
    #[arg(short = '0', long = "null")]
    null: bool,
    /// Replay this saved choice sequence instead of generating.
    #[arg(long, value_name = "FILE.choices", conflicts_with_all = ["count", "save_choices"])]
    replay: Option<PathBuf>,
}

pub fn run(args: GenerateArgs) -> Result<(), Failure> {
    let (grammar, analysis) = load_grammar(&args.grammar)?;
    if let Some(path) = &args.replay {
        return replay(&grammar, path, &args);
    }
    let bounds = args
        .bounds
        .ok_or_else(|| Diagnostic::error("--bounds M,N,D is required when generating"))?;
    match args.strategy {
        Strategy::Random => {}
        Strategy::Coverage => {
            return crate::parse::with_large_stack(|| {
                let mut producer =
                    crate::cover::CoverageProducer::new(&grammar, &analysis, bounds, args.seed);
                by_coverage(&grammar, bounds, &args, || producer.next_word())
            });
        }
        Strategy::KPath(k) => {
            return crate::parse::with_large_stack(|| {
                let mut producer =
                    crate::cover::PathProducer::new(&grammar, &analysis, bounds, k, args.seed)
                        .map_err(|e| Diagnostic::error(e.to_string()))?;
                by_coverage(&grammar, bounds, &args, || producer.next_word())?;
                for (path, reason) in producer.given_up() {
                    tracing::warn!("kpath:{k}: no word for {path}: {reason}");
                }
                Ok(())
            });
        }
    }
    let mut sampler = Sampler::new(&grammar, bounds)?;
    let mut rng = StdRand::with_seed(args.seed);
    let mut sample = Sample::default();
    let mut text = String::new();
    let renderer = Renderer::new(&grammar);
    let mut sink = Sink::new(args.out.as_deref(), args.null)?;
    for i in 0..args.count.unwrap_or(10) {
        if sink.closed {
            break;
        }
        sampler.generate(&mut rng, &mut sample);
        renderer.render_into(&sample.tree, &mut text);
        emit(&mut sink, &args, i, &text, || SavedChoices {
            grammar: grammar.fingerprint(),
            bounds,
            choices: sample.choices.clone(),
            words: Default::default(),
        })?;
    }
    sink.finish()
}

/// Writes input `i` and, with `--save-choices`, its choices beside it.
fn emit(
    sink: &mut Sink,
    args: &GenerateArgs,
    i: u64,
    text: &str,
    saved: impl FnOnce() -> SavedChoices,
) -> Result<(), Diagnostic> {
    sink.write(i, text)?;
    if args.save_choices
        && let Some(dir) = &args.out
    {
        let entry = StoredEntry::named(dir, &format!("{i:06}"));
        entry.write(EntryFile::Choices, &saved().to_bytes(), Durability::Synced)?;
    }
    Ok(())
}

/// A producer's words until it has no more (or `--count` of them), each replayed strictly from
/// its choices before it is written, so that what is printed is what the saved choices give.
fn by_coverage(
    grammar: &Grammar,
    bounds: Bounds,
    args: &GenerateArgs,
    mut next_word: impl FnMut() -> Option<Vec<u32>>,
) -> Result<(), Failure> {
    let unbounded = Bounds::new(bounds.idents, bounds.items, crate::bounds::MAX_BOUND)
        .map_err(|e| Diagnostic::error(e.to_string()))?;
    let renderer = Renderer::new(grammar);
    let mut text = String::new();
    let mut sink = Sink::new(args.out.as_deref(), args.null)?;
    let mut i = 0;
    while args.count.is_none_or(|count| i < count) && !sink.closed {
        let Some(choices) = next_word() else {
            break;
        };
        let sample = crate::sampler::replay_strict(grammar, unbounded, &choices).map_err(|e| {
            Diagnostic::error(format!(
                "internal error: a coverage word does not replay: {e}"
            ))
        })?;
        renderer.render_into(&sample.tree, &mut text);
        emit(&mut sink, args, i, &text, || SavedChoices {
            grammar: grammar.fingerprint(),
            bounds: Bounds::required_by(grammar, &sample.tree),
            choices: sample.tree.choices(grammar),
            words: Default::default(),
        })?;
        i += 1;
    }
    sink.finish()
}

fn replay(grammar: &Grammar, path: &Path, args: &GenerateArgs) -> Result<(), Failure> {
    let saved = SavedChoices::read(path)?;
    if saved.check_grammar(grammar.fingerprint()).is_err() {
        tracing::warn!(
            "{} was recorded with a different grammar than {}; its replay may not be the input it was",
            path.display(),
            args.grammar.display()
        );
    }
    let bounds = args.bounds.unwrap_or(saved.bounds);
    let mut sampler = Sampler::new(grammar, bounds)?;
    let mut rng = StdRand::with_seed(args.seed);
    let mut sample = Sample::default();
    sampler
        .sample(
            saved.choices.as_slice(),
            Replay::Strict,
            &mut rng,
            &mut sample,
        )
        .map_err(|e| Failure::Negative(format!("{}: {e} (bounds {bounds})", path.display())))?;
    let mut text = String::new();
    render_words_into(grammar, &sample.tree, &saved.words, &mut text);
    let mut sink = Sink::new(args.out.as_deref(), args.null)?;
    sink.write(0, &text)?;
    sink.finish()
}

/// Where generated inputs go: numbered files in a directory, or stdout with a separator.
struct Sink {
    dir: Option<PathBuf>,
    stdout: std::io::BufWriter<std::io::Stdout>,
    separator: u8,
    /// The reader of stdout has gone (`bonsai generate ... | head`): it has all it wanted, so
    /// generation stops quietly, as other Unix tools do.
    closed: bool,
}

fn stdout_error(e: std::io::Error) -> Diagnostic {
    Diagnostic::error(format!("cannot write to stdout: {e}"))
}

impl Sink {
    fn new(dir: Option<&Path>, null: bool) -> Result<Self, Diagnostic> {
        if let Some(dir) = dir {
            crate::create_dir(dir)?;
        }
        Ok(Self {
            dir: dir.map(Path::to_path_buf),
            stdout: std::io::BufWriter::new(std::io::stdout()),
            separator: if null { 0 } else { b'\n' },
            closed: false,
        })
    }

    fn write(&mut self, index: u64, text: &str) -> Result<(), Diagnostic> {
        match &self.dir {
            Some(dir) => StoredEntry::named(dir, &format!("{index:06}")).write(
                EntryFile::Text,
                text.as_bytes(),
                Durability::Synced,
            ),
            None => {
                let written = self
                    .stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| self.stdout.write_all(&[self.separator]));
                self.check(written)
            }
        }
    }

    fn check(&mut self, written: std::io::Result<()>) -> Result<(), Diagnostic> {
        match written {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other.map_err(stdout_error),
        }
    }

    fn finish(mut self) -> Result<(), Failure> {
        let flushed = self.stdout.flush();
        self.check(flushed).map_err(Failure::from)
    }
}
