//! `report.md`: the document with plots linked from `plots/`.

use std::fmt::Write as _;

use super::document::{Cell, Document};

pub fn render(document: &Document) -> String {
    let mut out = format!("# {}\n", document.title);
    for section in &document.sections {
        let _ = write!(out, "\n## {}\n\n", section.title);
        for paragraph in &section.paragraphs {
            let _ = write!(out, "{paragraph}\n\n");
        }
        if let Some(plot) = &section.plot {
            let _ = write!(out, "![{}](plots/{})\n\n", plot.title, plot.file);
        }
        if let Some(table) = &section.table {
            let _ = writeln!(out, "| {} |", table.header.join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(table.header.len()));
            for row in &table.rows {
                let cells: Vec<String> = row.iter().map(cell).collect();
                let _ = writeln!(out, "| {} |", cells.join(" | "));
            }
            out.push('\n');
        }
    }
    out
}

fn cell(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) => escape(text),
        Cell::Link { text, href } => format!("[{}]({})", escape(text), href.replace(' ', "%20")),
    }
}

/// A cell stays on one line and cannot end the table.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Section, Table};

    #[test]
    fn cells_cannot_break_the_table() {
        let document = Document {
            title: "t".into(),
            sections: vec![Section {
                title: "s".into(),
                table: Some(Table {
                    header: vec!["a".into(), "b".into()],
                    rows: vec![vec![
                        Cell::from("x | y\nz"),
                        Cell::Link {
                            text: "0001.star".into(),
                            href: "corpus/0001.star".into(),
                        },
                    ]],
                }),
                ..Section::default()
            }],
        };
        let md = render(&document);
        assert!(
            md.contains("| x \\| y z | [0001.star](corpus/0001.star) |"),
            "{md}"
        );
    }
}
