//! `bonsai reduce-corpus`: reduce every input of a fuzzing queue, each keeping the coverage it
//! contributed (the fuzz-then-reduce baseline).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::corpus::{MANIFEST, Manifest};
use crate::diagnostic::Diagnostic;
use crate::layout::QUEUE_DIR;
use crate::parse::with_large_stack;
use crate::reduce::Strategy;
use crate::reduce::queue_reduction::{CorpusOptions, reduce_corpus};
use crate::target::require_instrumented;

#[derive(Args)]
pub struct ReduceCorpusArgs {
    /// The target whose coverage is kept (runs the binary bonsai-TARGET).
    #[arg(long)]
    target: String,
    /// A `bonsai fuzz` output directory (its fuzz.json names the grammar; its queue/ is
    /// reduced).
    dir: PathBuf,
    /// Where to write the reduced corpus: a new directory, laid out as a fuzzing output.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The grammar, when not the one fuzz.json names (relative to where fuzzing ran).
    #[arg(long, value_name = "FILE")]
    grammar: Option<PathBuf>,
    /// hdd keeps sentences of the grammar; ddmin and hdd+ddmin may leave it.
    #[arg(long, default_value = "hdd", value_name = "hdd|ddmin|hdd+ddmin")]
    reducer: Strategy,
    /// Runs of the target per input at most.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    max_tests: u64,
    /// Per-run timeout of the target in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// Reduce only every K-th input, to estimate a full reduction's sizes in 1/K of its time.
    #[arg(long, value_name = "K", default_value_t = 1)]
    sample_every: usize,
    /// Print the summary as one line of JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ReduceCorpusArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let target = super::plugin::linked_named(linked, &args.target)?;
    require_instrumented(target.name)?;
    if args.timeout_ms == 0 || args.max_tests == 0 || args.sample_every == 0 {
        return Err(Diagnostic::error(
            "--timeout-ms, --max-tests and --sample-every must be at least 1",
        )
        .into());
    }
    let manifest_path = args.dir.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest_path).map_err(|e| {
        Diagnostic::error(format!(
            "not a `bonsai fuzz` output directory (cannot read {MANIFEST}: {e})"
        ))
        .in_file(&args.dir)
    })?;
    let mut manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("not a Bonsai fuzzing manifest: {e}")).in_file(&manifest_path)
    })?;
    if manifest.target != target.name {
        return Err(Diagnostic::error(format!(
            "this corpus was fuzzed against target '{}', not '{}'",
            manifest.target, target.name
        ))
        .in_file(&manifest_path)
        .into());
    }
    if let Some(grammar) = &args.grammar {
        manifest.grammar = grammar.clone();
    }
    let grammar = crate::import::load(&manifest.grammar)?.grammar;
    if format!("{:016x}", grammar.fingerprint()) != manifest.grammar_fingerprint {
        return Err(Diagnostic::error(format!(
            "{} is not the grammar this corpus was fuzzed with (its fingerprint differs)",
            manifest.grammar.display()
        ))
        .in_file(&manifest_path)
        .into());
    }
    let options = CorpusOptions {
        strategy: args.reducer,
        max_tests_per_input: args.max_tests,
        timeout: Duration::from_millis(args.timeout_ms),
        sample_every: args.sample_every,
    };
    let queue = args.dir.join(QUEUE_DIR);
    let summary = with_large_stack(|| {
        reduce_corpus(&grammar, &manifest, &queue, &args.out, target, options)
    })?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&summary).expect("plain data serializes")
        );
    }
    let sample = if summary.sample_every > 1 {
        format!(" (a sample: every {}th)", summary.sample_every)
    } else {
        String::new()
    };
    eprintln!(
        "reduced {} inputs{sample} with {}: {} bytes to {} ({:.1}% smaller), {} written ({} duplicates \
         dropped, {} unreduced), {} runs of the target, {:.1} s; output in {}",
        summary.sampled,
        summary.reducer,
        summary.bytes_before,
        summary.bytes_after,
        100.0 * summary.bytes_before.saturating_sub(summary.bytes_after) as f64
            / summary.bytes_before.max(1) as f64,
        summary.written,
        summary.duplicates,
        summary.unreduced,
        summary.tests,
        summary.seconds,
        args.out.display()
    );
    Ok(())
}
