//! The migration scenario, run against SQLite and PostgreSQL: a version-1
//! database with rows, migrated by opening the store.

use super::probe::Probe;
use super::*;
use crate::store::Store;

/// A database an earlier release wrote (`tests/data/`), and what must hold
/// once the store has migrated it.
pub struct Release {
    /// Its schema version.
    pub version: i64,
    /// The SQLite file.
    pub sqlite: &'static str,
    /// The PostgreSQL dump.
    pub postgres: &'static str,
    /// The checks on the migrated database.
    pub check: fn(&mut Store, &mut dyn Probe, &[String]),
}

/// The earlier releases' databases the tests migrate.
pub const RELEASES: [Release; 2] = [
    Release {
        version: 2,
        sqlite: "store-v2.sqlite",
        postgres: "store-v2-postgres.sql",
        check: migrated_release,
    },
    Release {
        version: 4,
        sqlite: "store-v4.sqlite",
        postgres: "store-v4-postgres.sql",
        check: migrated_last_release,
    },
];

/// `tests/data/<name>`.
pub fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn write(store: &mut Store, batch: &[Record]) -> crate::store::Committed {
    store.write_batch(batch).expect("batch committed")
}

/// Fills a version-1 database with rows.
pub fn fill_v1(p: &mut dyn Probe) {
    let (hi, k7) = match p.dialect() {
        "sqlite" => ("X'6869'".to_owned(), format!("X'{}'", "07".repeat(32))),
        _ => (
            "'\\x6869'::bytea".to_owned(),
            format!("'\\x{}'::bytea", "07".repeat(32)),
        ),
    };
    p.exec(&format!(
        "INSERT INTO packets (from_node, packet_id, to_node, channel_id, decryption, portnum, \
         payload, text, first_seen_ms) VALUES (7001, 1, 4294967295, 'LongFast', 'channel', 1, \
         {hi}, 'hi', 500);
         INSERT INTO receptions (from_node, packet_id, gateway_id, topic, rx_time_ms, rssi, snr, \
         hop_start, hop_limit) VALUES (7001, 1, '!0000a001', 'msh/a', 500, -90, 5.5, 3, 3), \
         (7001, 1, '!0000a002', 'msh/b', 510, -80, 4.5, 3, 2);
         INSERT INTO nodes (node, public_key, long_name, short_name, first_seen_ms, last_seen_ms) \
         VALUES (7001, {k7}, 'Old Node', 'ON', 400, 500);"
    ));
}

/// After migrating [`fill_v1`]'s database: its rows kept, the new columns
/// usable, the schema the same as a new database's (`fresh`).
pub fn migrated_v1(store: &mut Store, p: &mut dyn Probe, fresh: &[String]) {
    assert_eq!(
        p.int("SELECT max(version) FROM schema_version"),
        Some(crate::store::schema::CURRENT)
    );
    assert_eq!(
        p.count("SELECT count(*) FROM schema_version"),
        crate::store::schema::CURRENT
    );
    assert_eq!(p.schema(), fresh, "migrated schema differs from a new one");
    assert_eq!(
        p.text("SELECT text FROM packets WHERE from_node = 7001")
            .as_deref(),
        Some("hi")
    );
    assert_eq!(
        p.text("SELECT signature FROM packets WHERE from_node = 7001"),
        None
    );
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 2);
    assert_eq!(
        p.count("SELECT count(*) FROM receptions WHERE relay_node = 0 AND transport = 0"),
        2
    );
    assert_eq!(
        p.int("SELECT rssi FROM receptions WHERE gateway_id = '!0000a002'"),
        Some(-80)
    );
    assert_eq!(
        p.text("SELECT long_name FROM nodes WHERE node = 7001")
            .as_deref(),
        Some("Old Node")
    );
    assert_eq!(p.int("SELECT key_conflicts FROM nodes"), Some(0));
    assert_eq!(p.count("SELECT count(*) FROM node_keys"), 1);
    let mut old = text(7001, 1, GW[0], 600, "hi");
    old.reception.relay_node = 0;
    old.reception.transport = 0;
    let mut relayed = old.clone();
    relayed.reception.relay_node = 0x11;
    let newcomer = node_info(
        7001,
        2,
        GW[0],
        700,
        Some(key(8)),
        (b"New", b"NW"),
        "mismatch",
    );
    let c = write(store, &[old, relayed, newcomer]);
    assert_eq!((c.packets, c.receptions, c.duplicates), (1, 2, 1));
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 4);
    assert_eq!(p.int("SELECT key_conflicts FROM nodes"), Some(1));
    assert_eq!(
        p.text("SELECT long_name FROM nodes WHERE node = 7001")
            .as_deref(),
        Some("Old Node")
    );
    assert_eq!(
        p.int("SELECT last_seen_ms FROM nodes WHERE node = 7001"),
        Some(700)
    );
}

/// The stored outcome words are the library's, in one casing: no hyphen
/// left, `errors` and `unknown_key` signatures counted as the release wrote
/// them in kebab-case.
fn renamed(p: &mut dyn Probe, errors: &[(&str, i64)], unknown_key: i64) {
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE error LIKE '%-%' OR signature LIKE '%-%'"),
        0
    );
    for (word, n) in errors {
        let sql = format!("SELECT count(*) FROM packets WHERE error = '{word}'");
        assert_eq!(p.count(&sql), *n, "{word}");
    }
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE signature = 'unknown_key'"),
        unknown_key
    );
}

/// After migrating the databases the release before schema version 5 wrote
/// (`tests/data/store-v4.*`: that release's gateway fed `feed.py`'s traffic
/// under three channel lists, with NodeInfo left out of one, then the
/// MeshCore feed test's traffic): every row of every table kept, the outcome
/// words renamed, the schema the same as a new database's, and the store
/// writing on.
pub fn migrated_last_release(store: &mut Store, p: &mut dyn Probe, fresh: &[String]) {
    assert_eq!(
        p.int("SELECT max(version) FROM schema_version"),
        Some(crate::store::schema::CURRENT)
    );
    assert_eq!(p.schema(), fresh, "migrated schema differs from a new one");
    for (table, n) in [
        ("packets", 69),
        ("receptions", 70),
        ("nodes", 13),
        ("node_keys", 4),
        ("meshcore_packets", 9),
        ("meshcore_receptions", 16),
        ("meshcore_nodes", 3),
    ] {
        assert_eq!(
            p.count(&format!("SELECT count(*) FROM {table}")),
            n,
            "{table}"
        );
    }
    renamed(
        p,
        &[
            ("no_channel", 8),
            ("pkc_not_for_us", 8),
            ("wrong_channel_key", 4),
        ],
        8,
    );
    assert_eq!(
        p.count("SELECT count(*) FROM meshcore_packets WHERE decrypted = 1"),
        5
    );
    let mut fresh_packet = text(0x2000, 9001, GW[0], 900, "after the migration");
    fresh_packet.packet.error = Some("no_channel".into());
    let c = write(store, &[fresh_packet]);
    assert_eq!((c.packets, c.receptions), (1, 1));
    assert_eq!(p.count("SELECT count(*) FROM packets"), 70);
}

/// After migrating the database the release of schema version 2 wrote
/// (`tests/data/store-v2.*`: `feed.py`'s traffic and three map reports of one
/// node, which that release folded into one row): every row kept, the
/// decryption outcome renamed, the schema the same as a new database's, and
/// new map reports stored one row each beside the old one.
pub fn migrated_release(store: &mut Store, p: &mut dyn Probe, fresh: &[String]) {
    assert_eq!(
        p.int("SELECT max(version) FROM schema_version"),
        Some(crate::store::schema::CURRENT)
    );
    assert_eq!(p.schema(), fresh, "migrated schema differs from a new one");
    assert_eq!(p.count("SELECT count(*) FROM packets"), 33);
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 33);
    assert_eq!(p.count("SELECT count(*) FROM nodes"), 5);
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE decryption = 'no'"),
        0
    );
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE decryption = 'none'"),
        8
    );
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE packet_id = 0 AND portnum = 73"),
        1
    );
    renamed(p, &[("pkc_not_for_us", 4), ("wrong_channel_key", 4)], 0);
    let report = |key: i64, body: &str| {
        let mut r = text(0x3003, 0, GW[0], 900, "");
        r.packet.key = key;
        r.packet.decryption = "plain".into();
        r.packet.portnum = Some(73);
        r.packet.payload = Some(body.as_bytes().to_vec());
        r.packet.text = None;
        r
    };
    let c = write(
        store,
        &[report(-11, "report four"), report(-12, "report five")],
    );
    assert_eq!((c.packets, c.receptions), (2, 2));
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE from_node = 12291 AND portnum = 73"),
        3
    );
}
