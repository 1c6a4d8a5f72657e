//! A large store for the read side's rows, written straight in SQL (one
//! `INSERT … SELECT` per table over a generated series, not through MQTT):
//! the gateway's own schema first ([`Store::open`]), then `packets` packets
//! spread over the last seven days from `NODES` nodes (one in ten signed,
//! one in seven on a second channel), one to three receptions each, and
//! the nodes with names, keys and last-seen times.

use crate::peers::Skip;
use wireseal_gateway::store::{Store, StoreUrl};
use wireseal_testkit::db::Db;

/// Nodes in the store.
pub(crate) const NODES: u64 = 10_000;
/// The stored nodes' numbers start here (the bench feed's never do).
pub(crate) const FIRST_NODE: u64 = 0x7000_0000;
const WEEK_MS: u64 = 7 * 86_400_000;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The statements that fill a store with `packets` packets and [`NODES`]
/// nodes, for PostgreSQL or SQLite.
pub(crate) fn sql(packets: u64, postgres: bool) -> String {
    let t0 = now_ms() - WEEK_MS;
    // Packet i is first seen at t0 + i * step: the newest a minute ago.
    let step = (WEEK_MS - 60_000) / packets.max(1);
    let series = |n: u64| match postgres {
        true => format!("generate_series(1, {n}) AS g(i)"),
        false => format!("s{n}"),
    };
    let with = |n: u64| match postgres {
        true => String::new(),
        false => format!(
            "WITH RECURSIVE s{n}(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s{n} WHERE i < {n}) "
        ),
    };
    let (blob16, blob32) = match postgres {
        true => (
            "decode(md5(i::text), 'hex')",
            "decode(md5(i::text) || md5((i + 1)::text), 'hex')",
        ),
        false => ("randomblob(16)", "randomblob(32)"),
    };
    let mut s = format!(
        "{w}INSERT INTO packets (from_node, packet_id, to_node, channel_id, decryption, portnum, \
         payload, text, signature, first_seen_ms) SELECT {FIRST_NODE} + i % {NODES}, i, 4294967295, \
         CASE WHEN i % 7 = 0 THEN 'MediumFast' ELSE 'LongFast' END, 'channel', 1, {blob16}, \
         'bench message ' || i, CASE WHEN i % 10 = 0 THEN 'valid' ELSE 'absent' END, \
         {t0} + i * {step} FROM {s};\n",
        w = with(packets),
        s = series(packets),
    );
    for (g, every) in [("!b3c4d5e6", 1), ("!b3c4d5e7", 2), ("!b3c4d5e8", 3)] {
        s += &format!(
            "{w}INSERT INTO receptions (from_node, packet_id, gateway_id, relay_node, transport, \
             topic, rx_time_ms, rssi, snr, hop_start, hop_limit) SELECT {FIRST_NODE} + i % {NODES}, \
             i, '{g}', 0, 0, 'msh/US/2/e/LongFast/{g}', {t0} + i * {step} + 40, -90 - i % 30, \
             5.5, 3, 2 FROM {s} WHERE i % {every} = 0;\n",
            w = with(packets),
            s = series(packets),
        );
    }
    // Node k last sent packet k + j * NODES for the largest such j.
    let last =
        |col: &str| format!("{t0} + ({col} + (({packets} - {col}) / {NODES}) * {NODES}) * {step}");
    s += &format!(
        "{w}INSERT INTO nodes (node, public_key, long_name, short_name, first_seen_ms, \
         last_seen_ms, identity, key_conflicts) SELECT {FIRST_NODE} + i % {NODES}, {blob32}, \
         'Bench node ' || i, 'B' || (i % 100), {t0} + i * {step}, {last}, 'matches', 0 FROM {s};\n",
        w = with(NODES),
        s = series(NODES),
        last = last("i"),
    );
    s
}

/// A store at `url` with the gateway's schema, filled by [`sql`].
///
/// # Errors
/// The store cannot be opened (the row is skipped).
pub(crate) fn fill(url: &str, db: &Db, packets: u64) -> Result<(), Skip> {
    let u: StoreUrl = url.parse().map_err(|e| Skip::new(format!("{e}")))?;
    drop(Store::open(&u).map_err(|e| Skip::new(format!("{e}")))?);
    let postgres = matches!(db, Db::Pg(_));
    db.exec(&sql(packets, postgres));
    match postgres {
        true => db.exec("ANALYZE"),
        false => db.exec("PRAGMA wal_checkpoint(TRUNCATE); ANALYZE"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_store_has_what_it_says() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fill.db");
        let db = Db::Sqlite(path.clone());
        fill(&format!("sqlite:{}", path.display()), &db, 30_000).unwrap();
        assert_eq!(db.count("SELECT count(*) FROM packets"), 30_000);
        assert_eq!(db.count("SELECT count(*) FROM nodes"), NODES);
        // 1 + 1/2 + 1/3 receptions per packet.
        assert_eq!(db.count("SELECT count(*) FROM receptions"), 55_000);
        assert_eq!(
            db.count("SELECT count(*) FROM packets WHERE signature = 'valid'"),
            3_000
        );
        // Every node's last-seen time is that of its newest packet.
        assert_eq!(
            db.count(
                "SELECT count(*) FROM nodes n WHERE last_seen_ms <> \
                 (SELECT max(first_seen_ms) FROM packets p WHERE p.from_node = n.node)"
            ),
            0
        );
        let newest = db.count("SELECT max(first_seen_ms) FROM packets");
        assert!(newest <= now_ms() && newest + 3_600_000 > now_ms());
    }
}
