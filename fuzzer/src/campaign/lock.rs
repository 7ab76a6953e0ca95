//! One campaign per directory at a time.

use std::fs::File;
use std::path::Path;

use crate::diagnostic::Diagnostic;

pub const LOCK_FILE: &str = "campaign.lock";

/// Held for the campaign's lifetime; the kernel releases it when the process ends however it
/// ends, so a `kill -9` never leaves a stale lock behind.
pub struct DirLock {
    _file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> Result<DirLock, Diagnostic> {
        let path = dir.join(LOCK_FILE);
        let file = File::create(&path)
            .map_err(|e| Diagnostic::error(format!("cannot create: {e}")).in_file(&path))?;
        file.try_lock().map_err(|_| {
            Diagnostic::error(
                "another `bonsai campaign` is running in this directory; wait for it or stop it first",
            )
            .in_file(dir)
        })?;
        Ok(DirLock { _file: file })
    }
}
