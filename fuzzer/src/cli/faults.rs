//! `bonsai faults DIR`: the run's faults, one bucket per bug, across its nodes, clients and
//! machines; `--export-tests OUT` turns each into a regression test.

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use clap::Args;

use super::Failure;
use crate::diagnostic::Diagnostic;
use crate::triage::{FaultBucket, FaultList, export_tests, gather_runs, shorten_paths};

#[derive(Args)]
pub struct FaultsArgs {
    /// Fuzzing outputs or campaign directories; several (machines fuzzing together) make one list.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Print the list as one JSON object.
    #[arg(long)]
    json: bool,
    /// Write each bucket's minimal reproducer into OUT/, and with --call one #[test] per
    /// reproducer.
    #[arg(long, value_name = "OUT")]
    export_tests: Option<PathBuf>,
    /// The function the tests call on a reproducer (`my_crate::check`, taking the input as &str).
    #[arg(long, value_name = "PATH", requires = "export_tests")]
    call: Option<String>,
    /// The fuzzing timeout: a hang's test fails after ten times it (at least ten seconds).
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
}

pub fn run(args: FaultsArgs) -> Result<(), Failure> {
    let list = gather_runs(&args.dirs)?;
    let shown = args
        .dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    for problem in &list.problems {
        eprintln!("{problem}");
    }
    if args.json {
        let json = serde_json::json!({
            "dirs": args.dirs,
            "executions": list.executions,
            "buckets": list.buckets.iter().map(bucket_json).collect::<Vec<_>>(),
            "problems": list.problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
        });
        println!("{json}");
    } else {
        print!("{}", listing(&list, &shown));
    }
    if let Some(out) = &args.export_tests {
        let timeout = Duration::from_millis(args.timeout_ms.max(1));
        let exported = export_tests(&list, out, args.call.as_deref(), timeout)?;
        match &exported.file {
            Some(file) => eprintln!(
                "wrote {} reproducers to {} and {} ({} tests)",
                exported.written.len(),
                out.join(crate::layout::FAULT_TESTS_DIR).display(),
                file.display(),
                exported.tests
            ),
            None => eprintln!(
                "wrote {} reproducers to {}; with --call PATH (the function to test, as \
                 `cargo bonsai init --call` names it) also a Rust test per reproducer",
                exported.written.len(),
                out.join(crate::layout::FAULT_TESTS_DIR).display()
            ),
        }
    }
    if list.problems.is_empty() {
        Ok(())
    } else {
        Err(Diagnostic::error(format!(
            "{} problems with the run's files (above); the files are left as they are",
            list.problems.len()
        ))
        .into())
    }
}

/// The text form: a header, then each bucket as a short block.
fn listing(list: &FaultList, dirs: &str) -> String {
    let mut out = format!(
        "{} faults in {dirs} ({} faulting executions), one per bug:\n",
        list.buckets.len(),
        list.executions
    );
    let start = list
        .buckets
        .iter()
        .map(|b| b.first_seen)
        .fold(f64::INFINITY, f64::min);
    for (i, bucket) in list.buckets.iter().enumerate() {
        let (reproducer, size) = bucket.reproducer();
        out.push_str(&format!(
            "\n#{} {} {}{}\n   hit {} times by {}; first {}, last {}\n   reproducer {} ({} bytes{})\n   message: {}\n",
            i + 1,
            bucket.kind,
            bucket.short_location(),
            if bucket.flaky { " [flaky: did not fault again when rerun]" } else { "" },
            bucket.count,
            bucket.seen_by.join(", "),
            utc(bucket.first_seen),
            if start.is_finite() {
                format!("{:.0} s after the first fault", bucket.last_seen - start)
            } else {
                utc(bucket.last_seen)
            },
            reproducer.display(),
            size,
            if reproducer != bucket.entry {
                format!("; saved input {} bytes", bucket.size)
            } else {
                String::new()
            },
            first_line(&bucket.message),
        ));
        for (k, frame) in bucket.frames.iter().enumerate() {
            let lead = if k == 0 { "   stack: " } else { "          " };
            out.push_str(&format!("{lead}{}\n", shorten_paths(frame)));
        }
    }
    out
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

/// A Unix time as UTC, to the second.
fn utc(secs: f64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs_f64(secs.max(0.0)))
        .to_string()
}

fn bucket_json(bucket: &FaultBucket) -> serde_json::Value {
    let mut value = serde_json::to_value(bucket).expect("plain data serializes");
    let (reproducer, size) = bucket.reproducer();
    value["reproducer"] = serde_json::json!(reproducer);
    value["reproducer_size"] = serde_json::json!(size);
    value["first_seen_utc"] = serde_json::json!(utc(bucket.first_seen));
    value["last_seen_utc"] = serde_json::json!(utc(bucket.last_seen));
    value
}
