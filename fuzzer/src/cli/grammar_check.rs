//! `bonsai grammar check FILE`

use std::path::PathBuf;

use clap::Args;

use super::Failure;
use super::load::load_grammar;
use crate::grammar::{Separator, Terminal};

#[derive(Args)]
pub struct CheckArgs {
    /// The grammar file.
    file: PathBuf,
}

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let (grammar, analysis) = load_grammar(&args.file)?;
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
    println!("{}: ok", args.file.display());
    println!(
        "  rules:     {} named ({} lexical), {} groups",
        grammar.named_rules, lexical, groups
    );
    // A pool is a terminal: it is counted once, among the terminals, and only where it is used.
    println!(
        "  symbols:   {} ({} rules, {} terminals)",
        grammar.named_rules + grammar.terminals.len(),
        grammar.named_rules,
        grammar.terminals.len()
    );
    println!(
        "  terminals: {literals} literals, {classes} classes, {pools} pools, {layout} layout tokens"
    );
    for pool in &grammar.pools {
        let preview: Vec<String> = pool
            .values
            .iter()
            .take(4)
            .map(|v| format!("{v:?}"))
            .collect();
        println!(
            "  pool {}: {} values ({}{})",
            pool.name,
            pool.values.len(),
            preview.join(", "),
            if pool.values.len() > 4 { ", ..." } else { "" }
        );
    }
    // Spelled as it would be written after `%layout`.
    let separator = match &grammar.layout.separator {
        Separator::Auto => "auto".to_string(),
        Separator::Text(t) if t.is_empty() => "none".to_string(),
        Separator::Text(t) if t == " " => "space".to_string(),
        Separator::Text(t) if t == "\n" => "newline".to_string(),
        Separator::Text(t) => format!("{t:?}"),
    };
    println!(
        "  start:     {} (min height {}, shortest word {} chars); layout {separator}",
        grammar.rules[start].name, analysis.heights.rule[start], analysis.min_yield.rule[start]
    );
    Ok(())
}
