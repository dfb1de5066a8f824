//! `diff` on the paper's Beauty case study (`../shared/reference/CollisionGenRec`): items 14 and
//! 1943 share a SID in `rkmeans_native`; `rkmeans_zcr` moves 14 to code 111, 1943 keeps 206.

use sidlens::diff::diff;
use sidlens::load::SidIndex;

mod common;

#[test]
fn beauty_case_study() {
    let Some(root) = common::reference() else {
        return;
    };
    let dir = root.join("CollisionGenRec/data/Beauty/indexes");
    let native = SidIndex::load(&dir.join("rkmeans_native/Beauty.index.json"), None).unwrap();
    let zcr = SidIndex::load(&dir.join("rkmeans_zcr/Beauty.index.json"), None).unwrap();
    for id in ["14", "1943"] {
        let p = native.ids().position(id).unwrap();
        assert_eq!(native.sid_string(p), "<a_127><b_244><c_179><d_206>");
    }
    let d = diff(&native, &zcr).unwrap();
    let c14 = d.changes.iter().find(|c| c.item == "14").unwrap();
    assert_eq!(
        (c14.from.as_slice(), c14.to.as_slice()),
        (&[127, 244, 179, 206][..], &[127, 244, 179, 111][..])
    );
    assert!(d.changes.iter().all(|c| c.item != "1943"));
    assert_eq!(
        (d.n_items, d.prefix_changed, d.last_changed),
        (12_101, 0, 1574)
    );
    assert_eq!(d.min_changes, 1574);
    assert!(d.valid_zcr);
    assert_eq!(d.collision_rate_after, 0.0);
    assert!(d.collision_rate_before > 0.0);
    // The other way round the prefixes are kept, but the native index has collisions.
    assert!(!diff(&zcr, &native).unwrap().valid_zcr);
}
