//! `bonsai report`: what a campaign (or one fuzzing run) did, as `report.md` and a
//! self-contained `report.html`, with SVG plots in `plots/`.
//!
//! Everything comes from the files the campaign left: `campaign.json`, each node's
//! `coverage.csv`, `summary.json` and queue, and the exported corpus's `manifest.json` (whose
//! per-input edges come from replaying the target at export time). So the report needs no
//! target binary; only the table of inputs by unique coverage needs an export, which
//! `bonsai report` makes when it is missing, with the target the run recorded.
//!
//! `facts` gathers the figures, `document` is the report as sections, `plots` draws the
//! charts and `lattice_picture` the lattice, `markdown` and `html` write the two files.

mod document;
mod facts;
mod html;
mod lattice_picture;
mod markdown;
mod plots;
mod sections;

use std::path::{Path, PathBuf};

pub use document::{Cell, Document, Plot, Section, Table};
pub use facts::{Facts, FaultFacts, GrammarCoverage, NodeFacts};

use crate::diagnostic::Diagnostics;

pub use crate::layout::{PLOTS_DIR, REPORT_HTML, REPORT_MD};

/// Where a report's files went.
#[derive(Clone, Debug)]
pub struct ReportPaths {
    /// The Markdown report, `report.md`.
    pub markdown: PathBuf,
    /// The HTML report, `report.html`.
    pub html: PathBuf,
    /// Every SVG plot written under `plots/`.
    pub plots: Vec<PathBuf>,
}

/// Where `bonsai export` puts a campaign's corpus by convention, and where the report looks
/// for it.
pub fn corpus_dir(dir: &Path) -> PathBuf {
    dir.join("corpus")
}

/// Writes `dir/report.md`, `dir/report.html` and `dir/plots/*.svg` for a campaign directory or
/// a fuzzing output.
pub fn write(dir: &Path) -> Result<ReportPaths, Diagnostics> {
    let facts = Facts::gather(dir)?;
    let document = sections::build(&facts);
    let plots_dir = dir.join(PLOTS_DIR);
    crate::create_dir(&plots_dir)?;
    let mut plots = Vec::new();
    for plot in document.sections.iter().filter_map(|s| s.plot.as_ref()) {
        let path = plots_dir.join(&plot.file);
        crate::write_atomic(&path, plot.svg.as_bytes())?;
        plots.push(path);
    }
    let paths = ReportPaths {
        markdown: dir.join(REPORT_MD),
        html: dir.join(REPORT_HTML),
        plots,
    };
    crate::write_atomic(&paths.markdown, markdown::render(&document).as_bytes())?;
    crate::write_atomic(&paths.html, html::render(&document).as_bytes())?;
    Ok(paths)
}
