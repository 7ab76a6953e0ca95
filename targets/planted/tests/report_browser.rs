//! report.html as a person sees it: a real browser (Debian's headless chromium) lays the page
//! out, and every plot must come out as a drawn SVG picture of a sensible size, the lattice
//! with a box per node. Reading the file's text could not tell an SVG the browser refuses
//! from one it draws.
//!
//! The browser is Debian's `chromium`; where it is missing the test installs it with apt-get
//! (as root or through sudo), as the project's scripts install their Debian packages, so that
//! `cargo test` on a fresh machine needs nothing installed by hand.

mod common;

use std::process::Command;

use common::{bonsai, grammar_path};

/// Appended to a copy of the page: writes what the browser laid out into the DOM, which
/// `--dump-dom` prints once the page has loaded.
const MEASURE: &str = r#"<script>
const figures = [...document.querySelectorAll("figure")].map(f => {
  const svg = f.querySelector("svg");
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return f.id + " " + Math.round(box.width) + " " + Math.round(box.height) + " "
    + (svg ? svg.querySelectorAll("g.node").length : 0);
});
const out = document.createElement("pre");
out.id = "measured";
out.textContent = figures.join("\n");
document.body.appendChild(out);
</script>"#;

/// Debian's chromium, installed with apt-get if it is missing.
fn ensure_chromium() {
    let present = || {
        Command::new("chromium")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if present() {
        return;
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let apt = |args: &[&str]| {
        let mut command = if root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.arg("apt-get");
            sudo
        };
        command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    let install = ["install", "-y", "-qq", "chromium"];
    if !apt(&install) {
        assert!(
            apt(&["update", "-qq"]) && apt(&install),
            "Debian's chromium is missing and apt-get could not install it"
        );
    }
    assert!(present(), "chromium does not run after installing it");
}

#[test]
fn a_browser_draws_every_plot_of_a_campaign_report() {
    ensure_chromium();
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("campaign");
    let output = bonsai(&[
        "campaign",
        "--target",
        "planted",
        "--grammar",
        grammar_path().to_str().unwrap(),
        "--max-bounds",
        "2,2,2",
        "--node-time",
        "1s",
        "--jobs",
        "2",
        "--timeout-ms",
        "200",
        "--out",
        campaign.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(campaign.join("report.html")).unwrap();
    let page = campaign.join("measured.html");
    std::fs::write(
        &page,
        html.replace("</body>", &format!("{MEASURE}\n</body>")),
    )
    .unwrap();

    let dumped = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1400,1000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (apt-get install chromium)");
    let dom = String::from_utf8_lossy(&dumped.stdout);
    let measured = dom
        .split("<pre id=\"measured\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("the measuring script did not run:\n{dom}"));
    let figures: Vec<(String, u32, u32, usize)> = measured
        .lines()
        .map(|line| {
            let parts: Vec<&str> = line.split(' ').collect();
            (
                parts[0].to_string(),
                parts[1].parse().unwrap(),
                parts[2].parse().unwrap(),
                parts[3].parse().unwrap(),
            )
        })
        .collect();
    let ids: Vec<&str> = figures.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        ids,
        ["coverage.svg", "lattice.svg", "valid.svg", "sizes.svg"],
        "{measured}"
    );
    for (id, width, height, _) in &figures {
        assert!(
            *width >= 400 && *height >= 150,
            "{id} drawn {width}x{height}"
        );
    }
    let lattice = figures.iter().find(|f| f.0 == "lattice.svg").unwrap();
    assert_eq!(
        lattice.3, 16,
        "a box per node of the 2,2,2 lattice: {measured}"
    );
}
