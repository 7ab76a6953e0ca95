//! Every file and directory name Bonsai reads or writes, in one place, so that a tool reading
//! Bonsai's output (or a reader of this code) finds the whole on-disk layout here and no
//! command can spell a name its own way. A leaf: every stage may name files.
//!
//! A fuzzing output (`bonsai fuzz --out DIR`):
//! `DIR/fuzz.json`, `DIR/summary.json`, `DIR/coverage.csv`, `DIR/faults.json` (each fault
//! bucket's count and times), and `DIR/queue`, `DIR/crashes`, `DIR/hangs` of `NNNNNN.txt` +
//! `.choices` + `.meta` (a fault's reduced reproducer as `NNNNNN.min.txt` + `.min.choices`);
//! a multi-core run (`--cores`) adds
//! `DIR/clients/<k>/` (each client's own config.json, coverage.csv, summary.json, log and
//! pid) and
//! `DIR/.claims/` (which entry contents and fault signatures the clients saved). A campaign (`bonsai campaign --out DIR`):
//! `DIR/campaign.json`, `DIR/campaign.log`, `DIR/nodes/<node>/` (one fuzzing output each),
//! `DIR/seeds/<node>/`, `DIR/logs/<node>.log`, `DIR/configs/<node>.json`. An exported corpus: `manifest.json` beside the
//! inputs. A report: `report.md`, `report.html`, `plots/`. An import: `import-report.txt` and
//! `import-report.json` beside the seeds.

/// Inputs kept for new coverage.
pub const QUEUE_DIR: &str = "queue";
/// Inputs that crashed, aborted or ran out of memory.
pub const CRASHES_DIR: &str = "crashes";
/// Inputs that ran past the timeout.
pub const HANGS_DIR: &str = "hangs";
/// A multi-core run's per-client files, one subdirectory per client.
pub const CLIENTS_DIR: &str = "clients";
/// Marks, one empty file each, of the queue contents and fault signatures the clients of a
/// multi-core run saved into the shared directories, so that each is saved once.
pub const CLAIMS_DIR: &str = ".claims";
/// A client's log (its standard error).
pub const CLIENT_LOG: &str = "log";
/// The configuration a parent process wrote for a child's run (`fuzz::FuzzConfig::write`): a
/// multi-core run's client's, in its directory.
pub const FUZZ_CONFIG_JSON: &str = "config.json";
/// The process id of a client's fuzzing process, while it runs.
pub const CLIENT_PID: &str = "pid";
/// What a fuzzing output was fuzzing (target, grammar, bounds).
pub const FUZZ_JSON: &str = "fuzz.json";
/// The result of a fuzzing run's last complete run.
pub const SUMMARY_JSON: &str = "summary.json";
/// A fuzzing run's coverage over time.
pub const COVERAGE_CSV: &str = "coverage.csv";
/// Each fault bucket a fuzzing process saw: how often, when first and last (one file per
/// fuzzing process's directory: the output directory, or a client's own directory).
pub const FAULTS_JSON: &str = "faults.json";
/// The extension of an entry's input as it was run: `NNNNNN.txt`. Every directory of entries
/// (`queue/`, `crashes/`, `hangs/`, a campaign's `seeds/<node>/`, an import, an exported
/// corpus) names an entry's files with these three, and only `corpus::StoredEntry` joins them
/// to a number.
pub const ENTRY_TEXT: &str = "txt";
/// The extension of an entry's choice sequence, from which the rest can be rebuilt:
/// `NNNNNN.choices`.
pub const ENTRY_CHOICES: &str = "choices";
/// The extension of an entry's one line of metadata, written last, so that its presence marks
/// the entry complete: `NNNNNN.meta`.
pub const ENTRY_META: &str = "meta";
/// The extensions of a fault's reduced reproducer: `NNNNNN.min.txt`, and `NNNNNN.min.choices`
/// while it is a sentence of the grammar.
pub const REDUCED_TXT: &str = "min.txt";
/// See [`REDUCED_TXT`].
pub const REDUCED_CHOICES: &str = "min.choices";
/// `bonsai faults --export-tests OUT`: the Rust test file, and the directory of reproducers
/// beside it that its tests include.
pub const FAULT_TESTS_RS: &str = "bonsai_faults.rs";
/// See [`FAULT_TESTS_RS`].
pub const FAULT_TESTS_DIR: &str = "bonsai_faults";
/// A campaign's configuration and node states.
pub const CAMPAIGN_JSON: &str = "campaign.json";
/// A campaign's events, one line each, appended and never rewritten.
pub const CAMPAIGN_LOG: &str = "campaign.log";
/// A campaign's fuzzing outputs, one subdirectory per node.
pub const NODES_DIR: &str = "nodes";
/// A campaign's seeds per node, merged from its predecessors' queues.
pub const SEEDS_DIR: &str = "seeds";
/// The configuration each node of a campaign runs (`fuzz::FuzzConfig::write`), one
/// `<node>.json` per node, rewritten each time the node starts.
pub const CONFIGS_DIR: &str = "configs";
/// A campaign's node logs, one file per node.
pub const LOGS_DIR: &str = "logs";
/// An exported regression corpus's index.
pub const CORPUS_MANIFEST: &str = "manifest.json";
/// A report's Markdown form.
pub const REPORT_MD: &str = "report.md";
/// A report's HTML form, with the plots inline.
pub const REPORT_HTML: &str = "report.html";
/// The plots of a report, as SVG files.
pub const PLOTS_DIR: &str = "plots";
/// An import's report, one line per file, for reading.
pub const IMPORT_REPORT_TXT: &str = "import-report.txt";
/// The same report as JSON, for tools.
pub const IMPORT_REPORT_JSON: &str = "import-report.json";
