//! `bonsai grammar duplicate-context GRAMMAR SYMBOL [EXPANSION] [--depth D] [--out FILE]`: the
//! grammar with the context of one rule's alternative (or all of them) duplicated, as native
//! EBNF that loads back, so coverage counts that context apart.

use std::path::PathBuf;

use clap::Args;

use super::Failure;
use super::grammar_convert::emit;
use super::load::load_grammar;
use crate::convert::{duplicate_context, to_ebnf};
use crate::coverage::production;
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;

#[derive(Args)]
pub struct DuplicateArgs {
    /// The grammar (any format `bonsai import` reads).
    file: PathBuf,
    /// The rule whose alternatives get contexts of their own, by its name in the grammar.
    symbol: String,
    /// Only this alternative of it, as `bonsai coverage` spells it; all of them when left out.
    expansion: Option<String>,
    /// How many levels of named rules below are copied; unlimited when left out.
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Write here (atomically) instead of to stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: DuplicateArgs) -> Result<(), Failure> {
    let (grammar, _analysis) = load_grammar(&args.file)?;
    let rule = grammar
        .rule_ids()
        .take(grammar.named_rules)
        .find(|&r| grammar.rule(r).name == args.symbol)
        .ok_or_else(|| {
            Diagnostic::error(format!("no rule named {} in the grammar", args.symbol))
                .in_file(&args.file)
        })?;
    let alternative = match &args.expansion {
        None => None,
        Some(wanted) => {
            let prefix = format!("{} -> ", grammar.rule(rule).name);
            let bodies: Vec<String> = (0..grammar.rule(rule).alternatives.len())
                .map(|a| {
                    production(&grammar, rule, a as u32)
                        .trim_start_matches(&prefix)
                        .to_string()
                })
                .collect();
            let found = bodies.iter().position(|b| b == wanted.trim());
            Some(found.ok_or_else(|| {
                Diagnostic::error(format!(
                    "{} has no alternative {}; its alternatives: {}",
                    args.symbol,
                    wanted,
                    bodies.join(" | ")
                ))
                .in_file(&args.file)
            })?)
        }
    };
    let duplicated = duplicate_context(&grammar, rule, alternative, args.depth);
    let text = to_ebnf(&duplicated.grammar);
    Grammar::from_text(&grammar.name, &text).map_err(|e| {
        Diagnostic::error(format!(
            "internal error: the duplicated grammar does not load: {e}"
        ))
    })?;
    emit(args.out.as_deref(), &text)?;
    eprintln!(
        "{} rules added as copies{}",
        duplicated.added,
        if duplicated.removed > 0 {
            format!(", {} no longer reachable and left out", duplicated.removed)
        } else {
            String::new()
        }
    );
    Ok(())
}
