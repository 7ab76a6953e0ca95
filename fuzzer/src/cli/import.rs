//! `bonsai import`: turn a directory of text seeds into a corpus of choice sequences.
//!
//! Every file under the directory is accounted for in `import-report.txt` and
//! `import-report.json`: accepted (with the corpus entry it became and whether its text
//! survived byte for byte, up to layout, or with renamed pool words), rejected (with the
//! located parse error) or unreadable. A corpus entry is `NNNNNN.txt`, the text its choices
//! replay to, next to `NNNNNN.choices`, the format `bonsai generate --save-choices` writes.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::Failure;
use super::load::load_grammar;
use super::seed::read_seed;
use crate::diagnostic::Diagnostic;
use crate::parse::with_large_stack;
use crate::parse::{ParseOptions, Parser};

#[derive(Args)]
pub struct ImportArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// Directory of seed files (read recursively, in path order).
    dir: PathBuf,
    /// The corpus directory to create; it must not exist or be empty.
    #[arg(long, value_name = "CORPUS")]
    out: PathBuf,
    /// Accept identifiers that are not values of their pool, renamed consistently to unused
    /// values. This changes the seed's text; the report lists every renaming.
    #[arg(long)]
    rename_pools: bool,
}

#[derive(Serialize)]
struct Report {
    grammar: String,
    seeds: String,
    accepted: usize,
    rejected: usize,
    unreadable: usize,
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
    /// The located error of a rejected or unreadable file.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct RenameReport {
    pool: String,
    from: String,
    to: String,
}

pub fn run(args: ImportArgs) -> Result<(), Failure> {
    let (grammar, _analysis) = load_grammar(&args.grammar)?;
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    let skip = args.out.canonicalize().ok();
    walk(
        &args.dir,
        skip.as_deref(),
        &mut files,
        &mut unreadable,
        true,
    )?;
    prepare_corpus(&args.out)?;

    let options = ParseOptions {
        rename_pools: args.rename_pools,
    };
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
                        let base = args.out.join(&entry);
                        crate::write_atomic(&base.with_extension("txt"), seed.text.as_bytes())?;
                        seed.saved.write(&base.with_extension("choices"))?;
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
                            error: None,
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
        files: reports,
    };
    let json = serde_json::to_string_pretty(&report).expect("reports serialize");
    crate::write_atomic(&args.out.join("import-report.json"), json.as_bytes())?;
    crate::write_atomic(
        &args.out.join("import-report.txt"),
        text_report(&report).as_bytes(),
    )?;
    for file in &report.files {
        if let Some(error) = &file.error {
            eprintln!("{error}");
        }
    }
    let summary = format!(
        "imported {} of {} seeds into {} ({} rejected, {} unreadable); report in {}",
        report.accepted,
        report.files.len(),
        args.out.display(),
        report.rejected,
        report.unreadable,
        args.out.join("import-report.txt").display()
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
        error: Some(error),
    }
}

/// Regular files under `dir`, sorted by path. An unreadable subdirectory is reported, not
/// skipped; an unreadable top directory is an error.
fn walk(
    dir: &Path,
    skip: Option<&Path>,
    files: &mut Vec<PathBuf>,
    unreadable: &mut Vec<FileReport>,
    top: bool,
) -> Result<(), Diagnostic> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if top => {
            return Err(
                Diagnostic::error(format!("cannot read the seed directory: {e}")).in_file(dir),
            );
        }
        Err(e) => {
            unreadable.push(failed(
                dir,
                "unreadable",
                format!("cannot read directory: {e}"),
            ));
            return Ok(());
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if skip.is_some_and(|s| path.canonicalize().is_ok_and(|p| p == s)) {
            continue;
        }
        if path.is_dir() {
            walk(&path, skip, files, unreadable, false)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

/// Creates the corpus directory; refuses one that already holds files, so that an import
/// never overwrites or mixes with an existing corpus.
fn prepare_corpus(out: &Path) -> Result<(), Diagnostic> {
    if let Ok(mut entries) = std::fs::read_dir(out)
        && entries.next().is_some()
    {
        return Err(Diagnostic::error(
            "the corpus directory is not empty; import into a new directory",
        )
        .in_file(out));
    }
    crate::create_dir(out)
}

fn text_report(report: &Report) -> String {
    let mut out = format!(
        "# bonsai import of {} with {}: {} accepted, {} rejected, {} unreadable\n",
        report.seeds, report.grammar, report.accepted, report.rejected, report.unreadable
    );
    for file in &report.files {
        match (&file.entry, &file.error) {
            (Some(entry), _) => {
                out.push_str(&format!(
                    "{}: accepted as {entry} ({}, bounds {})",
                    file.path,
                    file.text.unwrap_or("exact"),
                    file.bounds.as_deref().unwrap_or("?")
                ));
                for r in &file.renames {
                    out.push_str(&format!("; {} {} -> {}", r.pool, r.from, r.to));
                }
                out.push('\n');
            }
            (None, Some(error)) => out.push_str(&format!("{error} [{}]\n", file.status)),
            (None, None) => out.push_str(&format!("{}: {}\n", file.path, file.status)),
        }
    }
    out
}
