//! The shareable report: one self-contained HTML file (inline CSS and SVG, no script, nothing
//! fetched) with the compare tables, the figures, the largest collision groups, the ZCR totals
//! and the provenance. Every string from a data file is escaped; the output is well-formed XML
//! (polyglot HTML), which the tests check.

pub mod provenance;

use crate::metrics::Compat;
use crate::plot::zcr::ZcrFigure;
use crate::report::compare::{mark_legend, report_flip_lines, report_table};
use crate::report::format::html::{escape, render as html_table};
use crate::report::groups::GroupRow;
use crate::report::{Align, Table};
use crate::usecase::CompareReport;

pub use provenance::{InputFile, Provenance};

/// A tokenizer's largest collision groups.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenizerGroups {
    /// The tokenizer.
    pub name: String,
    /// Items, and items in collision groups.
    pub n_items: usize,
    /// Collision groups (size ≥ 2).
    pub n_groups: usize,
    /// The largest groups, largest first, with titles.
    pub rows: Vec<GroupRow>,
}

/// A figure: its heading, a sentence on how to read it, and the SVG document.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The heading.
    pub title: String,
    /// How to read it.
    pub note: String,
    /// The SVG document (from [`crate::plot`]).
    pub svg: String,
}

/// Everything a report shows, computed by the caller from library results.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportContent {
    /// The dataset or report title.
    pub title: String,
    /// Metric semantics used.
    pub compat: Compat,
    /// The comparison at every K the report shows, with its paired tests and warnings (what
    /// `sidlens compare` prints for the same tokenizers).
    pub compare: CompareReport,
    /// Figures in order.
    pub figures: Vec<Figure>,
    /// ZCR against greedy, per tokenizer that has latents.
    pub zcr: Vec<ZcrFigure>,
    /// Tokenizers whose ZCR could not be priced, with the reason.
    pub zcr_missing: Vec<(String, String)>,
    /// The largest collision groups per tokenizer.
    pub groups: Vec<TokenizerGroups>,
    /// What the report was made from.
    pub provenance: Provenance,
}

const CSS: &str = "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;max-width:78em;margin:1.5em auto;padding:0 1em;color:#111;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #999;padding-bottom:.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.92em}th,td{border:1px solid #bbb;padding:.2em .5em;vertical-align:top}
th{background:#eee}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1em 0 2em}figure svg{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:.92em;color:#333}
code,.mono{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.9em;word-break:break-all}
.note{color:#444;font-size:.92em}.warning{color:#8a4b00;font-weight:bold}details{margin:.4em 0}summary{cursor:pointer;font-weight:bold}
@media print{details{display:block}figure{break-inside:avoid}}";

/// The whole HTML document.
pub fn render(c: &ReportContent) -> String {
    let mut h = String::with_capacity(1 << 20);
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    h.push_str(&format!(
        "<title>sidlens report · {}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n",
        escape(&c.title)
    ));
    h.push_str(&format!(
        "<h1>sidlens report · {}</h1>\n<p class=\"note\">Made by sidlens {} with {} metrics: Hit@K/NDCG@K credit a hit on a collision group as a hit on the target; ItemHit@K/ItemNDCG@K place the target uniformly inside its group (the paper's CCE).</p>\n",
        escape(&c.title),
        escape(&c.provenance.version),
        escape(c.compat.name())
    ));
    h.push_str("<nav><p>Contents: <a href=\"#compare\">compare</a> · <a href=\"#figures\">figures</a> · <a href=\"#zcr\">ZCR against greedy</a> · <a href=\"#groups\">largest collision groups</a> · <a href=\"#provenance\">provenance</a></p></nav>\n");
    compare_section(&mut h, c);
    figures_section(&mut h, c);
    zcr_section(&mut h, c);
    groups_section(&mut h, c);
    provenance_section(&mut h, &c.provenance);
    h.push_str("</body>\n</html>\n");
    h
}

fn compare_section(h: &mut String, c: &ReportContent) {
    let r = &c.compare;
    h.push_str("<section id=\"compare\">\n<h2>Tokenizers compared</h2>\n");
    h.push_str("<p class=\"note\">Collision rate: items in groups of two or more over all items. Inflation: (Hit@K − ItemHit@K) / ItemHit@K. Ranks: 1 = best, ties share a rank.</p>\n");
    for w in &r.warnings {
        h.push_str(&format!(
            "<p class=\"warning\">warning: {}</p>\n",
            escape(w)
        ));
    }
    h.push_str(&html_table(&report_table(r, false)));
    if let Some(legend) = mark_legend(r) {
        h.push_str(&format!("<p class=\"note\">{}</p>\n", escape(&legend)));
    }
    let flips = report_flip_lines(r);
    if flips.is_empty() {
        h.push_str("<p>No rank flips between SID-level and item-level metrics.</p>\n");
    } else {
        h.push_str(&format!("<p>{} rank flip(s):</p>\n<ul>\n", flips.len()));
        for f in flips {
            h.push_str(&format!("<li>{}</li>\n", escape(&f)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

fn figures_section(h: &mut String, c: &ReportContent) {
    h.push_str("<section id=\"figures\">\n<h2>Figures</h2>\n");
    if c.figures.is_empty() {
        h.push_str("<p>No figure: no tokenizer has beams or latents.</p>\n");
    }
    for f in &c.figures {
        h.push_str(&format!(
            "<figure>\n<h3>{}</h3>\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
            escape(&f.title),
            strip_xml_declaration(&f.svg),
            escape(&f.note)
        ));
    }
    h.push_str("</section>\n");
}

/// An SVG document as an inline element (an `<?xml …?>` line is not allowed mid-document).
fn strip_xml_declaration(svg: &str) -> &str {
    let s = svg.trim();
    match s.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(s, |(_, r)| r.trim_start()),
        None => s,
    }
}

fn zcr_section(h: &mut String, c: &ReportContent) {
    h.push_str("<section id=\"zcr\">\n<h2>ZCR against greedy</h2>\n");
    h.push_str("<p class=\"note\">Both make every SID unique with the fewest last-code changes; ZCR (Kuhn–Munkres per prefix group) then minimises the total ΔD = Σ increase of ‖r − e‖², greedy is MQL4GRec's rule.</p>\n");
    if c.zcr.is_empty() {
        h.push_str("<p>No tokenizer has latents to price a reassignment with.</p>\n");
    } else {
        let mut t = Table::new(&[
            ("tokenizer", Align::Left),
            ("prefix groups", Align::Right),
            ("items moved", Align::Right),
            ("ZCR ΔD", Align::Right),
            ("greedy ΔD", Align::Right),
            ("saving", Align::Right),
            ("ZCR cheaper in", Align::Right),
            ("left unchanged", Align::Right),
            ("codebooks", Align::Left),
            ("latents reproduce", Align::Right),
        ]);
        for z in &c.zcr {
            t.push(vec![
                z.name.clone(),
                z.groups.len().to_string(),
                z.n_reassigned.to_string(),
                format!("{:.4}", z.total_optimal),
                format!("{:.4}", z.total_greedy),
                z.saving_pct().map_or("-".into(), |p| format!("{p:.2}%")),
                format!("{} groups", z.n_cheaper()),
                z.n_skipped.to_string(),
                if z.codebook_estimated {
                    "estimated".into()
                } else {
                    "given".into()
                },
                z.latent_agreement
                    .map_or("-".into(), |a| format!("{:.1}%", 100.0 * a)),
            ]);
        }
        h.push_str(&html_table(&t));
        h.push_str("<p class=\"note\">Latents reproduce: the share of the index's last codes that the latents' own nearest codewords give back; low, and ΔD is priced in another space than the tokenizer's.</p>\n");
        for z in &c.zcr {
            for w in &z.warnings {
                h.push_str(&format!(
                    "<p class=\"warning\">warning: {}: {}</p>\n",
                    escape(&z.name),
                    escape(w)
                ));
            }
        }
    }
    if !c.zcr_missing.is_empty() {
        h.push_str("<ul class=\"note\">\n");
        for (name, why) in &c.zcr_missing {
            h.push_str(&format!("<li>{}: {}</li>\n", escape(name), escape(why)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

fn groups_section(h: &mut String, c: &ReportContent) {
    h.push_str("<section id=\"groups\">\n<h2>Largest collision groups</h2>\n");
    for (i, g) in c.groups.iter().enumerate() {
        let open = if i == 0 { " open=\"open\"" } else { "" };
        h.push_str(&format!(
            "<details{open}>\n<summary>{} — {} collision groups among {} items; the {} largest</summary>\n",
            escape(&g.name),
            g.n_groups,
            g.n_items,
            g.rows.len()
        ));
        if g.rows.is_empty() {
            h.push_str("<p>No collisions.</p>\n");
        } else {
            h.push_str("<table>\n<thead><tr><th class=\"num\">#</th><th class=\"num\">size</th><th>SID</th><th>items (id: title)</th></tr></thead>\n<tbody>\n");
            for row in &g.rows {
                h.push_str(&format!(
                    "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td><td><ul>",
                    row.rank,
                    row.size,
                    escape(&row.sid)
                ));
                for item in &row.items {
                    match &item.title {
                        Some(t) => h.push_str(&format!(
                            "<li><span class=\"mono\">{}</span>: {}</li>",
                            escape(&item.id),
                            escape(t)
                        )),
                        None => h.push_str(&format!(
                            "<li><span class=\"mono\">{}</span></li>",
                            escape(&item.id)
                        )),
                    }
                }
                h.push_str("</ul></td></tr>\n");
            }
            h.push_str("</tbody>\n</table>\n");
        }
        h.push_str("</details>\n");
    }
    h.push_str("</section>\n");
}

fn provenance_section(h: &mut String, p: &Provenance) {
    h.push_str("<section id=\"provenance\">\n<h2>Provenance</h2>\n");
    h.push_str(&format!(
        "<p>sidlens {}</p>\n<p>Command line: <code>{}</code></p>\n",
        escape(&p.version),
        escape(&p.shell_line())
    ));
    let mut t = Table::new(&[
        ("input", Align::Left),
        ("bytes", Align::Right),
        ("SHA-256", Align::Left),
    ]);
    for i in &p.inputs {
        t.push(vec![i.path.clone(), i.bytes.to_string(), i.sha256.clone()]);
    }
    h.push_str(&html_table(&t));
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_dropped_from_inline_svg() {
        assert_eq!(
            strip_xml_declaration("<?xml version=\"1.0\"?>\n<svg/>"),
            "<svg/>"
        );
        assert_eq!(strip_xml_declaration("<svg/>\n"), "<svg/>");
    }
}
