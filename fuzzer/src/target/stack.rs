//! The stack the target runs on: as large as a user's main thread, everywhere.
//!
//! Why: a stack overflow is found at the depth where a user would hit it only if the target
//! has the stack a user's program has. In the fuzzing loop the target runs on the main thread
//! of the fuzzing process, whose stack the kernel grows up to the soft `RLIMIT_STACK`
//! (`ulimit -s`, 8 MB on most systems, unlimited on some); a forked run (replay, reduction,
//! triage) runs it on a thread of its own. Both take their size from here, so that the loop,
//! the triage after it and a later `replay` agree on which inputs overflow.

use crate::diagnostic::Diagnostic;

/// A main thread's stack on most Linux systems (`ulimit -s` 8192).
pub const DEFAULT_TARGET_STACK: usize = 8 << 20;

/// Carries `--stack` from a fuzzing process to the forked runs it starts and the client
/// processes of a `--cores` run.
const STACK_ENV: &str = "BONSAI_TARGET_STACK";

/// The kernel places the memory mappings at least this far below the main thread's stack,
/// whatever the limit was when the process started, so a limit raised after the start holds
/// up to here; a larger one needs a process started under it.
const GROWTH_WITHOUT_EXEC: usize = 128 << 20;

/// Set by the process that re-executed itself under a larger limit, so that its new image
/// does not do it again.
const EXECUTED_ENV: &str = "BONSAI_STACK_EXECUTED";

/// The stack size targets run on in this process: `--stack` of the fuzzing run that started
/// it, or [`DEFAULT_TARGET_STACK`].
pub fn target_stack() -> usize {
    std::env::var(STACK_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&size: &usize| size >= 64 << 10)
        .unwrap_or(DEFAULT_TARGET_STACK)
}

/// Gives the main thread (where the loop runs the target) a stack of `size` bytes and makes
/// it the size of every forked run of this process and its children. Call it first, before
/// any other thread exists. A size above [`GROWTH_WITHOUT_EXEC`] re-executes the process
/// under the new limit (the call then does not return).
pub fn set_target_stack(size: usize) -> Result<(), Diagnostic> {
    if size < 64 << 10 {
        return Err(Diagnostic::error(format!(
            "--stack {size} is too small: a target needs at least 64K"
        )));
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return Err(Diagnostic::error(format!(
            "cannot read the stack limit: {}",
            std::io::Error::last_os_error()
        )));
    }
    let wanted = size as libc::rlim_t;
    if limit.rlim_max != libc::RLIM_INFINITY && wanted > limit.rlim_max {
        return Err(Diagnostic::error(format!(
            "--stack {size} is above this system's hard stack limit of {} bytes (ulimit -Hs)",
            limit.rlim_max
        )));
    }
    let before = limit.rlim_cur;
    limit.rlim_cur = wanted;
    // SAFETY: setrlimit reads the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_STACK, &limit) } != 0 {
        return Err(Diagnostic::error(format!(
            "cannot set the stack limit to {size} bytes: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: called at the start of the command, before any thread is spawned, as the
    // function's contract says; nothing reads the environment concurrently.
    unsafe { std::env::set_var(STACK_ENV, size.to_string()) };
    let grows_past_start = before != libc::RLIM_INFINITY && wanted > before;
    if grows_past_start && size > GROWTH_WITHOUT_EXEC && std::env::var_os(EXECUTED_ENV).is_none() {
        // SAFETY: as above.
        unsafe { std::env::set_var(EXECUTED_ENV, "1") };
        let exe = std::env::current_exe().map_err(|e| {
            Diagnostic::error(format!(
                "cannot find this program to restart it under --stack {size}: {e}"
            ))
        })?;
        let error = std::os::unix::process::CommandExt::exec(
            std::process::Command::new(exe).args(std::env::args_os().skip(1)),
        );
        return Err(Diagnostic::error(format!(
            "cannot restart this program under --stack {size}: {error}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_stack_is_refused_with_the_flag_named() {
        let error = set_target_stack(1024).unwrap_err().to_string();
        assert!(
            error.contains("--stack") && error.contains("64K"),
            "{error}"
        );
    }
}
