//! The report as data: sections of text, plots and tables, written out as Markdown and HTML
//! by `markdown` and `html`, so both always say the same thing.

/// One cell of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Plain text, escaped by each writer as its format needs.
    Text(String),
    /// A link relative to the report's directory.
    Link {
        /// The link's visible text.
        text: String,
        /// Where it points, relative to the report's directory.
        href: String,
    },
}

impl Cell {
    /// The cell's visible text, without any link target.
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

/// A table of one header row and body rows, each in the header's column order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column titles.
    pub header: Vec<String>,
    /// The body, one vector of cells per row.
    pub rows: Vec<Vec<Cell>>,
}

/// An SVG file in `plots/`, and its markup for inlining.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name inside `plots/`.
    pub file: String,
    /// The plot's title; the Markdown report uses it as the image's alternative text.
    pub title: String,
    /// The SVG document, as written to the file.
    pub svg: String,
}

/// One titled section of the report: some paragraphs, then at most one plot and one table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// Paragraphs of plain text, in order.
    pub paragraphs: Vec<String>,
    /// A plot shown after the paragraphs.
    pub plot: Option<Plot>,
    /// A table shown after the plot.
    pub table: Option<Table>,
}

/// The whole report, format-independent: `markdown` and `html` each write it out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// The report's title (the page's `<h1>`).
    pub title: String,
    /// The sections, in reading order.
    pub sections: Vec<Section>,
}
