//! File writing that never leaves a torn file behind.

use std::io::Write;
use std::path::Path;

use crate::diagnostic::{Diagnostic, Location};

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
    put_in_place(path, bytes, sync, |tmp, path| std::fs::rename(tmp, path)).map(|_| ())
}

/// Writes `bytes` straight to `path`, with no temporary file: a process killed during the
/// write leaves a torn file. Only for files that another file, written atomically after
/// them, marks complete, and whose reader checks for that mark (an entry's `.meta`, see
/// `corpus::repair` in the engine): two system calls a file fewer than a rename.
pub fn write_in_place(path: &Path, bytes: &[u8]) -> Result<(), Diagnostic> {
    std::fs::File::create(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|e| Diagnostic::error(format!("cannot write: {e}")).in_file(path))
}

/// Writes `path` only if no file of that name exists, atomically as [`write_atomic`] does;
/// `Ok(false)` when one does. The clients of a multi-core run number their entries from one
/// directory: the link that puts the file in place fails for all but one of two clients
/// that picked the same number, so no entry is ever written over another's.
pub fn write_new(path: &Path, bytes: &[u8], sync: bool) -> Result<bool, Diagnostic> {
    put_in_place(path, bytes, sync, |tmp, path| {
        let linked = std::fs::hard_link(tmp, path);
        // The link (or its failure) leaves the temporary name behind either way.
        let _ = std::fs::remove_file(tmp);
        linked
    })
}

/// Writes `bytes` to a sibling temporary file (`.NAME.tmpPID`, synced if asked) and lets
/// `place` move it to `path`; `Ok(false)` when `place` finds `path` taken.
fn put_in_place(
    path: &Path,
    bytes: &[u8],
    sync: bool,
    place: impl FnOnce(&Path, &Path) -> std::io::Result<()>,
) -> Result<bool, Diagnostic> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        place(&tmp, path)
    });
    match written {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => {
            // A full disk fails the write, not the creation: the empty or partial temporary
            // file would otherwise stay, and take room, for good.
            let _ = std::fs::remove_file(&tmp);
            Err(Diagnostic::error(format!("cannot write: {e}")).in_file(path))
        }
    }
}

/// Creates the empty file `path` unless it exists: whether this call created it. Claims one
/// name among processes that share a directory (see `corpus::DiskCorpus::shared`).
pub fn claim(path: &Path) -> Result<bool, Diagnostic> {
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Diagnostic::error(format!("cannot create: {e}")).in_file(path)),
    }
}

/// Whether `name` is one of the temporary files [`write_atomic`] writes (`.NAME.tmpPID`).
/// One found in a directory that no process writes into any more was left by a process that
/// died (or met a full disk) between creating it and renaming it into place.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.')
        && name
            .rsplit_once(".tmp")
            .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Removes the temporary files of interrupted writes from `dir` (not its subdirectories);
/// the number removed. Only for a directory the caller holds the lock of: another writer's
/// temporary file is its write in progress.
pub fn remove_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| is_temporary(&e.file_name().to_string_lossy()))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Whether `dir` is a directory with at least one entry: the one test behind every "the
/// output directory is not empty" refusal, so that fuzz, campaign, import, export and
/// reduce-corpus agree on what an empty output directory is (a missing one is empty).
pub fn has_entries(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// Creates a directory (and parents), with a located message when that is impossible.
pub fn create_dir(path: &Path) -> Result<(), Diagnostic> {
    std::fs::create_dir_all(path)
        .map_err(|e| Diagnostic::error(format!("cannot create directory: {e}")).in_file(path))
}

/// Reads a JSON file, with the line and column of a syntax or schema error.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T, Diagnostic> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(path))?;
    serde_json::from_str(&text).map_err(|e| {
        let message = format!("not {what}: {e}");
        if e.line() == 0 {
            Diagnostic::error(message).in_file(path)
        } else {
            Diagnostic::error(message).at(Location {
                path: path.to_path_buf(),
                line: e.line(),
                column: e.column(),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_directory_with_something_in_it_has_entries() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_entries(&dir.path().join("missing")));
        assert!(!has_entries(dir.path()));
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert!(has_entries(dir.path()));
        assert!(!has_entries(&file), "a file is no directory with entries");
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(has_entries(dir.path()), "a subdirectory is an entry");
    }

    #[test]
    fn temporaries_are_recognised_and_removed_alone() {
        assert!(is_temporary(".fuzz.json.tmp123"));
        assert!(is_temporary(".000007.choices.tmp9"));
        assert!(!is_temporary("000007.choices"));
        assert!(!is_temporary(".hidden"));
        assert!(!is_temporary(".notes.tmpfile"));
        let dir = tempfile::tempdir().unwrap();
        for name in [".000001.txt.tmp42", "000001.txt", ".keep"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        assert_eq!(remove_temporaries(dir.path()), 1);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, vec![".keep", "000001.txt"]);
    }

    #[test]
    fn a_write_to_a_full_disk_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000007.meta");
        // The temporary file this process will write is made a way into /dev/full, where
        // every write fails with "no space left on device", as on a full disk.
        let tmp = dir
            .path()
            .join(format!(".000007.meta.tmp{}", std::process::id()));
        std::os::unix::fs::symlink("/dev/full", &tmp).unwrap();
        let error = write_atomic_unsynced(&path, b"size=1").unwrap_err();
        assert!(error.message.contains("No space left"), "{error}");
        assert_eq!(error.path.as_deref(), Some(path.as_path()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_write_in_place_replaces_the_file_and_leaves_no_other_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.txt");
        write_in_place(&path, b"first, longer").unwrap();
        write_in_place(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["000001.txt"]);
        let missing = dir.path().join("no-such-directory").join("x.txt");
        let error = write_in_place(&missing, b"x").unwrap_err();
        assert!(error.to_string().contains("no-such-directory"), "{error}");
    }
}
