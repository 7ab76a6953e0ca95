//! The peer baseline: LibAFL's own Nautilus fuzzer on the same grammar, target and budget.
//!
//! Built the way LibAFL's Nautilus examples build it (derivation-tree inputs, the random,
//! recursion and splice mutators under a havoc scheduler, a hit-count edge map with
//! `MaxMapFeedback`, a queue scheduler), on Bonsai's grammar converted by
//! `export::nautilus_rules`, so that `scripts/compare-nautilus` compares engines, not setups.
//! It shares Bonsai's supervision (a restarting manager, so aborts and hangs do not end the
//! run) and writes its corpus as text, which `bonsai replay` measures like Bonsai's own.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use libafl::HasNamedMetadata;
use libafl::corpus::{Corpus, InMemoryCorpus};
use libafl::events::SimpleRestartingEventManager;
use libafl::executors::{ExitKind, InProcessExecutor};
use libafl::feedbacks::nautilus::{NautilusChunksMetadata, NautilusFeedback};
use libafl::feedbacks::{CrashFeedback, MapFeedbackMetadata, MaxMapFeedback, TimeoutFeedback};
use libafl::fuzzer::{Fuzzer, StdFuzzer};
use libafl::generators::{NautilusContext, NautilusGenerator};
use libafl::inputs::NautilusInput;
use libafl::monitors::NopMonitor;
use libafl::mutators::{
    HavocScheduledMutator, NautilusRandomMutator, NautilusRecursionMutator, NautilusSpliceMutator,
};
use libafl::observers::{CanTrack, HitcountsIterableMapObserver};
use libafl::schedulers::QueueScheduler;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, HasExecutions, HasSolutions, StdState};
use libafl::{HasMetadata, feedback_or, feedback_or_fast};
use libafl_bolts::rands::StdRand;
use libafl_bolts::shmem::{ShMemProvider, StdShMemProvider};
use libafl_bolts::tuples::tuple_list;
use libafl_bolts::{Error, Named};
use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::sampler::Bounds;
use crate::target::{LinkedTarget, require_instrumented};

/// Nautilus's default tree size in LibAFL's examples is 15 nodes per generated tree; that
/// yields inputs far shorter than Bonsai's at (3,3,3), so the baseline defaults to a size
/// that gives inputs of comparable length (see `benches/generate.rs` for the matching).
pub const DEFAULT_TREE_SIZE: usize = 100;

#[derive(Clone)]
pub struct BaselineConfig {
    pub target: LinkedTarget,
    pub grammar: PathBuf,
    /// Only m applies: each pool offers its first m values.
    pub bounds: Bounds,
    pub out: PathBuf,
    pub seed: u64,
    pub time: Option<Duration>,
    pub execs: Option<u64>,
    pub timeout: Duration,
    pub tree_size: usize,
}

/// What the baseline reports; the corpus is in `OUT/queue/*.txt`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BaselineSummary {
    pub execs: u64,
    pub execs_per_sec: f64,
    pub edges: usize,
    pub corpus: usize,
    pub faults: usize,
    pub out: PathBuf,
}

type State =
    StdState<InMemoryCorpus<NautilusInput>, NautilusInput, StdRand, InMemoryCorpus<NautilusInput>>;

pub fn run(config: BaselineConfig) -> Result<BaselineSummary, Diagnostics> {
    require_instrumented(config.target.name)?;
    let grammar = crate::import::load(&config.grammar)?.grammar;
    let rules = crate::export::nautilus_rules(&grammar, config.bounds)?;
    let queue = config.out.join("queue");
    if config.out.exists() && std::fs::read_dir(&config.out).is_ok_and(|mut d| d.next().is_some()) {
        return Err(Diagnostic::error("the output directory is not empty")
            .in_file(&config.out)
            .into());
    }
    crate::create_dir(&queue)?;
    let summary_path = config.out.join("summary.json");
    let started = Instant::now();
    let context: &'static NautilusContext =
        Box::leak(Box::new(NautilusContext::new(config.tree_size, &rules)));
    let launched = catch_unwind(AssertUnwindSafe(|| {
        let mut shmem = StdShMemProvider::new()?;
        SimpleRestartingEventManager::<NautilusInput, NopMonitor, State, StdShMemProvider>::launch(
            NopMonitor::new(),
            &mut shmem,
            true,
        )
    }));
    match launched {
        Ok(Ok((state, mut manager))) => {
            let code = match fuzz(&config, context, state, &mut manager, started) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: baseline stopped: {e}");
                    2
                }
            };
            std::process::exit(code);
        }
        Ok(Err(Error::ShuttingDown)) => {}
        Ok(Err(e)) => return Err(Diagnostic::error(format!("cannot run the baseline: {e}")).into()),
        Err(_) => {
            return Err(
                Diagnostic::error("the baseline process died and could not be restarted").into(),
            );
        }
    }
    let text = std::fs::read_to_string(&summary_path).map_err(|_| {
        Diagnostic::error("the baseline ended without a summary").in_file(&config.out)
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("unreadable summary: {e}"))
            .in_file(&summary_path)
            .into()
    })
}

fn fuzz<EM>(
    config: &BaselineConfig,
    context: &'static NautilusContext,
    state: Option<State>,
    manager: &mut EM,
    started: Instant,
) -> Result<(), Error>
where
    EM: libafl::events::EventFirer<NautilusInput, State>
        + libafl::events::EventRestarter<State>
        + libafl::events::EventReceiver<NautilusInput, State>
        + libafl::events::ProgressReporter<State>
        + libafl::events::SendExiting
        + libafl::events::HasEventManagerId
        + libafl::events::AwaitRestartSafe,
{
    // SAFETY: the counter regions are registered before `main` and live for the process.
    let counters = unsafe { libafl_targets::counters_maps_observer("edges") };
    let edges = HitcountsIterableMapObserver::new(counters).track_indices();
    let mut feedback = feedback_or!(MaxMapFeedback::new(&edges), NautilusFeedback::new(context));
    let mut objective = feedback_or_fast!(CrashFeedback::new(), TimeoutFeedback::new());
    let fresh = state.is_none();
    let mut state = match state {
        Some(state) => state,
        None => StdState::new(
            StdRand::with_seed(config.seed),
            InMemoryCorpus::new(),
            InMemoryCorpus::new(),
            &mut feedback,
            &mut objective,
        )?,
    };
    if !state.has_metadata::<NautilusChunksMetadata>() {
        state.add_metadata(NautilusChunksMetadata::new("/tmp".into()));
    }
    let edges_name = edges.name().clone();
    let mut fuzzer = StdFuzzer::new(QueueScheduler::new(), feedback, objective);
    let linked = config.target;
    let mut target = (linked.make)();
    let mut bytes = Vec::new();
    let mut harness = |input: &NautilusInput| {
        input.unparse(context, &mut bytes);
        match catch_unwind(AssertUnwindSafe(|| target.run(&bytes))) {
            Ok(_) => ExitKind::Ok,
            Err(_) => {
                target = (linked.make)();
                ExitKind::Crash
            }
        }
    };
    let mut executor = InProcessExecutor::builder()
        .harness(&mut harness)
        .observers(tuple_list!(edges))
        .timeout(config.timeout)
        .fuzzer(&mut fuzzer)
        .state(&mut state)
        .event_mgr(manager)
        .build()?;
    // The same guard as Bonsai's loop, so both fuzzers survive a timeout inside `malloc`.
    super::signal_guard::install();
    // Panics are caught in the harness: silence their messages as Bonsai's hook does.
    std::panic::set_hook(Box::new(|_| {}));
    if fresh {
        let mut generator = NautilusGenerator::new(context);
        state.generate_initial_inputs_forced(
            &mut fuzzer,
            &mut executor,
            &mut generator,
            manager,
            8,
        )?;
    }
    let mutator = HavocScheduledMutator::with_max_stack_pow(
        tuple_list!(
            NautilusRandomMutator::new(context),
            NautilusRandomMutator::new(context),
            NautilusRandomMutator::new(context),
            NautilusRandomMutator::new(context),
            NautilusRecursionMutator::new(context),
            NautilusSpliceMutator::new(context),
            NautilusSpliceMutator::new(context),
            NautilusSpliceMutator::new(context),
        ),
        2,
    );
    let mut stages = tuple_list!(StdMutationalStage::new(mutator));
    loop {
        let execs = *state.executions();
        if config.execs.is_some_and(|max| execs >= max)
            || config.time.is_some_and(|t| started.elapsed() >= t)
        {
            break;
        }
        fuzzer.fuzz_one(&mut stages, &mut executor, &mut state, manager)?;
    }
    drop(executor);
    let corpus = state.corpus();
    for (n, id) in corpus.ids().enumerate() {
        let input = corpus.cloned_input_for_id(id)?;
        input.unparse(context, &mut bytes);
        crate::write_atomic(
            &config.out.join("queue").join(format!("{n:06}.txt")),
            &bytes,
        )
        .map_err(|d| Error::illegal_state(d.to_string()))?;
    }
    let edges = state
        .named_metadata::<MapFeedbackMetadata<u8>>(&edges_name)
        .map_or(0, |m| m.history_map.iter().filter(|&&v| v != 0).count());
    let elapsed = started.elapsed().as_secs_f64();
    let summary = BaselineSummary {
        execs: *state.executions(),
        execs_per_sec: *state.executions() as f64 / elapsed.max(1e-9),
        edges,
        corpus: state.corpus().count(),
        faults: state.solutions().count(),
        out: config.out.clone(),
    };
    crate::write_atomic(
        &config.out.join("summary.json"),
        serde_json::to_string(&summary)
            .expect("plain data")
            .as_bytes(),
    )
    .map_err(|d| Error::illegal_state(d.to_string()))?;
    manager.send_exiting()?;
    Ok(())
}
