//! `bonsai replay`: run a corpus through the target and show what each input covers.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use libafl_bolts::rands::StdRand;
use serde::Serialize;

use super::{Failure, LinkedTarget};
use crate::choice::{Replay, SavedChoices};
use crate::corpus::{MANIFEST, Manifest, input_directory};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::observer::EdgeObserver;
use crate::sampler::{Sample, Sampler};
use crate::target::{Verdict, require_instrumented};
use crate::text::render_into;

#[derive(Args)]
pub struct ReplayArgs {
    /// The target to run (runs the binary bonsai-TARGET).
    #[arg(long)]
    target: String,
    /// The grammar of the .choices files; read from DIR/fuzz.json for a fuzzing output.
    #[arg(long, value_name = "FILE")]
    grammar: Option<PathBuf>,
    /// Per-input timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// One JSON object per input and a total, instead of a table.
    #[arg(long)]
    json: bool,
    /// A queue directory, a crashes/ or hangs/ directory, or a fuzzing output (its queue).
    dir: PathBuf,
}

/// What one input did.
#[derive(Clone, Debug, Serialize)]
pub struct InputReport {
    pub name: String,
    /// `valid`, `invalid`, `reject`, `panic`, `crash`, `timeout`, or `error` (for an input
    /// that could not be replayed).
    pub verdict: String,
    /// The target's message, the panic message, or why the input could not be replayed.
    pub message: String,
    pub edges: usize,
    /// Edges no input before it in the listing covered.
    pub new_edges: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReplayTotal {
    pub inputs: usize,
    pub valid: usize,
    pub faults: usize,
    pub edges: usize,
}

/// Each input runs in a forked child: an input that aborts, overflows the stack or hangs is
/// reported as such, instead of ending the replay, and coverage cannot leak between inputs.
pub fn run(args: ReplayArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let Some(target) = linked.filter(|t| t.name == args.target) else {
        return Err(Diagnostic::error(format!(
            "target '{}' is not linked into this binary",
            args.target
        ))
        .into());
    };
    require_instrumented(target.name)?;
    if !args.dir.is_dir() {
        return Err(Diagnostic::error("not a directory")
            .in_file(&args.dir)
            .into());
    }
    let grammar_path = match &args.grammar {
        Some(path) => Some(path.clone()),
        None => manifest_grammar(&args.dir)?,
    };
    let grammar = grammar_path
        .as_deref()
        .map(Grammar::from_file)
        .transpose()?;
    let dir = input_directory(&args.dir);
    let inputs = list_inputs(&dir)?;
    if inputs
        .iter()
        .any(|p| p.extension().is_some_and(|e| e == "choices"))
        && grammar.is_none()
    {
        return Err(Diagnostic::error(
            "replaying .choices files needs the grammar: pass --grammar (or replay a fuzzing output, whose fuzz.json names it)",
        )
        .in_file(&args.dir)
        .into());
    }
    let timeout = Duration::from_millis(args.timeout_ms.max(1));
    let mut edges = EdgeObserver::from_registered_counters();
    let mut covered = HashSet::new();
    let mut reports = Vec::new();
    for path in &inputs {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = match input_text(path, grammar.as_ref()) {
            Ok(text) => text,
            Err(message) => {
                reports.push(InputReport {
                    name,
                    verdict: "error".into(),
                    message,
                    edges: 0,
                    new_edges: 0,
                });
                continue;
            }
        };
        let outcome = run_forked(target, &text, timeout, &mut edges);
        let new_edges = outcome.edges.iter().filter(|e| covered.insert(**e)).count();
        reports.push(InputReport {
            name,
            verdict: outcome.verdict,
            message: outcome.message,
            edges: outcome.edges.len(),
            new_edges,
        });
    }
    let total = ReplayTotal {
        inputs: reports.len(),
        valid: reports.iter().filter(|r| r.verdict == "valid").count(),
        faults: reports
            .iter()
            .filter(|r| matches!(r.verdict.as_str(), "panic" | "crash" | "timeout"))
            .count(),
        edges: covered.len(),
    };
    print_reports(&reports, &total, args.json)
}

fn manifest_grammar(dir: &Path) -> Result<Option<PathBuf>, Diagnostic> {
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(&path))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("not a Bonsai fuzzing manifest: {e}")).in_file(&path)
    })?;
    Ok(Some(manifest.grammar))
}

/// `.choices` files, and `.txt` files that have no `.choices` beside them, in name order.
fn list_inputs(dir: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Diagnostic::error(format!("cannot read directory: {e}")).in_file(dir))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| match p.extension().and_then(|e| e.to_str()) {
            Some("choices") => true,
            Some("txt") => !p.with_extension("choices").exists(),
            _ => false,
        })
        .collect();
    paths.sort();
    Ok(paths)
}

fn input_text(path: &Path, grammar: Option<&Grammar>) -> Result<String, String> {
    if path.extension().is_some_and(|e| e == "txt") {
        return std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"));
    }
    let grammar = grammar.ok_or("no grammar")?;
    let saved = SavedChoices::read(path).map_err(|d| d.message)?;
    if saved.grammar != grammar.fingerprint() {
        return Err("recorded with a different grammar".into());
    }
    let mut sampler = Sampler::new(grammar, saved.bounds).map_err(|d| d.message)?;
    let mut sample = Sample::default();
    sampler
        .sample(
            saved.choices.as_slice(),
            Replay::Strict,
            &mut StdRand::with_seed(0),
            &mut sample,
        )
        .map_err(|e| e.to_string())?;
    let mut text = String::new();
    render_into(grammar, &sample.tree, &mut text);
    Ok(text)
}

struct Outcome {
    verdict: String,
    message: String,
    edges: Vec<u32>,
}

/// Runs the target on `text` in a child process and reads back its verdict and edges.
fn run_forked(
    target: LinkedTarget,
    text: &str,
    timeout: Duration,
    edges: &mut EdgeObserver,
) -> Outcome {
    let mut fds = [0i32; 2];
    // SAFETY: plain POSIX calls; the child only runs the target, writes to the pipe and exits.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) != 0 {
            return Outcome {
                verdict: "error".into(),
                message: "cannot create a pipe".into(),
                edges: Vec::new(),
            };
        }
        let pid = libc::fork();
        if pid == 0 {
            libc::close(fds[0]);
            let budget = libc::itimerval {
                it_interval: libc::timeval {
                    tv_sec: 0,
                    tv_usec: 0,
                },
                it_value: libc::timeval {
                    tv_sec: timeout.as_secs() as libc::time_t,
                    tv_usec: libc::suseconds_t::from(timeout.subsec_micros() as i32),
                },
            };
            libc::setitimer(libc::ITIMER_REAL, &budget, std::ptr::null_mut());
            std::panic::set_hook(Box::new(|_| {}));
            let mut instance = (target.make)();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                instance.run(text.as_bytes())
            }));
            edges.harvest();
            let (verdict, message) = match result {
                Ok(Verdict::Valid) => ("valid", String::new()),
                Ok(Verdict::Invalid(m)) => ("invalid", m),
                Ok(Verdict::Reject) => ("reject", String::new()),
                Err(payload) => (
                    "panic",
                    payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_default(),
                ),
            };
            let hits: Vec<u32> = edges.edges().collect();
            let body = serde_json::json!({ "verdict": verdict, "message": message, "edges": hits })
                .to_string();
            let mut pipe = std::fs::File::from_raw_fd(fds[1]);
            let _ = pipe.write_all(body.as_bytes());
            drop(pipe);
            libc::_exit(0);
        }
        libc::close(fds[1]);
        let mut pipe = std::fs::File::from_raw_fd(fds[0]);
        let mut body = String::new();
        let _ = pipe.read_to_string(&mut body);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            let verdict = if signal == libc::SIGALRM {
                "timeout"
            } else {
                "crash"
            };
            return Outcome {
                verdict: verdict.into(),
                message: format!("signal {signal}"),
                edges: Vec::new(),
            };
        }
        let parsed: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        Outcome {
            verdict: parsed["verdict"].as_str().unwrap_or("error").to_string(),
            message: parsed["message"].as_str().unwrap_or_default().to_string(),
            edges: parsed["edges"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_u64())
                        .map(|v| v as u32)
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

fn print_reports(reports: &[InputReport], total: &ReplayTotal, json: bool) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let io = |e: std::io::Error| {
        Failure::from(Diagnostic::error(format!("cannot write to stdout: {e}")))
    };
    if json {
        for r in reports {
            writeln!(out, "{}", serde_json::to_string(r).expect("plain data")).map_err(io)?;
        }
        writeln!(out, "{}", serde_json::json!({ "total": total })).map_err(io)?;
    } else {
        for r in reports {
            let message = if r.message.is_empty() {
                String::new()
            } else {
                format!("  {}", r.message)
            };
            writeln!(
                out,
                "{:<16} {:<8} edges {:>6}  new {:>5}{message}",
                r.name, r.verdict, r.edges, r.new_edges
            )
            .map_err(io)?;
        }
        writeln!(
            out,
            "total: {} inputs ({} valid, {} faults), {} edges covered",
            total.inputs, total.valid, total.faults, total.edges
        )
        .map_err(io)?;
    }
    out.flush().map_err(io)
}
