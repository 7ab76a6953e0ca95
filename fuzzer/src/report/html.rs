//! `report.html`: one self-contained page, the plots inlined as SVG.

use std::fmt::Write as _;

use super::document::{Cell, Document};

const STYLE: &str = "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}\
td:first-child,th:first-child{text-align:left}th{background:#f4f4f4}figure{margin:1em 0}svg{max-width:100%;height:auto}";

pub fn render(document: &Document) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&document.title),
        escape(&document.title)
    );
    for section in &document.sections {
        let _ = writeln!(out, "<h2>{}</h2>", escape(&section.title));
        for paragraph in &section.paragraphs {
            let _ = writeln!(out, "<p>{}</p>", escape(paragraph));
        }
        if let Some(plot) = &section.plot {
            let _ = writeln!(
                out,
                "<figure id=\"{}\">\n{}\n</figure>",
                escape(&plot.file),
                strip_prolog(&plot.svg)
            );
        }
        if let Some(table) = &section.table {
            out.push_str("<table>\n<tr>");
            for head in &table.header {
                let _ = write!(out, "<th>{}</th>", escape(head));
            }
            out.push_str("</tr>\n");
            for row in &table.rows {
                out.push_str("<tr>");
                for c in row {
                    let _ = write!(out, "<td>{}</td>", cell(c));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn cell(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) => escape(text),
        Cell::Link { text, href } => {
            format!(
                "<a href=\"{}\"><code>{}</code></a>",
                escape(href),
                escape(text)
            )
        }
    }
}

/// An inline `<svg>` must not carry an XML declaration.
fn strip_prolog(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..])
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Plot, Section};

    #[test]
    fn text_is_escaped_and_plots_are_inlined_without_a_prolog() {
        let document = Document {
            title: "a <b> & c".into(),
            sections: vec![Section {
                title: "s".into(),
                paragraphs: vec!["if x < 1 && y".into()],
                plot: Some(Plot {
                    file: "p.svg".into(),
                    title: "p".into(),
                    svg: "<?xml version=\"1.0\"?>\n<svg></svg>".into(),
                }),
                table: None,
            }],
        };
        let html = render(&document);
        assert!(html.contains("<h1>a &lt;b&gt; &amp; c</h1>"));
        assert!(html.contains("<p>if x &lt; 1 &amp;&amp; y</p>"));
        assert!(html.contains("<figure id=\"p.svg\">\n<svg></svg>"));
        assert!(!html.contains("<?xml"));
    }
}
