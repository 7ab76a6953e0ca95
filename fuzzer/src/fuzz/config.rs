//! Everything one fuzzing run needs to know, and its one written form: a parent process that
//! starts a run in a process of its own (a campaign's node, a multi-core run's client) writes
//! the whole configuration to a file, and the child reads the same `FuzzConfig` back, so a
//! new setting reaches every child by being a field here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::coordinator::MultiCore;
use super::stop::StopCondition;
use crate::diagnostic::Diagnostic;
use crate::feedback::{CoverageGrain, SaveCriteria};
use crate::sampler::Bounds;
use crate::schedule::{ChildrenRule, SchedulerKind};
use crate::target::LinkedTarget;

/// The longest text run by default. Under generous bounds the recursion mutator nests
/// blocks hundreds deep, and the renderer indents each level, so a few thousand choices can
/// render to megabytes: on oxc a tenth of the corpus was over 64 KB and the loop ran at half
/// speed. Like libFuzzer's `-max_len`, a ceiling the user can raise.
pub const DEFAULT_MAX_LEN: usize = 64 * 1024;
/// Default per-execution timeout. Compilers answer in microseconds to milliseconds; a second
/// is far beyond a legitimate run and short enough not to stall a campaign.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
/// Default memory limit for one execution of the target.
pub const DEFAULT_MEMORY_LIMIT: usize = 2 << 30;
/// Fresh inputs generated before mutation starts, when there are no seeds.
pub const DEFAULT_INITIAL_INPUTS: usize = 32;

/// One run of the fuzzer: the CLI builds it from flags, the lattice from its node, a
/// multi-core run's coordinator from its own for each client.
#[derive(Clone, Serialize, Deserialize)]
pub struct FuzzConfig {
    /// Written as its name: only the binary it is linked into can run it.
    #[serde(with = "target_by_name")]
    pub target: LinkedTarget,
    pub grammar: PathBuf,
    pub bounds: Bounds,
    pub criteria: SaveCriteria,
    /// Whether a new hit count of a known edge is enough to keep an input.
    pub grain: CoverageGrain,
    /// Directories of `.choices` files (or fuzzing outputs) to seed from, in order.
    pub seeds: Vec<PathBuf>,
    /// Also seed from the cover suite of this grammar coverage criterion (`bonsai cover`),
    /// built under the run's bounds.
    #[serde(with = "criterion_by_name")]
    pub seed_cover: Option<crate::coverage::Criterion>,
    /// Also keep inputs that derive a k-path of the grammar no execution derived before, with
    /// this k (`--grammar-feedback kpath:K`).
    pub grammar_feedback: Option<usize>,
    /// The output directory; an earlier output of the same campaign is resumed.
    pub out: PathBuf,
    /// Seeds every random decision of the run (replay after a crash aside).
    pub seed: u64,
    pub stop: StopCondition,
    pub timeout: Duration,
    /// `None` disables the limit.
    pub memory_limit: Option<usize>,
    /// Texts longer than this many bytes are not run (see [`DEFAULT_MAX_LEN`]).
    pub max_len: usize,
    /// Also keep inputs that run much longer than their length predicts
    /// (`feedback::SlowPaths`): stepping stones towards super-linear hangs.
    pub keep_slow: bool,
    /// Run the target's oracles (`Target::check`) after each verdict. On by default; off to
    /// measure what they cost, or to fuzz for crashes alone.
    pub oracles: bool,
    /// With `--cores`: send with each saved entry the words of its coverage that were news to
    /// its client, so that other clients run only entries that are news to them
    /// (`feedback::ShippedRun`). On by default: on 16 cores it was worth 1.7x the executions
    /// on oxc, whose clients otherwise spend their first seconds running each other's first
    /// entries. (Sent whole, the coverage made LLMP's broker, which keeps every page it
    /// forwards, hold three to four times the shared memory; the news alone add next to
    /// nothing.)
    #[serde(default = "sharing_coverage")]
    pub share_coverage: bool,
    /// The mutators switched on (names of [`crate::mutators::MUTATOR_NAMES`]); `None`: all.
    pub mutators: Option<Vec<String>>,
    pub scheduler: SchedulerKind,
    /// With the zest scheduler: how many children a parent gets per pick.
    pub children: ChildrenRule,
    /// With the zest scheduler: the share of picks that take the newest entry never picked.
    pub newest_first: f64,
    /// Fresh inputs generated when no seed was loaded.
    pub initial_inputs: usize,
    /// Show the status line (or periodic log lines when stderr is not a terminal).
    pub show_status: bool,
    /// Record this many executions and replay them through a bare loop at the end, to
    /// report the engine's overhead in the summary (`scripts/bench-overhead`).
    pub measure_overhead: Option<usize>,
    /// Executions to let pass before recording starts (see [`super::Recorder`]).
    pub measure_overhead_after: usize,
    /// Runs of the target each new crash may spend on its reduced reproducer
    /// (`crashes/NNNNNN.min.txt`) once the run has ended; 0 turns reduction off.
    pub reduce_crash_tests: u64,
    /// Runs of the target each new entry may spend on being trimmed (`trim`); 0 keeps
    /// entries as they were found.
    pub trim_tests: u64,
    /// The stack the target runs on, in bytes (`--stack`; see `target::set_target_stack`).
    pub stack: usize,
    /// Set for a run over several cores: its coordinator starts one client per core.
    pub multi_core: Option<MultiCore>,
    /// Set in the clients of a multi-core run (see `fuzz::coordinator`).
    pub client: Option<super::ClientRole>,
}

impl FuzzConfig {
    pub fn new(target: LinkedTarget, grammar: PathBuf, bounds: Bounds, out: PathBuf) -> Self {
        Self {
            target,
            grammar,
            bounds,
            criteria: SaveCriteria::Zest,
            grain: CoverageGrain::HitCounts,
            seeds: Vec::new(),
            seed_cover: None,
            grammar_feedback: None,
            out,
            seed: 0,
            stop: StopCondition::default(),
            timeout: DEFAULT_TIMEOUT,
            memory_limit: Some(DEFAULT_MEMORY_LIMIT),
            max_len: DEFAULT_MAX_LEN,
            keep_slow: false,
            oracles: true,
            share_coverage: true,
            mutators: None,
            scheduler: SchedulerKind::Zest,
            children: ChildrenRule::Zest,
            newest_first: 0.0,
            initial_inputs: DEFAULT_INITIAL_INPUTS,
            show_status: false,
            measure_overhead: None,
            measure_overhead_after: 0,
            reduce_crash_tests: crate::triage::DEFAULT_CRASH_TESTS,
            trim_tests: 0,
            stack: crate::target::DEFAULT_TARGET_STACK,
            multi_core: None,
            client: None,
        }
    }

    /// Writes the configuration for a child process, which reads it with [`FuzzConfig::read`].
    pub fn write(&self, path: &Path) -> Result<(), Diagnostic> {
        let json = serde_json::to_string_pretty(self).expect("plain data serializes");
        crate::write_atomic(path, format!("{json}\n").as_bytes())
    }

    /// The configuration a parent process wrote with [`FuzzConfig::write`]. The file names its
    /// target, which must be the one `linked` into this binary.
    pub fn read(path: &Path, linked: Option<LinkedTarget>) -> Result<Self, Diagnostic> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(path))?;
        let mut config: FuzzConfig = serde_json::from_str(&text).map_err(|e| {
            Diagnostic::error(format!("not a fuzzing configuration: {e}")).in_file(path)
        })?;
        let named = config.target.name;
        config.target = linked.filter(|t| t.name == named).ok_or_else(|| {
            Diagnostic::error(format!("target '{named}' is not linked into this binary"))
                .in_file(path)
        })?;
        Ok(config)
    }
}

/// A target as its name. Reading gives a stand-in that only names it, which
/// [`FuzzConfig::read`] replaces by the linked target before anyone can make one.
mod target_by_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::target::{LinkedTarget, Target};

    pub fn serialize<S: Serializer>(target: &LinkedTarget, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(target.name)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<LinkedTarget, D::Error> {
        let name = String::deserialize(d)?;
        Ok(LinkedTarget {
            name: Box::leak(name.into_boxed_str()),
            make: not_linked,
        })
    }

    fn not_linked() -> Box<dyn Target> {
        unreachable!("FuzzConfig::read links the target a configuration file names")
    }
}

/// A grammar coverage criterion as `--seed-cover` takes it (`kpath:3`).
mod criterion_by_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::coverage::Criterion;

    pub fn serialize<S: Serializer>(
        criterion: &Option<Criterion>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match criterion {
            Some(c) => s.serialize_some(&c.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Criterion>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|name| name.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// `share_coverage`'s value in a configuration written before the option existed: the default
/// of [`FuzzConfig::new`].
fn sharing_coverage() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linked() -> LinkedTarget {
        LinkedTarget {
            name: "planted",
            make: || unreachable!("not run"),
        }
    }

    /// What a child reads back is what its parent wrote, setting for setting.
    #[test]
    fn a_configuration_survives_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let mut config = FuzzConfig::new(
            linked(),
            PathBuf::from("g.ebnf"),
            Bounds::new(2, 3, 4).unwrap(),
            dir.path().join("out"),
        );
        config.seed_cover = Some(crate::coverage::Criterion::KPath(3));
        config.stop.time = Some(Duration::from_millis(1500));
        config.mutators = Some(vec!["havoc".into()]);
        config.multi_core = Some(MultiCore {
            cores: vec![0, 2],
            network: super::super::Network {
                broker_port: 4242,
                connect: Some("host:1".into()),
            },
        });
        config.write(&path).unwrap();
        let back = FuzzConfig::read(&path, Some(linked())).unwrap();
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(&config).unwrap()
        );
        assert_eq!(back.seed_cover, config.seed_cover);
    }

    #[test]
    fn a_configuration_for_another_target_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let config = FuzzConfig::new(
            linked(),
            "g".into(),
            Bounds::new(1, 1, 1).unwrap(),
            "o".into(),
        );
        config.write(&path).unwrap();
        let other = LinkedTarget {
            name: "other",
            make: || unreachable!("not run"),
        };
        let refused = FuzzConfig::read(&path, Some(other)).err().unwrap();
        assert!(refused.message.contains("'planted'"), "{refused}");
        assert!(FuzzConfig::read(&path, None).is_err());
    }
}
