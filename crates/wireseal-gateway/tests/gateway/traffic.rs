//! Envelopes the tests build with the library's encoder, and the sets of
//! packets and receptions a store must then hold.

use std::collections::BTreeSet;
use wireseal::meshtastic::envelope::{self, Data};
use wireseal_testkit::db::Db;
pub use wireseal_testkit::meshtastic::plain;

/// A LongFast text message from `from` with packet id `id`, as gateway
/// `gw` heard it through relay `relay`: its topic and envelope.
pub fn text_envelope(from: u32, id: u32, gw: &str, relay: u32) -> (String, Vec<u8>) {
    let text = format!("message {id} from {from:08x}");
    wireseal_testkit::meshtastic::text_envelope(from, id, &text, gw, relay)
}

/// A map report (`MAP_REPORT_APP`, id 0, in the clear, on `<root>/2/map/`)
/// from `from` with `body`, as gateway `gw` published it.
pub fn map_report(from: u32, body: &str, gw: &str) -> (String, Vec<u8>) {
    let data = Data {
        portnum: envelope::MAP_REPORT_APP,
        payload: envelope::encode_payload(&envelope::MapReport {
            long_name: body.into(),
            short_name: "MR".into(),
            firmware_version: "2.7.15".into(),
            latitude_i: 521_000_000,
            longitude_i: 43_000_000,
            ..Default::default()
        }),
        ..Default::default()
    };
    (
        "msh/EU_868/2/map/".into(),
        plain(from, 0, "LongFast", gw, data),
    )
}

/// The messages of a load, and the distinct (from, id) and
/// (from, id, gateway) a store must hold.
pub type Load = (
    Vec<(String, Vec<u8>)>,
    BTreeSet<(u32, i64)>,
    BTreeSet<(u32, i64, String)>,
);

/// `packets` packets from 50 nodes, each heard by every gateway of `gws`
/// (one message per gateway, gateways interleaved).
pub fn load(packets: u32, gws: &[&str]) -> Load {
    let mut msgs = Vec::new();
    let mut p = BTreeSet::new();
    let mut r = BTreeSet::new();
    for i in 0..packets {
        let from = 0x3000_0000 + i % 50;
        let id = 0x0100_0000 + i.wrapping_mul(2_654_435_761) % 0x00ff_ffff;
        p.insert((from, i64::from(id)));
        for gw in gws {
            msgs.push(text_envelope(from, id, gw, 0));
            r.insert((from, i64::from(id), (*gw).to_owned()));
        }
    }
    (msgs, p, r)
}

fn num<T: std::str::FromStr>(v: &Option<String>) -> T {
    v.as_deref()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("a number: {v:?}"))
}

/// Every stored (from, packet key).
pub fn packets(db: &Db) -> BTreeSet<(u32, i64)> {
    db.rows("SELECT CAST(from_node AS TEXT), CAST(packet_id AS TEXT) FROM packets")
        .into_iter()
        .map(|r| (num(&r[0]), num(&r[1])))
        .collect()
}

/// Every stored (from, packet key, gateway) reception, and how many rows.
pub fn receptions(db: &Db) -> (BTreeSet<(u32, i64, String)>, u64) {
    let rows = db.rows(
        "SELECT CAST(from_node AS TEXT), CAST(packet_id AS TEXT), gateway_id FROM receptions",
    );
    let n = rows.len() as u64;
    let set = rows
        .into_iter()
        .map(|r| (num(&r[0]), num(&r[1]), r[2].clone().unwrap_or_default()))
        .collect();
    (set, n)
}
