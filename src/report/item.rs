//! The item-across-tokenizers report: one row per tokenizer with the item's SID, its group's
//! size, what a `*_zcr` variant did to its last code, and its groupmates. `sidlens item` prints
//! it and the TUI's item view draws it.

use super::{Align, Table};
use crate::sid;
use crate::usecase::item_view::{ItemAcross, ItemVariant, LastCode, last_code, native_of};

/// What `variant` did to the item's last code against its `*_native` sibling in `view`
/// (`kept <d_206>`, `moved <d_206>→<d_111>`); empty when it has no sibling there.
pub fn last_code_text(view: &ItemAcross, variant: &ItemVariant) -> String {
    let Some(native) =
        native_of(&variant.name).and_then(|name| view.variants.iter().find(|v| v.name == name))
    else {
        return String::new();
    };
    let level = variant.codes.len().saturating_sub(1);
    match last_code(&native.codes, &variant.codes) {
        LastCode::Kept => format!(
            "kept {}",
            sid::format_token(level, *variant.codes.last().unwrap_or(&0))
        ),
        LastCode::Moved { from, to } => format!(
            "moved {}→{}",
            sid::format_token(level, from),
            sid::format_token(level, to)
        ),
        LastCode::Unrelated => "other prefix".into(),
    }
}

/// Groupmates as `1943, 77 (+3 more)` when there are more than `show`; `—` when alone.
pub fn groupmates_text(view: &ItemAcross, variant: &ItemVariant, show: usize) -> String {
    let mates: Vec<&str> = variant
        .group
        .iter()
        .map(String::as_str)
        .filter(|id| *id != view.item)
        .collect();
    if mates.is_empty() {
        return "—".into();
    }
    let mut text = mates[..mates.len().min(show)].join(", ");
    if mates.len() > show {
        text.push_str(&format!(" (+{} more)", mates.len() - show));
    }
    text
}

/// One row per tokenizer: name, SID, group size, last code against the native sibling,
/// groupmates (at most `show` listed).
pub fn table(view: &ItemAcross, show: usize) -> Table {
    let mut t = Table::new(&[
        ("tokenizer", Align::Left),
        ("SID", Align::Left),
        ("group", Align::Right),
        ("last code", Align::Left),
        ("groupmates", Align::Left),
    ]);
    for v in &view.variants {
        t.push(vec![
            v.name.clone(),
            v.sid.clone(),
            v.group_size.to_string(),
            last_code_text(view, v),
            groupmates_text(view, v, show),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(name: &str, codes: &[u16], group: &[&str]) -> ItemVariant {
        ItemVariant {
            name: name.into(),
            sid: sid::format_sid(codes),
            codes: codes.to_vec(),
            group_size: group.len(),
            group: group.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn rows_say_who_moved_and_who_shares() {
        let view = ItemAcross {
            item: "14".into(),
            variants: vec![
                variant("rk_native", &[1, 2, 3, 4], &["14", "1943", "7", "8"]),
                variant("rk_zcr", &[1, 2, 3, 9], &["14"]),
            ],
        };
        let t = table(&view, 2);
        assert_eq!(t.rows[0][3], "");
        assert_eq!(t.rows[0][4], "1943, 7 (+1 more)");
        assert_eq!(t.rows[1][3], "moved <d_4>→<d_9>");
        assert_eq!(t.rows[1][4], "—");
    }
}
