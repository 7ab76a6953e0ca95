//! A node's output directory as a killed campaign may leave it.

use std::path::Path;

use crate::corpus::{DIRECTORIES, MANIFEST};
use crate::diagnostic::Diagnostic;

/// `bonsai fuzz` creates its output directory and subdirectories before it writes
/// `fuzz.json`, and refuses, as a safety measure, a non-empty directory without one. A campaign
/// killed in between leaves exactly that: empty `queue/`, `crashes/`, `hangs/` and perhaps a
/// half-written temporary file. Nothing can have been saved there yet, so that skeleton is
/// removed before the node starts again; anything else is left alone and reported.
pub fn clear_unstarted(dir: &Path) -> Result<(), Diagnostic> {
    if !dir.is_dir() || dir.join(MANIFEST).is_file() {
        return Ok(());
    }
    let listing = std::fs::read_dir(dir)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(dir))?;
    let mut removable = Vec::new();
    for entry in listing.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let empty_subdir = DIRECTORIES.contains(&name.as_str())
            && std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
        let temporary = crate::fs_util::is_temporary(&name);
        if !(empty_subdir || temporary) {
            return Err(Diagnostic::error(format!(
                "the node directory holds '{name}' but no {MANIFEST}; it is not a fuzzing output this campaign started. Move it away and resume"
            ))
            .in_file(dir));
        }
        removable.push((path, empty_subdir));
    }
    for (path, is_dir) in removable {
        let removed = if is_dir {
            std::fs::remove_dir(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| Diagnostic::error(format!("cannot remove: {e}")).in_file(&path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_only_an_unstarted_skeleton() {
        let dir = tempfile::tempdir().unwrap();
        let node = dir.path().join("m1-n1-d1-r");
        for sub in DIRECTORIES {
            std::fs::create_dir_all(node.join(sub)).unwrap();
        }
        std::fs::write(node.join(".fuzz.json.tmp123"), "{").unwrap();
        clear_unstarted(&node).unwrap();
        assert_eq!(std::fs::read_dir(&node).unwrap().count(), 0);

        std::fs::create_dir_all(node.join("queue")).unwrap();
        std::fs::write(node.join("queue/000000.txt"), "x").unwrap();
        let refused = clear_unstarted(&node).unwrap_err();
        assert!(refused.message.contains("'queue'"), "{refused}");
        assert!(node.join("queue/000000.txt").exists());

        std::fs::write(node.join(MANIFEST), "{}").unwrap();
        clear_unstarted(&node).unwrap();
        assert!(node.join("queue/000000.txt").exists());
    }
}
