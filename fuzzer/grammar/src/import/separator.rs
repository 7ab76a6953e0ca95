//! Which separator a foreign grammar implies. Foreign formats do not say what goes between
//! tokens; they say what a parser *skips* there: tree-sitter's `extras`, ANTLR's rules sent to
//! `skip` or a hidden channel. If a skipped token can be a space, tokens may be separated by
//! spaces, and the native `auto` layout (a space only where it reads well or is needed) is
//! right. If only line breaks are skipped, tokens go on separate lines. If nothing blank is
//! skipped, tokens must touch.

use regex_syntax::hir::{Class, Hir, HirKind};

use crate::diagnostic::Span;
use crate::grammar::Comment;
use crate::grammar::syntax::LayoutSetting;

/// The layout for a grammar whose skipped tokens are `skipped`.
pub fn implied_layout(skipped: &[Hir], span: Span) -> LayoutSetting {
    let any = |text: &str| skipped.iter().any(|hir| accepts(hir, text));
    let name = if any(" ") || any("\t") {
        "auto"
    } else if any("\n") {
        "newline"
    } else {
        "none"
    };
    LayoutSetting::Named(name.to_string(), span)
}

/// Block comment closers tried against a skipped token that starts with a literal opener.
const CLOSERS: [&str; 6] = ["*/", "*)", "-}", "-->", "|#", "]]"];

/// The comments among skipped tokens: a token that starts with visible literal text and then
/// runs to the end of the line is a line comment; one that runs across lines to one of the
/// usual closers is a block comment. Decided by probing each alternative of the token with
/// short texts, so the token's regex may be written any way.
pub fn implied_comments(skipped: &[Hir]) -> Vec<Comment> {
    let mut comments = Vec::new();
    for hir in skipped {
        let mut branches = Vec::new();
        expand(hir, &mut branches);
        for branch in &branches {
            let Some(open) = literal_prefix(branch) else {
                continue;
            };
            if open.trim().is_empty() || open.contains('\n') {
                continue;
            }
            let comment = if accepts(branch, &format!("{open} x y"))
                && !accepts(branch, &format!("{open} x\ny"))
            {
                Some(Comment::Line(open))
            } else {
                CLOSERS
                    .iter()
                    .find(|close| {
                        accepts(branch, &format!("{open} x\n y {close}"))
                            && !accepts(branch, &format!("{open} x {close} y"))
                            // The token must end at the whole closer, not at a part of it:
                            // XML's `'<!' .*? '>'` ends at `>`, so it is no `-->` comment.
                            && !(1..close.len()).any(|k| {
                                accepts(branch, &format!("{open} x {}", &close[k..]))
                            })
                    })
                    .map(|close| Comment::Block {
                        open,
                        close: close.to_string(),
                    })
            };
            if let Some(comment) = comment
                && !comments.contains(&comment)
            {
                comments.push(comment);
            }
        }
    }
    comments
}

/// How many branches `expand` makes of one skipped token at most.
const MAX_BRANCHES: usize = 64;

/// The alternatives of `hir`, with an alternation at the start of a sequence distributed over
/// it, so that each branch starts with its own opener: MySQL's line comment
/// `('--' [ \t]* | '#') ~[\r\n]* ...` is a `--` comment and a `#` comment.
fn expand(hir: &Hir, out: &mut Vec<Hir>) {
    match hir.kind() {
        HirKind::Alternation(alternatives) => {
            for alternative in alternatives {
                expand(alternative, out);
            }
        }
        HirKind::Capture(capture) => expand(&capture.sub, out),
        HirKind::Concat(parts) if out.len() < MAX_BRANCHES => match parts.first().map(Hir::kind) {
            Some(HirKind::Alternation(_) | HirKind::Capture(_)) => {
                let mut heads = Vec::new();
                expand(&parts[0], &mut heads);
                for head in heads {
                    let mut sequence = vec![head];
                    sequence.extend(parts[1..].iter().cloned());
                    let branch = Hir::concat(sequence);
                    match branch.kind() {
                        HirKind::Concat(p)
                            if matches!(
                                p.first().map(Hir::kind),
                                Some(HirKind::Alternation(_) | HirKind::Capture(_))
                            ) =>
                        {
                            out.push(branch)
                        }
                        _ => expand(&branch, out),
                    }
                }
            }
            _ => out.push(hir.clone()),
        },
        _ => out.push(hir.clone()),
    }
}

/// The literal text every match of `hir` starts with, as far as the first non-literal piece.
fn literal_prefix(hir: &Hir) -> Option<String> {
    match hir.kind() {
        HirKind::Literal(literal) => String::from_utf8(literal.0.to_vec()).ok(),
        HirKind::Capture(capture) => literal_prefix(&capture.sub),
        HirKind::Concat(parts) => {
            let mut prefix = String::new();
            for part in parts {
                match part.kind() {
                    HirKind::Literal(literal) => {
                        prefix.push_str(std::str::from_utf8(&literal.0).ok()?)
                    }
                    _ => break,
                }
            }
            (!prefix.is_empty()).then_some(prefix)
        }
        _ => None,
    }
}

/// Whether `hir` matches all of `text`: the set of positions reachable after each piece,
/// which is exact for the short probes used here and needs no regex engine.
pub fn accepts(hir: &Hir, text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    ends(hir, &chars, &[0]).contains(&chars.len())
}

fn ends(hir: &Hir, text: &[char], starts: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    let push = |p: usize, out: &mut Vec<usize>| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => return starts.to_vec(),
        HirKind::Literal(lit) => {
            let lit: Vec<char> = String::from_utf8_lossy(&lit.0).chars().collect();
            for &s in starts {
                if text.get(s..s + lit.len()) == Some(&lit[..]) {
                    push(s + lit.len(), &mut out);
                }
            }
        }
        HirKind::Class(class) => {
            for &s in starts {
                let Some(&c) = text.get(s) else { continue };
                let hit = match class {
                    Class::Unicode(u) => u.iter().any(|r| (r.start()..=r.end()).contains(&c)),
                    Class::Bytes(b) => {
                        c.is_ascii() && b.iter().any(|r| (r.start()..=r.end()).contains(&(c as u8)))
                    }
                };
                if hit {
                    push(s + 1, &mut out);
                }
            }
        }
        HirKind::Capture(capture) => return ends(&capture.sub, text, starts),
        HirKind::Concat(parts) => {
            let mut current = starts.to_vec();
            for part in parts {
                current = ends(part, text, &current);
                if current.is_empty() {
                    break;
                }
            }
            return current;
        }
        HirKind::Alternation(alts) => {
            for alt in alts {
                for p in ends(alt, text, starts) {
                    push(p, &mut out);
                }
            }
        }
        HirKind::Repetition(rep) => {
            let mut current = starts.to_vec();
            if rep.min == 0 {
                out.extend_from_slice(starts);
            }
            // Each round consumes at least one character or adds nothing new, so text.len()
            // rounds reach every position.
            let rounds = rep.max.map_or(text.len() as u32 + rep.min, |m| {
                m.min(text.len() as u32 + rep.min)
            });
            for round in 1..=rounds {
                current = ends(&rep.sub, text, &current);
                if current.is_empty() {
                    break;
                }
                if round >= rep.min {
                    for &p in &current {
                        push(p, &mut out);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hir(p: &str) -> Hir {
        regex_syntax::parse(p).unwrap()
    }

    #[test]
    fn comments_are_found_among_skipped_tokens() {
        let found = implied_comments(&[
            hir(r"\s+"),
            hir(r"//[^\r\n]*|/\*[^*]*\*+(?:[^/*][^/*]*\*+)*/"),
            hir(r"#.*"),
            hir(r"\(\*(?s:.)*?\*\)"),
            hir(r"--"),
        ]);
        assert_eq!(
            found,
            vec![
                Comment::Line("//".into()),
                Comment::Block {
                    open: "/*".into(),
                    close: "*/".into()
                },
                Comment::Line("#".into()),
                Comment::Block {
                    open: "(*".into(),
                    close: "*)".into()
                },
            ]
        );
    }

    #[test]
    fn a_leading_choice_of_openers_gives_a_comment_each() {
        // MySQL's line comment: `--` and `#` in one rule.
        let found = implied_comments(&[hir(r"(?:--[ \t]*|#)[^\r\n]*(?:\r?\n|\z)")]);
        assert_eq!(
            found,
            vec![Comment::Line("--".into()), Comment::Line("#".into())]
        );
    }

    #[test]
    fn a_token_that_ends_inside_a_closer_is_no_block_comment() {
        // XML's `<!DOCTYPE ...>` ends at `>`; `-->` would swallow the text after it.
        assert_eq!(implied_comments(&[hir(r"<!(?s:.)*?>")]), vec![]);
        assert_eq!(
            implied_comments(&[hir(r"<!--(?s:.)*?-->")]),
            vec![Comment::Block {
                open: "<!--".into(),
                close: "-->".into()
            }]
        );
    }

    #[test]
    fn probes_match_whole_strings() {
        assert!(accepts(&hir(r"\s"), " "));
        assert!(accepts(&hir(r"[ \t]+"), "\t"));
        assert!(!accepts(&hir(r"//.*"), " "));
        assert!(accepts(&hir(r"\r?\n"), "\n"));
        assert!(accepts(&hir(r"(a|bc){2}"), "abc"));
        assert!(!accepts(&hir(r"a{3}"), "aa"));
    }

    #[test]
    fn the_layout_follows_what_is_skipped() {
        let layout = |ps: &[&str]| match implied_layout(
            &ps.iter().map(|p| hir(p)).collect::<Vec<_>>(),
            Span::default(),
        ) {
            LayoutSetting::Named(n, _) => n,
            LayoutSetting::Text(t) => t,
        };
        assert_eq!(layout(&[r"//[^\n]*", r"[ \t\r\n]+"]), "auto");
        assert_eq!(layout(&[r"\n"]), "newline");
        assert_eq!(layout(&[r"#.*"]), "none");
        assert_eq!(layout(&[]), "none");
    }
}
