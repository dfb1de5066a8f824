//! `--csv`, `--markdown` and `--latex` on eval, stats, groups, zcr and diff (demo_data/): the
//! CSV parses and holds the `--json` numbers unrounded, Markdown and LaTeX hold the same
//! tables the terminal shows, and the formats exclude each other.

use crate::common;

use serde_json::Value;

const INDEX: &str = "demo_data/indexes/rkmeans_v64_native/Workshop.index.json";
const BEAMS: &str = "demo_data/indexes/rkmeans_v64_native/rkmeans_v64_native.per_user.json";
const CODEBOOKS: &str = "demo_data/indexes/rkmeans_v64_native/codebooks.npy";
const ZCR_INDEX: &str = "demo_data/indexes/rkmeans_v64_zcr/Workshop.index.json";
const LATENTS: &str = "demo_data/Workshop.emb-tfidf.npy";
const ITEMS: &str = "demo_data/Workshop.item.json";

fn run(args: &[&str]) -> String {
    let out = common::sidlens(args);
    assert!(
        out.status.success(),
        "sidlens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    serde_json::from_str(&run(&all)).unwrap()
}

fn with(args: &[&str], flag: &'static str) -> String {
    let mut all = args.to_vec();
    all.push(flag);
    run(&all)
}

/// An RFC 4180 reader (quoted fields, doubled quotes): every record has the header's width.
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(
        !quoted && field.is_empty() && record.is_empty(),
        "CSV ends mid-record"
    );
    let header = records.remove(0);
    for r in &records {
        assert_eq!(r.len(), header.len(), "record {r:?} under {header:?}");
    }
    (header, records)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name:?} in {header:?}"))
}

/// Asserts `csv` (read exactly by `str::parse`) is the JSON number `json`: serde_json without
/// its `float_roundtrip` feature may read a shortest-round-trip number one ulp off.
#[track_caller]
fn same(csv: f64, json: f64) {
    assert!(
        (csv - json).abs() <= 2.0 * f64::EPSILON * csv.abs().max(json.abs()),
        "CSV {csv} vs JSON {json}"
    );
}

fn number(cell: &str) -> f64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("{cell:?} is not a plain number"))
}

/// Markdown: a pipe header, an alignment rule, then `rows` pipe rows for the first table.
fn markdown_rows(md: &str, header_start: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = md.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(header_start))
        .unwrap_or_else(|| panic!("no table starting {header_start:?} in\n{md}"));
    let width = lines[at].matches(" | ").count() + 1;
    assert!(lines[at + 1].starts_with("|:---") || lines[at + 1].starts_with("|---:"));
    assert_eq!(lines[at + 1].matches('|').count(), width + 1);
    lines[at + 2..]
        .iter()
        .take_while(|l| l.starts_with("| "))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn assert_latex_tables(tex: &str, n: usize) {
    assert_eq!(tex.matches("\\begin{tabular}").count(), n, "{tex}");
    assert_eq!(tex.matches("\\toprule").count(), n);
    assert_eq!(tex.matches("\\bottomrule\n\\end{tabular}").count(), n);
    for line in tex.lines() {
        assert!(
            line.is_empty()
                || line.starts_with('%')
                || line.starts_with('\\')
                || line.ends_with(" \\\\"),
            "stray line {line:?}"
        );
    }
}

const EVAL: &[&str] = &[
    "eval", "-q", "--index", INDEX, "--beams", BEAMS, "--k", "5,10",
];

#[test]
fn eval_csv_holds_the_json_numbers() {
    let doc = json(EVAL);
    let (header, rows) = parse_csv(&with(EVAL, "--csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let k = &row[column(&header, "K")];
        for m in ["Hit", "ItemHit", "NDCG", "ItemNDCG", "MRR", "ItemMRR"] {
            let want = doc["metrics"][format!("{m}@{k}")].as_f64().unwrap();
            same(number(&row[column(&header, m)]), want);
        }
        for m in ["Hit", "NDCG"] {
            let want = doc["inflation_pct"][format!("{m}@{k}")].as_f64().unwrap();
            same(
                number(&row[column(&header, &format!("{m} inflation (%)"))]),
                want,
            );
        }
        for (d, prefix) in doc["prefix_hit"].as_array().unwrap().iter().enumerate() {
            let cell = &row[column(&header, &format!("PrefixHit depth {}", d + 1))];
            same(number(cell), prefix[format!("Hit@{k}")].as_f64().unwrap());
        }
    }
}

#[test]
fn eval_markdown_and_latex_show_the_terminal_table() {
    let doc = json(EVAL);
    let hit10 = doc["metrics"]["Hit@10"].as_f64().unwrap();
    let item10 = doc["metrics"]["ItemHit@10"].as_f64().unwrap();
    let md = with(EVAL, "--markdown");
    let rows = markdown_rows(&md, "| K | Hit | ItemHit | inflation |");
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[1][..3],
        ["10", &format!("{hit10:.4}"), &format!("{item10:.4}")]
    );
    assert!(md.contains(&format!("{} users", doc["n_users"])));
    let tex = with(EVAL, "--latex");
    assert_latex_tables(&tex, 1);
    assert!(tex.contains(&format!("\n10 & {hit10:.4} & {item10:.4} & ")));
    assert!(tex.contains("\n% invalid beam SIDs: 0"));
}

#[test]
fn eval_groups_csv_lists_every_item_of_each_group() {
    let args = [EVAL, &["--groups", "3"]].concat();
    let doc = json(&args);
    let (header, rows) = parse_csv(&with(&args, "--csv"));
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(rows.len(), groups.len());
    for (row, g) in rows.iter().zip(groups) {
        assert_eq!(row[column(&header, "SID")], g["sid"].as_str().unwrap());
        let items: Vec<&str> = g["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_str().unwrap())
            .collect();
        assert_eq!(row[column(&header, "items")], items.join(" "));
        same(
            number(&row[column(&header, "over-credit@10")]),
            g["over_credit"].as_f64().unwrap(),
        );
        same(
            number(&row[column(&header, "ΣHit@5")]),
            g["credit"]["Hit@5"].as_f64().unwrap(),
        );
    }
}

const STATS: &[&str] = &["stats", "--index", INDEX];

#[test]
fn stats_in_every_format() {
    let doc = json(STATS);
    let (header, rows) = parse_csv(&with(STATS, "--csv"));
    assert_eq!(header, ["statistic", "value"]);
    let value = |name: &str| {
        rows.iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no {name:?}"))[1]
            .clone()
    };
    same(number(&value("items")), doc["n_items"].as_f64().unwrap());
    same(
        number(&value("collision rate (paper, fraction)")),
        doc["collision_rate"].as_f64().unwrap(),
    );
    assert_eq!(
        value("codebook size inferred"),
        doc["codebook_size_inferred"].to_string()
    );
    let md = with(STATS, "--markdown");
    let overview = markdown_rows(&md, "| statistic | value |");
    let rate = format!("{:.2}%", doc["collision_rate"].as_f64().unwrap() * 100.0);
    assert!(overview.contains(&vec!["collision rate (paper)".to_string(), rate.clone()]));
    let levels = markdown_rows(&md, "| level | codes used |");
    assert_eq!(levels.len(), doc["levels"].as_array().unwrap().len());
    let tex = with(STATS, "--latex");
    assert_latex_tables(&tex, 3);
    assert!(tex.contains(&format!(
        "collision rate (paper) & {} \\\\",
        rate.replace('%', "\\%")
    )));
}

const GROUPS: &[&str] = &["groups", "--index", INDEX, "--items", ITEMS, "--top", "3"];

#[test]
fn groups_csv_repeats_the_group_on_every_item_line() {
    let doc = json(GROUPS);
    let groups = doc.as_array().unwrap();
    let (header, rows) = parse_csv(&with(GROUPS, "--csv"));
    assert_eq!(header, ["rank", "size", "SID", "item", "title"]);
    let items: Vec<(&Value, &Value)> = groups
        .iter()
        .flat_map(|g| g["items"].as_array().unwrap().iter().map(move |i| (g, i)))
        .collect();
    assert_eq!(rows.len(), items.len());
    for (row, (g, item)) in rows.iter().zip(items) {
        assert_eq!(row[0], g["rank"].to_string());
        assert_eq!(row[2], g["sid"].as_str().unwrap());
        assert_eq!(row[3], item["id"].as_str().unwrap());
        assert_eq!(row[4], item["title"].as_str().unwrap());
    }
    let md = with(GROUPS, "--markdown");
    let md_rows = markdown_rows(&md, "| # | size | SID | item | title |");
    assert_eq!(md_rows.len(), rows.len());
    assert_eq!(md_rows[0][2], groups[0]["sid"].as_str().unwrap());
    assert_eq!(
        md_rows[1][2], "",
        "group columns only on a group's first line"
    );
    assert_latex_tables(&with(GROUPS, "--latex"), 1);
}

#[test]
fn groups_with_embeddings_csv_keeps_the_distances_unrounded() {
    let args = [GROUPS, &["--embeddings", LATENTS]].concat();
    let doc = json(&args);
    let (header, rows) = parse_csv(&with(&args, "--csv"));
    let first = &doc[0];
    same(
        number(&rows[0][column(&header, "mean_cosine_distance")]),
        first["mean_cosine_distance"].as_f64().unwrap(),
    );
    assert_eq!(
        rows[0][column(&header, "SID")],
        first["sid"].as_str().unwrap()
    );
}

const ZCR: &[&str] = &[
    "zcr",
    "-q",
    "--index",
    INDEX,
    "--latents",
    LATENTS,
    "--codebooks",
    CODEBOOKS,
];

#[test]
fn zcr_csv_summary_and_groups() {
    let doc = json(ZCR);
    let (header, rows) = parse_csv(&with(ZCR, "--csv"));
    assert_eq!(
        header,
        ["quantity", "ZCR (optimal)", "greedy", "MQL4GRec (exact)"]
    );
    let row = |q: &str| rows.iter().find(|r| r[0] == q).unwrap().clone();
    for (col, key) in [(1, "optimal"), (2, "greedy"), (3, "mql4grec")] {
        same(
            number(&row("total ΔD")[col]),
            doc[key]["total_delta"].as_f64().unwrap(),
        );
        same(
            number(&row("items reassigned")[col]),
            doc[key]["n_reassigned"].as_f64().unwrap(),
        );
    }
    let args = [ZCR, &["--groups"]].concat();
    let doc = json(&args);
    let (header, rows) = parse_csv(&with(&args, "--csv"));
    let items: Vec<(&Value, &Value)> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["items"].as_array().unwrap().iter().map(move |i| (g, i)))
        .collect();
    assert_eq!(rows.len(), items.len());
    for (row, (g, item)) in rows.iter().zip(items) {
        assert_eq!(
            row[column(&header, "prefix")],
            g["prefix_sid"].as_str().unwrap()
        );
        assert_eq!(row[column(&header, "item")], item["id"].as_str().unwrap());
        assert_eq!(row[column(&header, "ZCR")], item["optimal"].to_string());
        same(
            number(&row[column(&header, "ΔD ZCR")]),
            item["optimal_delta"].as_f64().unwrap(),
        );
    }
    let md = with(ZCR, "--markdown");
    let summary = markdown_rows(&md, "|  | ZCR (optimal) | greedy |");
    let total = doc["optimal"]["total_delta"].as_f64().unwrap();
    assert!(summary.contains(&vec![
        "total ΔD".to_string(),
        format!("{total:.4}"),
        format!("{:.4}", doc["greedy"]["total_delta"].as_f64().unwrap()),
        format!("{:.4}", doc["mql4grec"]["total_delta"].as_f64().unwrap()),
    ]));
    let tex = with(ZCR, "--latex");
    assert_latex_tables(&tex, 2);
    assert!(tex.contains(&format!("total $\\Delta$D & {total:.4} & ")));
}

#[test]
fn diff_csv_is_one_row_per_other_index() {
    let one = ["diff", INDEX, ZCR_INDEX];
    let doc = json(&one);
    let (header, rows) = parse_csv(&with(&one, "--csv"));
    assert_eq!(rows.len(), 1);
    let cell = |name: &str| rows[0][column(&header, name)].clone();
    same(
        number(&cell("collision rate before (fraction)")),
        doc["collision_rate_before"].as_f64().unwrap(),
    );
    same(
        number(&cell("d changed")),
        doc["changed_per_level"][3].as_f64().unwrap(),
    );
    assert_eq!(cell("valid ZCR"), doc["valid_zcr"].to_string());
    assert_eq!(cell("total ΔD"), "", "unpriced without latents");
    let (zcr, this) = (format!("zcr={ZCR_INDEX}"), format!("self={INDEX}"));
    let priced = ["diff", INDEX, &zcr, &this, "--latents", LATENTS];
    let doc = json(&priced);
    let (header, rows) = parse_csv(&with(&priced, "--csv"));
    assert_eq!(rows.len(), 2);
    for (row, d) in rows.iter().zip(doc["diffs"].as_array().unwrap()) {
        assert_eq!(row[0], d["name"].as_str().unwrap());
        same(
            number(&row[column(&header, "total ΔD")]),
            d["delta_d"].as_f64().unwrap(),
        );
    }
    let md = with(&one, "--markdown");
    let summary = markdown_rows(&md, "|  | value |");
    assert!(summary.contains(&vec![
        "valid zero-collision reassignment".into(),
        "yes".into()
    ]));
    assert_latex_tables(&with(&one, "--latex"), 2);
}

#[test]
fn formats_exclude_each_other() {
    for args in [EVAL, STATS, GROUPS, ZCR, &["diff", INDEX, ZCR_INDEX]] {
        for pair in [
            ["--json", "--csv"],
            ["--csv", "--latex"],
            ["--markdown", "--latex"],
        ] {
            let out = common::sidlens(&[args, &pair].concat());
            assert_eq!(out.status.code(), Some(2), "{args:?} {pair:?}");
            assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
        }
    }
}
