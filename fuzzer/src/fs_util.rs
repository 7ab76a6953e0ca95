//! File writing that never leaves a torn file behind.

use std::io::Write;
use std::path::Path;

use crate::diagnostic::Diagnostic;

/// Writes `bytes` to a sibling temporary file, syncs it and renames it over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Diagnostic> {
    write_through_rename(path, bytes, true)
}

/// Like [`write_atomic`] without the sync: readers and a process killed at any point still see
/// either no file or the whole file, but an operating-system crash may lose the newest files.
/// For the fuzzing queue, which gains thousands of entries in a campaign's first minutes and
/// where a sync per file would cost more than the executions.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), Diagnostic> {
    write_through_rename(path, bytes, false)
}

fn write_through_rename(path: &Path, bytes: &[u8], sync: bool) -> Result<(), Diagnostic> {
    let fail = |e: std::io::Error| Diagnostic::error(format!("cannot write: {e}")).in_file(path);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let mut file = std::fs::File::create(&tmp).map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    if sync {
        file.sync_all().map_err(fail)?;
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

/// Creates a directory (and parents), with a located message when that is impossible.
pub fn create_dir(path: &Path) -> Result<(), Diagnostic> {
    std::fs::create_dir_all(path)
        .map_err(|e| Diagnostic::error(format!("cannot create directory: {e}")).in_file(path))
}
