//! What a run's faults are, for the user who has to act on them: one list of buckets (one per
//! bug) across the lattice nodes, `--cores` clients and machines of a run (`bucket_list`), a
//! reduced reproducer per bucket and flaky ones marked (`reduction`), and each bucket as a
//! ready regression test (`test_export`). `bonsai faults`, the report, `bonsai export` and
//! the end of every run read the list from here.

mod bucket_list;
mod reduction;
mod test_export;

pub use bucket_list::{FaultBucket, FaultList, Reproducer, gather, gather_runs, shorten_paths};
pub use reduction::{CrashReduced, DEFAULT_CRASH_TESTS, Triaged, reduce_buckets, reduce_run};
pub use test_export::{ExportedTests, export_tests};
