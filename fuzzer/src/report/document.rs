//! The report as data: sections of text, plots and tables, written out as Markdown and HTML
//! by `markdown` and `html`, so both always say the same thing.

/// One cell of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    /// A link relative to the report's directory.
    Link {
        text: String,
        href: String,
    },
}

impl Cell {
    pub fn text(&self) -> &str {
        match self {
            Cell::Text(t) | Cell::Link { text: t, .. } => t,
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell::Text(text)
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell::Text(text.to_string())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// An SVG file in `plots/`, and its markup for inlining.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name inside `plots/`.
    pub file: String,
    pub title: String,
    pub svg: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Section {
    pub title: String,
    pub paragraphs: Vec<String>,
    pub plot: Option<Plot>,
    pub table: Option<Table>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    pub title: String,
    pub sections: Vec<Section>,
}
