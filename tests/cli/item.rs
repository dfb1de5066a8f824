//! `sidlens item` on the shipped demo: the two Voxelcraft 3D printers share one SID in the
//! native tokenizers, and the ZCR variant moves one of them.

use crate::common;
use common::sidlens;

fn demo() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/demo_data").to_string()
}

#[test]
fn json_follows_the_item_through_every_variant() {
    let out = sidlens(&["item", &demo(), "967", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["item"], "967");
    let variants = v["variants"].as_array().unwrap();
    let names: Vec<&str> = variants
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "rkmeans_v32_native",
            "rkmeans_v64_native",
            "rkmeans_v64_zcr"
        ]
    );
    for x in variants {
        let keys: Vec<&str> = x.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 5, "{keys:?}");
        for k in ["name", "sid", "codes", "group_size", "group"] {
            assert!(keys.contains(&k), "{k} missing in {x}");
        }
        assert_eq!(x["group_size"], x["group"].as_array().unwrap().len());
        assert!(x["group"].as_array().unwrap().contains(&"967".into()));
    }
    let native = &variants[1];
    assert_eq!(native["sid"], "<a_53><b_19><c_53><d_28>");
    assert_eq!(native["codes"], serde_json::json!([53, 19, 53, 28]));
    assert!(native["group"].as_array().unwrap().contains(&"586".into()));
    assert_eq!(variants[2]["codes"], serde_json::json!([53, 19, 53, 37]));
}

#[test]
fn table_names_the_item_and_the_move() {
    let out = sidlens(&["item", &demo(), "967"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("item 967 · Voxelcraft Standard 3D Printer"),
        "{text}"
    );
    assert!(text.contains("moved <d_28>→<d_37>"), "{text}");
}

#[test]
fn unknown_item_is_an_error_naming_the_folder() {
    let out = sidlens(&["item", &demo(), "no-such-item"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("item \"no-such-item\" is in none of the 3 indexes"),
        "{err}"
    );
}

#[test]
fn no_watch_is_accepted_without_a_subcommand() {
    // Not in a terminal, `sidlens` prints the help instead of opening the TUI; the flag must
    // parse all the same (the demo screen suggests it).
    let out = sidlens(&["--no-watch"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_papers_case_study_on_beauty() {
    let Some(reference) = common::reference() else {
        return;
    };
    let dir = reference.join("CollisionGenRec/data/Beauty");
    let out = sidlens(&["item", dir.to_str().unwrap(), "14", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let find = |name: &str| {
        v["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .cloned()
            .unwrap()
    };
    let native = find("rkmeans_native");
    assert_eq!(native["sid"], "<a_127><b_244><c_179><d_206>");
    assert_eq!(native["group"], serde_json::json!(["14", "1943"]));
    let zcr = find("rkmeans_zcr");
    assert_eq!(zcr["codes"], serde_json::json!([127, 244, 179, 111]));
    assert_eq!(zcr["group_size"], 1);
}
