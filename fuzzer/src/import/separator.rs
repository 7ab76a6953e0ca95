//! Which separator a foreign grammar implies. Foreign formats do not say what goes between
//! tokens; they say what a parser *skips* there: tree-sitter's `extras`, ANTLR's rules sent to
//! `skip` or a hidden channel. If a skipped token can be a space, tokens may be separated by
//! spaces, and the native `auto` layout (a space only where it reads well or is needed) is
//! right. If only line breaks are skipped, tokens go on separate lines. If nothing blank is
//! skipped, tokens must touch.

use regex_syntax::hir::{Class, Hir, HirKind};

use crate::diagnostic::Span;
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
