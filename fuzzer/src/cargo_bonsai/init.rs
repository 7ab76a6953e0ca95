//! `cargo bonsai init`: the harness crate `bonsai/` in a user's crate or workspace, as
//! `cargo fuzz init` makes `fuzz/`: a crate of its own workspace (the user's builds never
//! build it, and its profiles are its own) with `target_main!` in `src/main.rs`, the grammar
//! beside it, and `[package.metadata.bonsai]` for the other subcommands.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::harness::{HARNESS_DIR, cargo_metadata};
use crate::diagnostic::Diagnostic;

/// Where the harness's grammar comes from.
#[derive(Clone, Debug)]
pub enum GrammarSource {
    /// A grammar file in any format Bonsai reads (native EBNF, ANTLR4, tree-sitter JSON,
    /// fuzzingbook JSON), copied.
    File(PathBuf),
    /// The `src/grammar.json` a tree-sitter grammar crate ships, from a dependency of the
    /// user's workspace.
    TreeSitterCrate(String),
    /// A starter grammar to write by hand.
    Starter,
}

/// How the harness depends on the engine.
#[derive(Clone, Debug)]
pub enum Engine {
    /// `bonsai = { path = ... }`.
    Path(PathBuf),
    /// `bonsai = { git = ..., rev = ... }`.
    Git { url: String, rev: Option<String> },
}

/// What `cargo bonsai init` was asked for.
#[derive(Clone, Debug)]
pub struct InitOptions {
    /// The user's crate or workspace (a directory with Cargo.toml).
    pub root: PathBuf,
    /// The package to fuzz; by default the one at `root`, or the only member with a library.
    pub package: Option<String>,
    /// The target's name; by default the package's library crate name.
    pub name: Option<String>,
    pub grammar: GrammarSource,
    pub engine: Engine,
    /// A function `fn(&str) -> Result<_, E: Display>` of the user's crate for the harness to
    /// call; without it the harness has a marked place to call the crate from.
    pub call: Option<String>,
    /// The oracles the harness checks `call`'s answers with.
    pub oracles: Oracles,
    /// Crates to instrument besides the workspace's members (`instrument = [...]`).
    pub instrument: Vec<String>,
    /// Link the Nautilus baseline (`bonsai-baseline`) for `baseline-nautilus`.
    pub baseline: bool,
}

/// Functions of the user's crate that check `call`'s answers (`bonsai::target::round_trip`,
/// `bonsai::target::differential`).
#[derive(Clone, Debug, Default)]
pub struct Oracles {
    /// `fn(&str) -> Result<String, E: Display>`: prints what the parser read.
    pub roundtrip: Option<String>,
    /// A second implementation with `call`'s signature.
    pub differential: Option<String>,
}

/// Writes `root/bonsai/`; returns its path. Nothing is written when anything is wrong.
pub fn init(options: &InitOptions) -> Result<PathBuf, Diagnostic> {
    let manifest = options.root.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(Diagnostic::error(
            "no Cargo.toml here: run `cargo bonsai init` in your crate or workspace",
        )
        .in_file(&options.root));
    }
    if options.call.is_none()
        && let Some(flag) = (options.oracles.roundtrip.as_ref().map(|_| "--roundtrip")).or(options
            .oracles
            .differential
            .as_ref()
            .map(|_| "--differential"))
    {
        return Err(Diagnostic::error(format!(
            "{flag} checks the answers of the function --call names: give --call too"
        )));
    }
    let dir = options.root.join(HARNESS_DIR);
    if crate::has_entries(&dir) || dir.is_file() {
        return Err(Diagnostic::error("already exists; remove it to start again").in_file(&dir));
    }
    let metadata = cargo_metadata(&manifest, false)?;
    let (package, lib) = fuzzed_package(&metadata, &options.root, options.package.as_deref())?;
    let package_name = package["name"].as_str().unwrap_or_default().to_string();
    let package_dir = Path::new(package["manifest_path"].as_str().unwrap_or_default())
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = options.name.clone().unwrap_or_else(|| lib.clone());
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(Diagnostic::error(format!(
            "target name '{name}': use lowercase letters, digits and '_' (it names bonsai-{name})"
        )));
    }
    let (grammar_text, grammar_file) = grammar(&options.grammar, &manifest)?;
    // The grammar must load before anything is written: where it is, so that the grammars it
    // reads (an ANTLR parser grammar's lexer) are found, and they are copied beside it.
    let at = match &options.grammar {
        GrammarSource::File(path) => path.clone(),
        _ => dir.join(&grammar_file),
    };
    let check = crate::diagnostic::SourceFile::new(at.clone(), grammar_text.clone());
    let first_error = |d: crate::diagnostic::Diagnostics| {
        d.0.into_iter()
            .find(|d| d.is_error())
            .unwrap_or_else(|| Diagnostic::error("the grammar does not load"))
    };
    let imported = crate::import::from_source(&check).map_err(first_error)?;
    let companions = match imported.format {
        crate::import::Format::Antlr => {
            crate::import::antlr_companion_files(&check).map_err(first_error)?
        }
        _ => Vec::new(),
    };
    // A tree-sitter grammar's declaration of its external tokens (it loaded with the grammar
    // above) goes with it, under the name the copied grammar looks for: without it the
    // harness would read another language.
    let declaration = Some(crate::import::external_declaration_path(&at))
        .filter(|path| imported.format == crate::import::Format::TreeSitter && path.is_file());

    let relative_package = relative_path(&package_dir, &dir);
    let cargo_toml = cargo_toml(&Manifest {
        name: &name,
        package: &package_name,
        package_path: &relative_package,
        grammar: &grammar_file,
        engine: &options.engine,
        call: options.call.as_deref(),
        instrument: &options.instrument,
        baseline: options.baseline,
    });
    let main_rs = main_rs(
        &name,
        &lib,
        options.call.as_deref(),
        &options.oracles,
        options.baseline,
    );
    crate::create_dir(&dir.join("src"))?;
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text)
            .map_err(|e| Diagnostic::error(format!("cannot write: {e}")).in_file(&path))
    };
    write(dir.join("Cargo.toml"), &cargo_toml)?;
    write(dir.join("src").join("main.rs"), &main_rs)?;
    write(dir.join(&grammar_file), &grammar_text)?;
    for companion in &companions {
        let name = companion.file_name().map(PathBuf::from).unwrap_or_default();
        std::fs::copy(companion, dir.join(&name)).map_err(|e| {
            Diagnostic::error(format!("cannot copy the grammar it reads: {e}")).in_file(companion)
        })?;
    }
    if let Some(declaration) = &declaration {
        let to = crate::import::external_declaration_path(&dir.join(&grammar_file));
        std::fs::copy(declaration, &to).map_err(|e| {
            Diagnostic::error(format!(
                "cannot copy the declaration of external tokens: {e}"
            ))
            .in_file(declaration)
        })?;
    }
    write(dir.join(".gitignore"), "/target/\n/out/\n")?;
    // The engine's own lock file, when it is at hand: the harness then builds the LibAFL
    // and dependency versions the engine was tested with (cargo adds what else it needs).
    if let Engine::Path(engine) = &options.engine
        && let Some(lock) = engine.parent().map(|p| p.join("Cargo.lock"))
        && lock.is_file()
    {
        std::fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| {
            Diagnostic::error(format!("cannot copy the engine's Cargo.lock: {e}")).in_file(&lock)
        })?;
    }
    Ok(dir)
}

/// What `cargo bonsai init` says when it made `dir`: the next step, which is editing the
/// harness only where it does not call the user's crate yet.
pub fn created_message(dir: &Path, calls: bool) -> String {
    if calls {
        format!(
            "created {}: its src/main.rs calls your function; next `cargo bonsai build --release`",
            dir.display()
        )
    } else {
        format!(
            "created {}: edit src/main.rs to call your crate, then `cargo bonsai build --release`",
            dir.display()
        )
    }
}

/// The package to fuzz and its library's crate name.
fn fuzzed_package(
    metadata: &Value,
    root: &Path,
    wanted: Option<&str>,
) -> Result<(Value, String), Diagnostic> {
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .map(|m| m.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let lib_of = |package: &Value| {
        package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|t| {
                let kinds = t["kind"].as_array()?;
                kinds
                    .iter()
                    .any(|k| matches!(k.as_str(), Some("lib" | "rlib")))
                    .then(|| t["name"].as_str().unwrap_or_default().replace('-', "_"))
            })
    };
    let with_lib: Vec<(Value, String)> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| members.contains(&p["id"].as_str().unwrap_or_default()))
        .filter_map(|p| lib_of(p).map(|lib| (p.clone(), lib)))
        .collect();
    let names = || {
        with_lib
            .iter()
            .map(|(p, _)| p["name"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(wanted) = wanted {
        return with_lib
            .iter()
            .find(|(p, _)| p["name"] == wanted)
            .cloned()
            .ok_or_else(|| {
                Diagnostic::error(format!(
                    "no library package '{wanted}' in this workspace (libraries: {})",
                    names()
                ))
            });
    }
    let here = root.join("Cargo.toml");
    let at_root = with_lib
        .iter()
        .find(|(p, _)| p["manifest_path"].as_str().map(Path::new) == Some(here.as_path()));
    match (at_root, with_lib.as_slice()) {
        (Some(found), _) | (None, [found]) => Ok(found.clone()),
        (None, []) => Err(Diagnostic::error(
            "no library crate in this workspace to fuzz: the harness calls your compiler as a library",
        )
        .in_file(&here)),
        (None, _) => Err(Diagnostic::error(format!(
            "several library packages ({}): choose one with --package",
            names()
        ))
        .in_file(&here)),
    }
}

/// The grammar's text and its file name in the harness.
fn grammar(source: &GrammarSource, manifest: &Path) -> Result<(String, PathBuf), Diagnostic> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(path))
    };
    match source {
        GrammarSource::File(path) => {
            let name = path
                .file_name()
                .map(PathBuf::from)
                .ok_or_else(|| Diagnostic::error("not a file").in_file(path))?;
            Ok((read(path)?, name))
        }
        GrammarSource::TreeSitterCrate(krate) => {
            let metadata = cargo_metadata(manifest, true)?;
            let package = metadata["packages"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|p| p["name"] == krate.as_str())
                .ok_or_else(|| {
                    Diagnostic::error(format!(
                        "'{krate}' is not among this workspace's dependencies: add it (a \
                         dev-dependency will do) so that cargo fetches it, or pass --grammar \
                         with its grammar.json"
                    ))
                    .in_file(manifest)
                })?;
            let json = Path::new(package["manifest_path"].as_str().unwrap_or_default())
                .with_file_name("src")
                .join("grammar.json");
            if !json.is_file() {
                return Err(Diagnostic::error(format!(
                    "'{krate}' ships no src/grammar.json: is it a tree-sitter grammar crate?"
                ))
                .in_file(&json));
            }
            Ok((read(&json)?, PathBuf::from(format!("{krate}.grammar.json"))))
        }
        GrammarSource::Starter => Ok((STARTER_GRAMMAR.to_string(), PathBuf::from("grammar.ebnf"))),
    }
}

const STARTER_GRAMMAR: &str = "\
# The language your crate reads, in Bonsai's EBNF (see grammars/README.md in Bonsai's
# repository). Replace this toy with your language; `bonsai grammar check` reads it.
%layout auto;

program = stmt* ;
stmt    = \"print\" expr \";\" ;
expr    = INT | expr \"+\" expr | \"(\" expr \")\" ;
INT     = /0|[1-9][0-9]{0,2}/ ;
";

/// What the harness's Cargo.toml says.
struct Manifest<'a> {
    name: &'a str,
    package: &'a str,
    package_path: &'a str,
    grammar: &'a Path,
    engine: &'a Engine,
    call: Option<&'a str>,
    instrument: &'a [String],
    baseline: bool,
}

fn cargo_toml(manifest: &Manifest<'_>) -> String {
    let &Manifest {
        name,
        package,
        package_path,
        grammar,
        engine,
        call,
        instrument,
        baseline,
    } = manifest;
    // The baseline crate lives beside the engine's in its repository.
    let baseline = match (baseline, engine) {
        (false, _) => String::new(),
        (true, Engine::Path(path)) => format!(
            "bonsai-baseline = {{ path = {} }}\n",
            toml_string(&path.join("baseline").display().to_string())
        ),
        (true, Engine::Git { url, rev: None }) => {
            format!("bonsai-baseline = {{ git = {} }}\n", toml_string(url))
        }
        (
            true,
            Engine::Git {
                url,
                rev: Some(rev),
            },
        ) => format!(
            "bonsai-baseline = {{ git = {}, rev = {} }}\n",
            toml_string(url),
            toml_string(rev)
        ),
    };
    let instrument: Vec<String> = instrument.iter().map(|c| toml_string(c)).collect();
    let engine = match engine {
        Engine::Path(path) => format!(
            "bonsai = {{ path = {} }}",
            toml_string(&path.display().to_string())
        ),
        Engine::Git { url, rev: None } => format!("bonsai = {{ git = {} }}", toml_string(url)),
        Engine::Git {
            url,
            rev: Some(rev),
        } => format!(
            "bonsai = {{ git = {}, rev = {} }}",
            toml_string(url),
            toml_string(rev)
        ),
    };
    format!(
        "# The Bonsai harness of {package}, made by `cargo bonsai init`. Build it with
# `cargo bonsai build --release`, which instruments your workspace's crates and nothing else.
[package]
name = \"bonsai-target-{dashed}\"
version = \"0.0.0\"
edition = \"2024\"
publish = false

[[bin]]
name = \"bonsai-{name}\"
path = \"src/main.rs\"

[dependencies]
{engine}
{baseline}{package} = {{ path = {package_path} }}

[package.metadata.bonsai]
# `cargo bonsai fuzz` runs bonsai-{name} with this grammar unless --grammar says otherwise.
target = \"{name}\"
grammar = {grammar}
{call}# Crates to instrument besides your workspace's members (such as a parser dependency),
# and \"-name\" for a member to leave out. Crate names as rustc sees them.
instrument = [{instrument}]

# A workspace of its own, as cargo-fuzz's fuzz/: your workspace does not build the harness.
[workspace]
members = [\".\"]

# Line tables give crash frames their file and line.
[profile.dev]
debug = \"line-tables-only\"

[profile.release]
debug = \"line-tables-only\"
",
        dashed = name.replace('_', "-"),
        package_path = toml_string(package_path),
        instrument = instrument.join(", "),
        grammar = toml_string(&grammar.display().to_string()),
        call = match call {
            Some(call) => format!(
                "# The function the harness calls: `cargo bonsai faults --export-tests` writes \
                 tests that call it.\ncall = {}\n",
                toml_string(call)
            ),
            None => String::new(),
        },
    )
}

fn main_rs(name: &str, lib: &str, call: Option<&str>, oracles: &Oracles, baseline: bool) -> String {
    let body = match call {
        Some(function) => format!(
            "        // {function} takes the text and returns Ok, or Err with a message.
        verdict_of(&{function}(source))"
        ),
        None => format!(
            "        // Call {lib} here: Verdict::Valid if it accepts `source`, Verdict::Invalid(message)
        // if it refuses it (start the message with the stage, `parse:`, `type:`, for
        // `bonsai validity`). A panic, a crash or a hang is a finding: do not catch it.
        let _ = source;
        Verdict::Valid"
        ),
    };
    // The differential first: it is one call, and an input that breaks both is the other
    // implementation's to explain before the printer's.
    let mut checks = String::new();
    if let Some(other) = &oracles.differential {
        checks.push_str(&format!(
            "        // Differential: {other} agrees on accept or reject, and where both accept, on the
        // answer (when its type has PartialEq and Debug; other answers are not compared).
        let theirs = {other}(source);
        if let Some(violation) = differential((\"{call}\", verdict), (\"{other}\", &verdict_of(&theirs))) {{
            return Some(violation);
        }}
        // Past the accept-or-reject check, both sides accept or both refuse; {call} runs
        // again for its answer only where {other} accepted.
        if let Ok(theirs) = &theirs
            && let Ok(ours) = &{call}(source)
        {{
            let comparison = bonsai::compare_answers!(ours, theirs);
            if let Some(violation) = different_answers(\"{call}\", \"{other}\", comparison) {{
                return Some(violation);
            }}
        }}
",
            call = call.unwrap_or_default()
        ));
    }
    if let Some(print) = &oracles.roundtrip {
        checks.push_str(&format!(
            "        // Round trip: the print of an accepted input is accepted, and printing it again
        // gives it back.
        let print = |text: &str| {print}(text);
        let accept = |text: &str| verdict_of(&{call}(text));
        if let Some(violation) = round_trip(source, verdict, print, accept) {{
            return Some(violation);
        }}
",
            call = call.unwrap_or_default()
        ));
    }
    let check = if checks.is_empty() {
        String::new()
    } else {
        format!(
            "
    /// The oracles: a violation is saved as a fault of its own kind (`roundtrip`,
    /// `differential`), and fuzzing goes on.
    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {{
        let Ok(source) = std::str::from_utf8(input) else {{
            return None;
        }};
{checks}        None
    }}
"
        )
    };
    let mut imports = vec!["Target", "Verdict"];
    if oracles.roundtrip.is_some() {
        imports.push("round_trip");
    }
    if oracles.differential.is_some() {
        imports.push("differential");
        imports.push("different_answers");
    }
    if !checks.is_empty() {
        imports.push("Violation");
    }
    imports.sort_unstable();
    let verdict_of = if call.is_some() {
        "
/// A function's answer as a verdict: Ok is valid, Err is refused with its message.
fn verdict_of<T, E: std::fmt::Display>(answer: &Result<T, E>) -> Verdict {
    match answer {
        Ok(_) => Verdict::Valid,
        Err(error) => Verdict::Invalid(error.to_string()),
    }
}
"
    } else {
        ""
    };
    format!(
        "//! The Bonsai target `{name}`: the fuzzer's whole command line with {lib} linked in.

use bonsai::target::{{{imports}}};
{link}
#[derive(Default)]
struct Harness;

impl Target for Harness {{
    fn run(&mut self, input: &[u8]) -> Verdict {{
        let Ok(source) = std::str::from_utf8(input) else {{
            return Verdict::Reject;
        }};
{body}
    }}
{check}}}
{verdict_of}
bonsai::target_main!(\"{name}\", Harness{extra});
",
        imports = imports.join(", "),
        extra = if baseline {
            ", bonsai_baseline::NAUTILUS"
        } else {
            ""
        },
        link = if call.is_some() {
            String::new()
        } else {
            format!("use {lib} as _;\n")
        },
    )
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// `to` relative to `from` when both are absolute paths, else `to` as it is.
fn relative_path(to: &Path, from: &Path) -> String {
    let (to, from) = (
        std::path::absolute(to).unwrap_or_else(|_| to.to_path_buf()),
        std::path::absolute(from).unwrap_or_else(|_| from.to_path_buf()),
    );
    let common = to
        .components()
        .zip(from.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in from.components().skip(common) {
        relative.push("..");
    }
    for part in to.components().skip(common) {
        relative.push(part);
    }
    relative.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_relative_to_the_harness() {
        assert_eq!(
            relative_path(Path::new("/a/b"), Path::new("/a/b/bonsai")),
            ".."
        );
        assert_eq!(
            relative_path(Path::new("/a/crates/x"), Path::new("/a/bonsai")),
            "../crates/x"
        );
    }

    #[test]
    fn the_harness_calls_the_named_function_or_leaves_a_marked_place() {
        let none = Oracles::default();
        let called = main_rs("lang", "my_lang", Some("my_lang::check"), &none, false);
        assert!(
            called.contains("verdict_of(&my_lang::check(source))"),
            "{called}"
        );
        assert!(
            !called.contains("fn check("),
            "no oracle asked for: {called}"
        );
        assert!(called.contains("bonsai::target_main!(\"lang\", Harness);"));
        let open = main_rs("lang", "my_lang", None, &none, false);
        assert!(open.contains("use my_lang as _;") && open.contains("Call my_lang here"));
    }

    /// Issue 31: the parser a wrapper crate calls is instrumented when named, and the Nautilus
    /// baseline is linked when asked for, from beside the engine.
    #[test]
    fn instrumented_crates_and_the_baseline_are_written_when_asked_for() {
        let engine = Engine::Path(PathBuf::from("/e/fuzzer"));
        let manifest = |engine, instrument, baseline| Manifest {
            name: "lang",
            package: "c",
            package_path: "..",
            grammar: Path::new("g.ebnf"),
            engine,
            call: None,
            instrument,
            baseline,
        };
        let plain = cargo_toml(&manifest(&engine, &[], false));
        assert!(plain.contains("instrument = []") && !plain.contains("bonsai-baseline"));
        let crates = ["sqlparser".to_string(), "c_core".to_string()];
        let toml = cargo_toml(&manifest(&engine, &crates, true));
        assert!(
            toml.contains(r#"instrument = ["sqlparser", "c_core"]"#),
            "{toml}"
        );
        assert!(
            toml.contains(r#"bonsai-baseline = { path = "/e/fuzzer/baseline" }"#),
            "{toml}"
        );
        let git = Engine::Git {
            url: "https://x/b".into(),
            rev: Some("abc".into()),
        };
        let toml = cargo_toml(&manifest(&git, &[], true));
        assert!(toml.contains(r#"bonsai-baseline = { git = "https://x/b", rev = "abc" }"#));
        let main = main_rs(
            "lang",
            "my_lang",
            Some("my_lang::check"),
            &Oracles::default(),
            true,
        );
        assert!(
            main.contains("bonsai::target_main!(\"lang\", Harness, bonsai_baseline::NAUTILUS);")
        );
    }

    /// Issue 32: the oracles asked for are checked in `Target::check`, each naming the
    /// functions it compares; an oracle without `--call` is refused before anything is written.
    #[test]
    fn the_harness_checks_the_oracles_asked_for() {
        let both = Oracles {
            roundtrip: Some("my_lang::print".into()),
            differential: Some("my_lang::other".into()),
        };
        let main = main_rs("lang", "my_lang", Some("my_lang::check"), &both, false);
        assert!(
            main.contains(
                "use bonsai::target::{Target, Verdict, Violation, different_answers, differential, round_trip};"
            ),
            "{main}"
        );
        assert!(main.contains("let print = |text: &str| my_lang::print(text);"));
        assert!(main.contains("let accept = |text: &str| verdict_of(&my_lang::check(text));"));
        assert!(main.contains("let theirs = my_lang::other(source);"));
        assert!(main.contains(
            "differential((\"my_lang::check\", verdict), (\"my_lang::other\", &verdict_of(&theirs)))"
        ));
        assert!(
            main.contains(
                "if let Ok(theirs) = &theirs\n            && let Ok(ours) = &my_lang::check(source)"
            ),
            "{main}"
        );
        assert!(
            main.contains("different_answers(\"my_lang::check\", \"my_lang::other\", comparison)")
        );
        let only_print = Oracles {
            roundtrip: Some("my_lang::print".into()),
            differential: None,
        };
        let main = main_rs(
            "lang",
            "my_lang",
            Some("my_lang::check"),
            &only_print,
            false,
        );
        assert!(!main.contains("differential(("), "{main}");

        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        let grammars = user_crate(root);
        std::fs::write(grammars.join("g.ebnf"), "start = \"a\" ;\n").unwrap();
        let mut options = file_options(root, &grammars.join("g.ebnf"));
        options.call = None;
        options.oracles = only_print;
        let refused = init(&options).unwrap_err();
        assert!(
            refused.message.contains("--roundtrip") && refused.message.contains("--call"),
            "{}",
            refused.message
        );
        assert!(!root.join(HARNESS_DIR).exists(), "nothing written");
    }

    #[test]
    fn the_message_asks_for_an_edit_only_where_the_harness_calls_nothing_yet() {
        let dir = Path::new("c/bonsai");
        assert!(!created_message(dir, true).contains("edit"));
        assert!(created_message(dir, true).contains("calls your function"));
        assert!(created_message(dir, false).contains("edit src/main.rs"));
    }

    /// A user's crate `c` with `c::check` at `root`; returns its (empty) `grammars/`.
    fn user_crate(root: &Path) -> PathBuf {
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn check(_: &str) {}\n").unwrap();
        let grammars = root.join("grammars");
        std::fs::create_dir_all(&grammars).unwrap();
        grammars
    }

    /// `init` of [`user_crate`] with the grammar file at `grammar`, calling `c::check`.
    fn file_options(root: &Path, grammar: &Path) -> InitOptions {
        InitOptions {
            root: root.to_path_buf(),
            package: None,
            name: None,
            grammar: GrammarSource::File(grammar.to_path_buf()),
            engine: Engine::Path(PathBuf::from("/nonexistent/bonsai")),
            call: Some("c::check".into()),
            oracles: Oracles::default(),
            instrument: Vec::new(),
            baseline: false,
        }
    }

    /// Issue 31: a parser grammar split from its lexer (`tokenVocab`), as most of grammars-v4
    /// is, is copied with its lexer, and a missing lexer is named at the line that names it.
    #[test]
    fn a_split_antlr_grammar_travels_with_its_lexer() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        let grammars = user_crate(root);
        std::fs::write(
            grammars.join("TParser.g4"),
            "parser grammar TParser;\noptions { tokenVocab = TLexer; }\nstart : WORD+ EOF ;\n",
        )
        .unwrap();
        let missing = init(&file_options(root, &grammars.join("TParser.g4"))).unwrap_err();
        assert!(missing.message.contains("TLexer.g4"), "{}", missing.message);
        assert!(
            missing
                .message
                .contains("`tokenVocab = TLexer` names the lexer grammar"),
            "{}",
            missing.message
        );
        assert!(!root.join(HARNESS_DIR).exists(), "nothing written");

        std::fs::write(
            grammars.join("TLexer.g4"),
            "lexer grammar TLexer;\nWORD : [a-z]+ ;\nWS : [ \\t\\n]+ -> skip ;\n",
        )
        .unwrap();
        let dir = init(&file_options(root, &grammars.join("TParser.g4"))).unwrap();
        assert!(dir.join("TParser.g4").is_file() && dir.join("TLexer.g4").is_file());
        let copied = crate::import::load(&dir.join("TParser.g4")).unwrap();
        assert_eq!(copied.format, crate::import::Format::Antlr);
    }

    /// Issue 31: a tree-sitter grammar's declaration of its externals is copied beside it, so
    /// that the harness reads the language the user declared.
    #[test]
    fn a_tree_sitter_grammar_travels_with_its_declared_externals() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        let grammars = user_crate(root);
        std::fs::write(
            grammars.join("grammar.json"),
            r#"{"name": "t", "rules": {"file": {"type": "SEQ", "members": [
  {"type": "STRING", "value": "x"}, {"type": "SYMBOL", "name": "heredoc"}]}},
  "externals": [{"type": "SYMBOL", "name": "heredoc"}]}"#,
        )
        .unwrap();
        std::fs::write(
            grammars.join("grammar.externals.ebnf"),
            "heredoc = \"<<EOF\" ;\n",
        )
        .unwrap();
        let dir = init(&file_options(root, &grammars.join("grammar.json"))).unwrap();
        let copied = crate::import::load(&dir.join("grammar.json")).unwrap();
        assert!(
            copied.unread_externals.is_empty(),
            "the declaration came along"
        );
        assert!(
            crate::parse::Parser::new(&copied.grammar)
                .parse("x <<EOF")
                .is_ok()
        );
    }

    #[test]
    fn the_starter_grammar_loads() {
        let source = crate::diagnostic::SourceFile::new("grammar.ebnf", STARTER_GRAMMAR);
        crate::import::from_source(&source).unwrap_or_else(|e| panic!("{e}"));
    }
}
