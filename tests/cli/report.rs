//! `sidlens report`: one self-contained, well-formed HTML file (checked as XML), every data
//! string escaped (a hostile title), byte-identical on a second run, and — where Chromium is
//! installed — rendered by a real browser to a screenshot that is not blank.

use crate::common;

use std::path::Path;

use common::{sidlens, skip_notice};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

const HOSTILE: &str = "<script>alert('x')</script> & \"quoted\" \u{1} <img src=x onerror=alert(1)>";

/// The demo with item 89 (in rkmeans_v32_native's largest group) given a hostile title.
fn hostile_demo(dir: &Path) -> std::path::PathBuf {
    let data = dir.join("data");
    copy_dir(Path::new("demo_data"), &data);
    let items_path = data.join("Workshop.item.json");
    let mut items: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&items_path).unwrap()).unwrap();
    items["89"]["title"] = HOSTILE.into();
    std::fs::write(&items_path, serde_json::to_string(&items).unwrap()).unwrap();
    data
}

fn report(data: &Path, out: &Path) -> String {
    let o = sidlens(&[
        "report",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn report_is_self_contained_escaped_and_well_formed() {
    let dir = tempfile::tempdir().unwrap();
    let data = hostile_demo(dir.path());
    let out = dir.path().join("report.html");
    let html = report(&data, &out);
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("not well-formed: {e}"));
    let names: Vec<&str> = doc
        .descendants()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name())
        .collect();
    for banned in ["script", "img", "link", "iframe", "object"] {
        assert!(!names.contains(&banned), "a <{banned}> element");
    }
    assert_eq!(
        names.iter().filter(|&&n| n == "svg").count(),
        6,
        "figures: inflation, ranks, curves, ZCR of the two tokenizers with collisions, scatter"
    );
    for n in doc.descendants().filter(|n| n.is_element()) {
        for a in n.attributes() {
            assert!(!a.name().starts_with("on"), "event handler {}", a.name());
            if ["src", "href"].contains(&a.name()) {
                assert!(
                    a.value().starts_with('#'),
                    "external reference {}",
                    a.value()
                );
            }
        }
    }
    assert!(!html.contains("url(") && !html.contains("@import"));
    let title_text = doc
        .descendants()
        .filter(|n| n.is_text())
        .find(|n| n.text().unwrap().contains("alert('x')"))
        .expect("the hostile title is shown as text");
    assert_eq!(
        title_text.text().unwrap(),
        format!(": {}", HOSTILE.replace('\u{1}', "\u{FFFD}"))
    );
    for needle in [
        "ItemHit@5",
        "ItemHit@10",
        "differs from the best value of its column",
        "12.3916",
        "13.5914",
        "8.83%",
        "Provenance",
        "Workshop.item.json",
        "report ",
    ] {
        assert!(html.contains(needle), "{needle} missing");
    }
    let sha = sha_of(&data.join("Workshop.item.json"));
    assert!(html.contains(&sha), "the items file's SHA-256");
    assert_eq!(report(&data, &out), html, "not deterministic");
}

fn sha_of(path: &Path) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn bad_input_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    copy_dir(Path::new("demo_data"), &data);
    std::fs::write(data.join("Workshop.item.json"), "{\"1\": ").unwrap();
    let out = dir.path().join("r.html");
    let o = sidlens(&[
        "report",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Workshop.item.json"));
    assert!(!out.exists());
    let index = data.join("indexes/rkmeans_v64_zcr/Workshop.index.json");
    let o = sidlens(&[
        "report",
        data.to_str().unwrap(),
        "--out",
        index.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn chromium_renders_the_report() {
    let chromium = Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        skip_notice("/usr/bin/chromium not installed; the report was not opened in a browser");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    report(Path::new("demo_data"), &out);
    let shot = dir.path().join("shot.png");
    let profile = dir.path().join("profile");
    let o = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.display()),
            "--window-size=1200,1600",
            &format!("--screenshot={}", shot.display()),
            &format!("file://{}", out.display()),
        ])
        .output()
        .unwrap();
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&std::fs::read(&shot).unwrap()).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (1200, 1600));
    let pixels = pixmap.pixels();
    let dark = pixels
        .iter()
        .filter(|p| p.red() < 128 && p.green() < 128 && p.blue() < 128)
        .count();
    let coloured = pixels
        .iter()
        .filter(|p| p.red().abs_diff(p.blue()) > 60 || p.green().abs_diff(p.blue()) > 60)
        .count();
    let share = dark as f64 / pixels.len() as f64;
    assert!(
        share > 0.01 && share < 0.5,
        "text share {share}: blank or black page"
    );
    assert!(
        coloured > 500,
        "no coloured figure on screen ({coloured} pixels)"
    );
}
