//! `bonsai import`: turn a directory of text seeds into a corpus of choice sequences.
//!
//! Every file under the directory is accounted for in `import-report.txt` and
//! `import-report.json`: accepted (with the corpus entry it became and whether its text
//! survived byte for byte, up to layout, or with renamed pool words), rejected (with the
//! located parse error), unreadable, or skipped (not a regular file, or a second path to a
//! file or directory already read). A corpus entry is `NNNNNN.txt`, the text its choices
//! replay to, next to `NNNNNN.choices`, the format `bonsai generate --save-choices` writes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::Failure;
use super::load::load_imported;
use super::seed::{PoolWordsArg, own_words_note, read_seed};
use crate::corpus::{Durability, EntryContent, IMPORT_REPORT_JSON, IMPORT_REPORT_TXT, StoredEntry};
use crate::diagnostic::Diagnostic;
use crate::parse::Parser;
use crate::parse::with_large_stack;

#[derive(Args)]
pub struct ImportArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// Directory of seed files (read recursively, in path order).
    dir: PathBuf,
    /// The corpus directory to create; it must not exist or be empty.
    #[arg(long, value_name = "CORPUS")]
    out: PathBuf,
    /// What to do with identifiers that are not pool values.
    #[arg(long, value_enum, default_value = "keep", value_name = "HOW")]
    pool_words: PoolWordsArg,
    /// The same as `--pool-words rename`.
    #[arg(long, conflicts_with = "pool_words")]
    rename_pools: bool,
}

#[derive(Serialize)]
struct Report {
    grammar: String,
    seeds: String,
    accepted: usize,
    rejected: usize,
    unreadable: usize,
    skipped: usize,
    /// External tokens of the grammar that nothing reads: a seed refused where one of them
    /// belongs is let in by declaring it (`GRAMMAR.externals.ebnf`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unread_externals: Vec<String>,
    files: Vec<FileReport>,
}

#[derive(Serialize)]
struct FileReport {
    path: String,
    status: &'static str,
    /// The corpus entry (`NNNNNN`) an accepted seed became.
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<String>,
    /// exact, layout differs, or pool words renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bounds: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    renames: Vec<RenameReport>,
    /// How many of the seed's identifiers are its own words, not pool values (kept, so the
    /// text is unchanged).
    #[serde(skip_serializing_if = "is_zero")]
    own_words: usize,
    /// The located error of a rejected or unreadable file.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// Why a skipped path was not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

#[derive(Serialize)]
struct RenameReport {
    pool: String,
    from: String,
    to: String,
}

pub fn run(args: ImportArgs) -> Result<(), Failure> {
    let (grammar, _analysis, unread_externals) = load_imported(&args.grammar)?;
    let skip = args.out.canonicalize().ok();
    let mut walk = Walk {
        skip: skip.as_deref(),
        files: Vec::new(),
        reports: Vec::new(),
        seen: HashMap::new(),
    };
    walk.dir(&args.dir, true)?;
    let Walk {
        files,
        reports: unreadable,
        ..
    } = walk;
    prepare_corpus(&args.out)?;

    let options = args.pool_words.options(args.rename_pools);
    let mut reports = with_large_stack(|| -> Result<Vec<FileReport>, Diagnostic> {
        let parser = Parser::new(&grammar);
        let mut reports = Vec::new();
        let mut next_entry = 0;
        for path in &files {
            let report = match std::fs::read(path) {
                Err(e) => failed(path, "unreadable", format!("cannot read: {e}")),
                Ok(bytes) => match read_seed(&parser, &bytes, options) {
                    Err(e) => {
                        let located = e.diagnostic(path, &String::from_utf8_lossy(&bytes));
                        failed(path, "rejected", located.to_string())
                    }
                    Ok(seed) => {
                        let entry = format!("{next_entry:06}");
                        next_entry += 1;
                        let choices = seed.saved.to_bytes();
                        let content = EntryContent {
                            choices: Some(&choices),
                            text: seed.text.as_bytes(),
                            meta: None,
                        };
                        StoredEntry::named(&args.out, &entry)
                            .write_all(content, Durability::Synced)?;
                        FileReport {
                            path: path.display().to_string(),
                            status: "accepted",
                            entry: Some(entry),
                            text: Some(seed.fidelity.describe()),
                            bounds: Some(seed.saved.bounds.to_string()),
                            renames: seed
                                .renames
                                .iter()
                                .map(|r| RenameReport {
                                    pool: grammar.pools[r.pool.index()].name.clone(),
                                    from: r.from.clone(),
                                    to: r.to.clone(),
                                })
                                .collect(),
                            own_words: seed.saved.words.len(),
                            error: None,
                            why: None,
                        }
                    }
                },
            };
            reports.push(report);
        }
        Ok(reports)
    })?;
    reports.extend(unreadable);
    reports.sort_by(|a, b| a.path.cmp(&b.path));

    let count = |status: &str| reports.iter().filter(|r| r.status == status).count();
    let report = Report {
        grammar: args.grammar.display().to_string(),
        seeds: args.dir.display().to_string(),
        accepted: count("accepted"),
        rejected: count("rejected"),
        unreadable: count("unreadable"),
        skipped: count("skipped"),
        unread_externals,
        files: reports,
    };
    let json = serde_json::to_string_pretty(&report).expect("reports serialize");
    crate::write_atomic(&args.out.join(IMPORT_REPORT_JSON), json.as_bytes())?;
    crate::write_atomic(
        &args.out.join(IMPORT_REPORT_TXT),
        text_report(&report).as_bytes(),
    )?;
    for file in &report.files {
        if let Some(error) = &file.error {
            eprintln!("{error}");
        }
    }
    let summary = format!(
        "imported {} of {} seeds into {} ({} rejected, {} unreadable, {} skipped); report in {}",
        report.accepted,
        report.files.len(),
        args.out.display(),
        report.rejected,
        report.unreadable,
        report.skipped,
        args.out.join(IMPORT_REPORT_TXT).display()
    );
    if report.unreadable > 0 {
        Err(Failure::Usage(Diagnostic::error(summary).into()))
    } else if report.rejected > 0 {
        Err(Failure::Negative(summary))
    } else {
        println!("{summary}");
        Ok(())
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn failed(path: &Path, status: &'static str, error: String) -> FileReport {
    let error = if error.starts_with(&path.display().to_string()) {
        error
    } else {
        format!("{}: error: {error}", path.display())
    };
    FileReport {
        path: path.display().to_string(),
        status,
        entry: None,
        text: None,
        bounds: None,
        renames: Vec::new(),
        own_words: 0,
        error: Some(error),
        why: None,
    }
}

/// The seed files under a directory, each once.
///
/// Symbolic links are followed (a seed directory of links to test suites is common), so a
/// link to an ancestor would walk forever and two links to one file would import it twice:
/// every file and directory is taken once, by its first path in path order, and later paths
/// to it are listed as skipped. Only regular files are read: opening a FIFO blocks until
/// someone writes to it, and a device may never end.
struct Walk<'a> {
    /// The corpus being written, when it lies inside the seed directory.
    skip: Option<&'a Path>,
    files: Vec<PathBuf>,
    /// Unreadable directories and links, and skipped paths.
    reports: Vec<FileReport>,
    /// Canonical path of every file and directory taken, and the path it was taken by.
    seen: HashMap<PathBuf, PathBuf>,
}

impl Walk<'_> {
    /// Walks `dir`, sorted by path. An unreadable subdirectory is reported, not skipped; an
    /// unreadable top directory is an error.
    fn dir(&mut self, dir: &Path, top: bool) -> Result<(), Diagnostic> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if top => {
                return Err(
                    Diagnostic::error(format!("cannot read the seed directory: {e}")).in_file(dir),
                );
            }
            Err(e) => {
                self.reports.push(failed(
                    dir,
                    "unreadable",
                    format!("cannot read directory: {e}"),
                ));
                return Ok(());
            }
        };
        if top && let Ok(canonical) = dir.canonicalize() {
            self.seen.insert(canonical, dir.to_path_buf());
        }
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let canonical = path.canonicalize();
            if self
                .skip
                .is_some_and(|s| canonical.as_ref().is_ok_and(|p| p == s))
            {
                continue;
            }
            let (Ok(canonical), Ok(metadata)) = (canonical, std::fs::metadata(&path)) else {
                // A dangling link: reading it says why.
                self.files.push(path);
                continue;
            };
            if let Some(first) = self.seen.get(&canonical) {
                let why = format!("the same file as {}", first.display());
                self.reports.push(skipped(&path, why));
                continue;
            }
            let kind = metadata.file_type();
            if !kind.is_dir() && !kind.is_file() {
                self.reports.push(skipped(
                    &path,
                    format!("not a regular file ({})", describe(kind)),
                ));
                continue;
            }
            self.seen.insert(canonical, path.clone());
            if kind.is_dir() {
                self.dir(&path, false)?;
            } else {
                self.files.push(path);
            }
        }
        Ok(())
    }
}

fn describe(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "neither a file nor a directory"
    }
}

fn skipped(path: &Path, why: String) -> FileReport {
    FileReport {
        path: path.display().to_string(),
        status: "skipped",
        entry: None,
        text: None,
        bounds: None,
        renames: Vec::new(),
        own_words: 0,
        error: None,
        why: Some(why),
    }
}

/// Creates the corpus directory; refuses one that already holds files, so that an import
/// never overwrites or mixes with an existing corpus.
fn prepare_corpus(out: &Path) -> Result<(), Diagnostic> {
    if crate::fs_util::has_entries(out) {
        return Err(Diagnostic::error(
            "the corpus directory is not empty; import into a new directory",
        )
        .in_file(out));
    }
    crate::create_dir(out)
}

fn text_report(report: &Report) -> String {
    let mut out = format!(
        "# bonsai import of {} with {}: {} accepted, {} rejected, {} unreadable, {} skipped\n",
        report.seeds,
        report.grammar,
        report.accepted,
        report.rejected,
        report.unreadable,
        report.skipped
    );
    if !report.unread_externals.is_empty() {
        out.push_str(&format!(
            "# external tokens without a reading (declare them in {}): {}\n",
            crate::import::external_declaration_path(Path::new(&report.grammar)).display(),
            report.unread_externals.join(", ")
        ));
    }
    for file in &report.files {
        match (&file.entry, &file.error) {
            (Some(entry), _) => {
                out.push_str(&format!(
                    "{}: accepted as {entry} ({}, bounds {})",
                    file.path,
                    file.text.unwrap_or("exact"),
                    file.bounds.as_deref().unwrap_or("?")
                ));
                if file.own_words > 0 {
                    out.push_str(&own_words_note("; ", file.own_words));
                }
                for r in &file.renames {
                    out.push_str(&format!("; {} {} -> {}", r.pool, r.from, r.to));
                }
                out.push('\n');
            }
            (None, Some(error)) => out.push_str(&format!("{error} [{}]\n", file.status)),
            (None, None) => match &file.why {
                Some(why) => out.push_str(&format!("{}: {} ({why})\n", file.path, file.status)),
                None => out.push_str(&format!("{}: {}\n", file.path, file.status)),
            },
        }
    }
    out
}
