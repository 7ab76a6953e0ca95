//! A child process that dies with its parent, and the one way Bonsai starts one.
//!
//! Bonsai's processes form a tree: a campaign starts nodes, a node's supervisor forks its
//! fuzzing process, a coordinator starts clients. A process whose parent is gone has nobody to
//! restart it, read its summary or stop it, and it would go on writing into an output
//! directory that a resumed run is writing into too. Linux ends such orphans when asked
//! (`PR_SET_PDEATHSIG`); the ask is made in the child, and a parent that died before it was
//! made would be missed, so the child also checks that its parent is still the one it had.
//! Campaign nodes and a multi-core run's clients are started by [`spawn_logged`]; a
//! supervisor's fuzzing process, which LibAFL forks without `exec`, calls [`die_with`].

use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::diagnostic::Diagnostic;

/// Starts `program` with `args` as a child that dies with this process. Nobody reads what a
/// background child prints as it runs: its standard input and output are closed and its
/// standard error (warnings, status lines, the error it stopped on) is appended to `log`,
/// where the parent points the user. `what` names the child in an error.
pub fn spawn_logged(
    program: &Path,
    args: &[&OsStr],
    log: &Path,
    what: &str,
) -> Result<Child, Diagnostic> {
    let log_file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| Diagnostic::error(format!("cannot open: {e}")).in_file(log))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file);
    die_with_parent(&mut command);
    command
        .spawn()
        .map_err(|e| Diagnostic::error(format!("cannot start {what}: {e}")).in_file(program))
}

/// Makes the process `command` starts receive SIGTERM when this process dies.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: only async-signal-safe calls between fork and exec, no memory of the parent.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

/// In a forked child (no exec): receive SIGTERM when `parent` dies, and end now if it already
/// has.
#[cfg(target_os = "linux")]
pub fn die_with(parent: u32) {
    // SAFETY: plain system calls without memory arguments.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        if libc::getppid() as u32 != parent {
            libc::_exit(1);
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub fn die_with(_parent: u32) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};

    const INTERMEDIATE: &str = "BONSAI_PARENT_DEATH_INTERMEDIATE";

    /// Not a test of its own: the parent that dies (does nothing when run directly). It starts
    /// a long sleep that should die with it, prints its pid and exits.
    #[test]
    fn intermediate() {
        if std::env::var_os(INTERMEDIATE).is_none() {
            return;
        }
        let log = std::env::temp_dir().join(format!("bonsai-sleep-{}.log", std::process::id()));
        let child = spawn_logged(Path::new("sleep"), &[OsStr::new("60")], &log, "sleep").unwrap();
        let _ = std::fs::remove_file(&log);
        println!("PID {}", child.id());
        std::process::exit(0);
    }

    /// A process whose parent exits is gone soon after, not left sleeping for a minute.
    #[test]
    fn a_started_child_dies_when_its_parent_does() {
        let mut parent = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_process::tests::intermediate",
                "--nocapture",
            ])
            .env(INTERMEDIATE, "1")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = BufReader::new(parent.stdout.take().unwrap())
            .lines()
            .map_while(Result::ok)
            .find_map(|line| line.strip_prefix("PID ").map(str::to_string))
            .expect("the intermediate prints its child's pid");
        parent.wait().unwrap();
        let alive = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "))
        };
        let start = Instant::now();
        while alive() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(), "sleep {pid} outlived its parent by 10 s");
    }
}
