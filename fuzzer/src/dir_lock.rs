//! One writer per output directory at a time.

use std::fs::{File, TryLockError};
use std::path::Path;

use crate::diagnostic::Diagnostic;

/// An exclusive lock on a directory, held for the life of the value.
///
/// The lock is the kernel's (`flock`) on the directory itself, for two reasons: the kernel
/// drops it when the last process holding it ends, however it ends, so a `kill -9` never
/// leaves a stale lock that blocks a resume; and locking the directory writes nothing into
/// it, so a directory that is refused for another reason (a foreign one, a campaign's node
/// that never started) stays exactly as it was. Processes forked from the holder (LibAFL's
/// fuzzing process, forked runs of the target) share the lock until they end, which is what
/// keeps a resumed run out while an orphaned fuzzing process is still writing.
pub struct DirLock {
    _dir: File,
}

impl DirLock {
    /// Locks `dir`, which must exist. `holder` names the command that holds such locks
    /// (`bonsai fuzz`), for the message a second one gets.
    pub fn acquire(dir: &Path, holder: &str) -> Result<DirLock, Diagnostic> {
        let file = File::open(dir)
            .map_err(|e| Diagnostic::error(format!("cannot open: {e}")).in_file(dir))?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { _dir: file }),
            Err(TryLockError::WouldBlock) => Err(Diagnostic::error(format!(
                "another `{holder}` is writing into this directory; wait for it to end or stop it first \
                 (two runs on one directory would overwrite each other's entries)"
            ))
            .in_file(dir)),
            Err(TryLockError::Error(e)) => {
                Err(Diagnostic::error(format!("cannot lock: {e}")).in_file(dir))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path(), "bonsai fuzz").unwrap();
        let refused = DirLock::acquire(dir.path(), "bonsai fuzz")
            .err()
            .expect("the directory is locked");
        assert!(
            refused.message.contains("another `bonsai fuzz`"),
            "{refused}"
        );
        assert_eq!(refused.path.as_deref(), Some(dir.path()));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "locking writes nothing"
        );
        drop(first);
        DirLock::acquire(dir.path(), "bonsai fuzz").unwrap();
    }
}
