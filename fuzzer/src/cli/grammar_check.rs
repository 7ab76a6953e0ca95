//! `bonsai grammar check FILE`

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use super::Failure;
use super::load::load_imported;
use crate::analysis::Analysis;
use crate::grammar::{Grammar, Separator, Terminal};

#[derive(Args)]
pub struct CheckArgs {
    /// The grammar file.
    file: PathBuf,
}

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let (grammar, analysis, unread) = load_imported(&args.file)?;
    let mut text =
        summary(&args.file, &grammar, &analysis).expect("writing to a String cannot fail");
    if !unread.is_empty() {
        // Named after the summary too, not only among the warnings: these are what a user
        // declares to let seeds that use them in.
        text.push_str(&format!(
            "  externals: {} without a reading ({}); declare them in {}\n",
            unread.len(),
            unread.join(", "),
            crate::import::external_declaration_path(&args.file).display()
        ));
    }
    // A reader that closed the pipe early (`| head`) has all it wanted.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

fn summary(file: &Path, grammar: &Grammar, analysis: &Analysis) -> Result<String, fmt::Error> {
    let groups = grammar.rules.len() - grammar.named_rules;
    let (mut literals, mut classes, mut pools, mut layout) = (0, 0, 0, 0);
    for t in &grammar.terminals {
        match t {
            Terminal::Literal(_) => literals += 1,
            Terminal::Class(_) => classes += 1,
            Terminal::Layout(_) => layout += 1,
            Terminal::Pool(_) => pools += 1,
        }
    }
    let lexical = grammar.rules[..grammar.named_rules]
        .iter()
        .filter(|r| r.lexical)
        .count();
    let start = grammar.start.index();
    let mut out = String::new();
    writeln!(out, "{}: ok", file.display())?;
    writeln!(
        out,
        "  rules:     {} named ({} lexical), {} groups",
        grammar.named_rules, lexical, groups
    )?;
    // A pool is a terminal: it is counted once, among the terminals, and only where it is used.
    writeln!(
        out,
        "  symbols:   {} ({} rules, {} terminals)",
        grammar.named_rules + grammar.terminals.len(),
        grammar.named_rules,
        grammar.terminals.len()
    )?;
    writeln!(
        out,
        "  terminals: {literals} literals, {classes} classes, {pools} pools, {layout} layout tokens"
    )?;
    for pool in &grammar.pools {
        let preview: Vec<String> = pool
            .values
            .iter()
            .take(4)
            .map(|v| format!("{v:?}"))
            .collect();
        writeln!(
            out,
            "  pool {}: {} values ({}{})",
            pool.name,
            pool.values.len(),
            preview.join(", "),
            if pool.values.len() > 4 { ", ..." } else { "" }
        )?;
    }
    // Spelled as it would be written after `%layout`.
    let separator = match &grammar.layout.separator {
        Separator::Auto => "auto".to_string(),
        Separator::Text(t) if t.is_empty() => "none".to_string(),
        Separator::Text(t) if t == " " => "space".to_string(),
        Separator::Text(t) if t == "\n" => "newline".to_string(),
        Separator::Text(t) => format!("{t:?}"),
    };
    writeln!(
        out,
        "  start:     {} (min height {}, shortest word {} chars); layout {separator}",
        grammar.rules[start].name, analysis.heights.rule[start], analysis.min_yield.rule[start]
    )?;
    Ok(out)
}
