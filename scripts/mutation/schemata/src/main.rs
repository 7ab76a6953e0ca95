//! `bonsai-schemata`: rewrites chosen files of a crate into mutant schemata (see the library
//! documentation) and writes a manifest of the mutants, for scripts/mutation-score.
//!
//! Sources are read from a pristine copy and written to the build copy, so that the same
//! command with a longer exclusion list regenerates the files from scratch. A file is only
//! written when its text changes, which keeps cargo from recompiling an unchanged crate.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bonsai_schemata::{Cfg, Mutant, Region, rewrite, runtime};
use serde::Serialize;

const USAGE: &str = "usage: bonsai-schemata --from DIR --to DIR --root FILE --first-id N \
--manifest OUT.json [--exclude IDS_FILE] [--features A,B] [--debug-assertions] FILE...
  DIR: a crate's source tree (read) and its copy (written); FILE: paths relative to it;
  --root: the crate root that receives crate::__bonsai_mutant (e.g. src/lib.rs)";

struct Args {
    from: PathBuf,
    to: PathBuf,
    root: String,
    first_id: u32,
    manifest: PathBuf,
    exclude: Option<PathBuf>,
    cfg: Cfg,
    files: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut from = None;
    let mut to = None;
    let mut root = None;
    let mut first_id = None;
    let mut manifest = None;
    let mut exclude = None;
    let mut cfg = Cfg::default();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--from" => from = Some(PathBuf::from(value("--from")?)),
            "--to" => to = Some(PathBuf::from(value("--to")?)),
            "--root" => root = Some(value("--root")?),
            "--first-id" => {
                let v = value("--first-id")?;
                first_id = Some(
                    v.parse::<u32>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or(format!("--first-id: not a positive number: {v}"))?,
                );
            }
            "--manifest" => manifest = Some(PathBuf::from(value("--manifest")?)),
            "--exclude" => exclude = Some(PathBuf::from(value("--exclude")?)),
            "--features" => {
                let v = value("--features")?;
                cfg.features = Some(
                    v.split(',')
                        .filter(|f| !f.is_empty())
                        .map(str::to_string)
                        .collect::<HashSet<_>>(),
                );
            }
            "--debug-assertions" => cfg.debug_assertions = true,
            "-h" | "--help" => return Err(String::new()),
            _ if arg.starts_with('-') => return Err(format!("unknown option: {arg}")),
            _ => files.push(arg),
        }
    }
    let missing = |name: &str| format!("{name} is required");
    Ok(Args {
        from: from.ok_or_else(|| missing("--from"))?,
        to: to.ok_or_else(|| missing("--to"))?,
        root: root.ok_or_else(|| missing("--root"))?,
        first_id: first_id.ok_or_else(|| missing("--first-id"))?,
        manifest: manifest.ok_or_else(|| missing("--manifest"))?,
        exclude,
        cfg,
        files,
    })
}

#[derive(Serialize)]
struct Manifest {
    first_id: u32,
    /// The last id given out; `first_id - 1` when the files hold no mutation point.
    last_id: u32,
    files: Vec<String>,
    excluded: Vec<u32>,
    mutants: Vec<Mutant>,
    /// Per rewritten file, where each mutant's code lies (see `Region`).
    regions: BTreeMap<String, Vec<Region>>,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

/// Writes only a changed text: an unchanged mtime keeps cargo's build of the crate.
fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

fn run(args: Args) -> Result<(), String> {
    let exclude: BTreeSet<u32> = match &args.exclude {
        Some(path) if path.exists() => read(path)?
            .split_whitespace()
            .map(|w| {
                w.parse::<u32>()
                    .map_err(|_| format!("{}: not a mutant id: {w}", path.display()))
            })
            .collect::<Result<_, _>>()?,
        _ => BTreeSet::new(),
    };
    let mut next = args.first_id;
    let mut mutants = Vec::new();
    let mut regions = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for file in &args.files {
        let source = read(&args.from.join(file))?;
        let rewritten = rewrite(&source, file, next, &exclude, &args.cfg)?;
        next += rewritten.mutants.len() as u32;
        mutants.extend(rewritten.mutants);
        regions.insert(file.clone(), rewritten.regions);
        texts.insert(file.clone(), rewritten.text);
    }
    let last = next - 1;
    let root = match texts.remove(&args.root) {
        Some(text) => text,
        None => read(&args.from.join(&args.root))?,
    };
    texts.insert(
        args.root.clone(),
        root + &runtime(args.first_id, last.max(args.first_id)),
    );
    for (file, text) in &texts {
        write_if_changed(&args.to.join(file), text)?;
    }
    let manifest = Manifest {
        first_id: args.first_id,
        last_id: last,
        files: args.files.clone(),
        excluded: exclude.into_iter().collect(),
        mutants,
        regions,
    };
    let json = serde_json::to_string(&manifest).map_err(|e| e.to_string())?;
    write_if_changed(&args.manifest, &json)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("bonsai-schemata: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bonsai-schemata: {message}");
            ExitCode::FAILURE
        }
    }
}
