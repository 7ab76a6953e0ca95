//! `bonsai faults --export-tests OUT`: each bucket a ready regression test. The minimal
//! reproducers go to `OUT/bonsai_faults/`, one file per bucket, and `OUT/bonsai_faults.rs`
//! holds one `#[test]` per reproducer there that runs the user's `--call` function on it.
//! Dropped into a crate's `tests/`, each test fails while its bug is there and passes once it
//! is fixed; reproducers of earlier exports stay, and keep their tests.
//!
//! A wrong answer (`roundtrip`, `differential`) has its reproducer written but no test: the
//! `--call` function alone accepts it, so its test would pass while the bug is there; the
//! oracles that saw it run in the harness (`bonsai replay` shows it).
//!
//! Each test runs its reproducer in a child process (the test binary itself, asked to run only
//! that test), so that a stack overflow or an abort fails that test, not the whole binary, and
//! a hang fails it after a time limit instead of blocking the suite.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::bucket_list::FaultList;
use crate::diagnostic::Diagnostic;
use crate::layout::{FAULT_TESTS_DIR, FAULT_TESTS_RS};

/// The first line of a file this module writes: one without it is the user's, and never
/// overwritten.
const HEADER: &str = "//! Regression tests written by `bonsai faults --export-tests`";

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportedTests {
    /// Reproducers written now.
    pub written: Vec<PathBuf>,
    /// Tests in the file: the reproducers of this export and of earlier ones.
    pub tests: usize,
    /// The test file, when a function to call was given.
    pub file: Option<PathBuf>,
}

/// Writes the reproducers of `list` into `out`, and the test file when `call` names the
/// function the tests run (`crate::path::function`, taking `&str`, as `cargo bonsai init
/// --call`). A hang's test fails after ten times `timeout`, at least ten seconds: tests run
/// unoptimized builds.
pub fn export_tests(
    list: &FaultList,
    out: &Path,
    call: Option<&str>,
    timeout: Duration,
) -> Result<ExportedTests, Diagnostic> {
    let dir = out.join(FAULT_TESTS_DIR);
    crate::create_dir(&dir)?;
    let file = out.join(FAULT_TESTS_RS);
    if let Ok(existing) = std::fs::read_to_string(&file)
        && !existing.starts_with(HEADER)
    {
        return Err(Diagnostic::error(
            "not a file `bonsai faults --export-tests` wrote; it is left alone (choose another OUT, \
             or move it)",
        )
        .in_file(&file));
    }
    let mut exported = ExportedTests::default();
    let mut described = BTreeMap::new();
    for bucket in &list.buckets {
        let (reproducer, size) = bucket.reproducer();
        let Ok(text) = std::fs::read(reproducer) else {
            continue;
        };
        let name = bucket.name();
        let path = dir.join(format!("{name}.txt"));
        crate::write_atomic(&path, &text)?;
        exported.written.push(path);
        described.insert(
            name,
            format!(
                "{} {}{}; hit {} times; reproducer of {size} bytes.",
                bucket.kind,
                bucket.short_location(),
                if bucket.flaky { " (flaky)" } else { "" },
                bucket.count
            ),
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| Diagnostic::error(format!("cannot list: {e}")).in_file(&dir))?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_suffix(".txt")?.to_string();
            (is_test_name(&name) && !is_wrong_answer(&name)).then_some(name)
        })
        .collect();
    names.sort();
    exported.tests = names.len();
    let Some(call) = call else {
        return Ok(exported);
    };
    let limit = (timeout * 10).max(Duration::from_secs(10));
    let mut source = test_file_head(call, limit);
    for name in &names {
        let about = described
            .get(name)
            .cloned()
            .unwrap_or_else(|| "From an earlier export.".to_string());
        source.push_str(&format!(
            "\n/// {about}\n#[test]\nfn {name}() {{\n    run_isolated(\"{name}\", include_str!(\"{FAULT_TESTS_DIR}/{name}.txt\"));\n}}\n"
        ));
    }
    crate::write_atomic(&file, source.as_bytes())?;
    exported.file = Some(file);
    Ok(exported)
}

/// Whether a reproducer is a wrong answer's, which `--call` alone does not show.
fn is_wrong_answer(name: &str) -> bool {
    name.rsplit_once('_').is_some_and(|(kind, _)| {
        crate::fault::FaultKind::parse(kind).is_some_and(|k| k.is_wrong_answer())
    })
}

/// Whether a reproducer's file stem is one this module names (`kind_16hexdigits`), and so a
/// valid test name.
fn is_test_name(name: &str) -> bool {
    name.rsplit_once('_').is_some_and(|(kind, hex)| {
        hex.len() == 16
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
            && !kind.is_empty()
            && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
    })
}

fn test_file_head(call: &str, limit: Duration) -> String {
    format!(
        r#"{HEADER}: one test per fault Bonsai
//! found, each running `{call}` on the fault's minimal reproducer in `{FAULT_TESTS_DIR}/`. A test
//! fails while its bug is there and passes once it is fixed. Each reproducer runs in a child
//! process (this test binary, asked for that one test), so that a stack overflow or an abort
//! fails its test and not the whole binary, and a hang fails after {limit_secs} s. Written again
//! by every export; the reproducers of earlier exports stay, with their tests.

use std::process::{{Command, Stdio}};
use std::time::{{Duration, Instant}};

/// How long a reproducer may run: longer is the hang it was saved for.
const LIMIT: Duration = Duration::from_millis({limit_ms});
/// The stack it runs on: a main thread's.
const STACK: usize = 8 << 20;
/// Set in the child process to the one test it runs.
const CHILD: &str = "BONSAI_FAULT_TEST";

fn run_isolated(name: &str, input: &'static str) {{
    if std::env::var_os(CHILD).is_some_and(|test| test == name) {{
        let worker = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || {{
                let _ = {call}(input);
            }})
            .expect("a thread for the reproducer");
        std::process::exit(if worker.join().is_ok() {{ 0 }} else {{ 101 }});
    }}
    let test_binary = std::env::current_exe().expect("the test binary");
    let mut child = Command::new(test_binary)
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD, name)
        .stdout(Stdio::null())
        .spawn()
        .expect("the test binary starts");
    let started = Instant::now();
    loop {{
        if let Some(status) = child.try_wait().expect("the child is waited for") {{
            assert!(
                status.success(),
                "{{name}}: the reproducer still fails ({{status}}): {{input:?}}"
            );
            return;
        }}
        if started.elapsed() > LIMIT {{
            let _ = child.kill();
            let _ = child.wait();
            panic!("{{name}}: the reproducer still runs after {{LIMIT:?}}: {{input:?}}");
        }}
        std::thread::sleep(Duration::from_millis(10));
    }}
}}
"#,
        limit_secs = limit.as_secs(),
        limit_ms = limit.as_millis(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_this_module_writes_become_tests() {
        assert!(is_test_name("panic_0123456789abcdef"));
        assert!(is_test_name("stack_overflow_0123456789abcdef"));
        assert!(!is_test_name("notes"));
        assert!(!is_test_name("panic_0123"));
        assert!(!is_test_name("Panic_0123456789abcdef"));
    }

    /// Issue 32: `--call` alone accepts a wrong answer's reproducer, so a test of it could not
    /// fail.
    #[test]
    fn wrong_answers_get_no_test() {
        assert!(is_wrong_answer("roundtrip_0123456789abcdef"));
        assert!(is_wrong_answer("differential_0123456789abcdef"));
        assert!(!is_wrong_answer("panic_0123456789abcdef"));
        assert!(!is_wrong_answer("stack_overflow_0123456789abcdef"));
    }

    #[test]
    fn a_test_file_of_the_user_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FAULT_TESTS_RS), "fn mine() {}").unwrap();
        let refused = export_tests(
            &FaultList::default(),
            dir.path(),
            Some("c::check"),
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(refused.message.contains("left alone"), "{refused}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(FAULT_TESTS_RS)).unwrap(),
            "fn mine() {}"
        );
    }
}
