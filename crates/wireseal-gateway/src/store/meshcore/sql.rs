//! The statements that write and prune MeshCore rows, per database. Every
//! value is a parameter; the rules they carry are the same in both:
//!
//! - a packet row is written once per hash; a later copy replaces its
//!   content only when the stored one was not opened and the new one was;
//! - a reception is written once per (hash, observer, path, direction);
//! - a node's first seen widens; its last heard moves on with every
//!   verified advert and every message we opened from it (a forged advert
//!   only sets it on a new row); its name, type, location and advert time
//!   come from the verified advert with the latest timestamp; its signature
//!   is `valid` once a verified advert was stored, else `invalid` when
//!   forged adverts name it.

/// Columns of `meshcore_packets`, in the order the statements bind them.
pub const PACKET_COLUMNS: &str = "hash, payload_type, route, payload_len, channel_hash, \
     channel_name, src_hash, dst_hash, sender, our_key, decrypted, signature, text, record, \
     first_seen_ms";

/// Columns of `meshcore_receptions`, in the order the statements bind them.
pub const RECEPTION_COLUMNS: &str =
    "hash, observer_id, path, direction, topic, rx_time_ms, snr, rssi";

/// Columns of `meshcore_nodes`, in the order the statements bind them.
pub const NODE_COLUMNS: &str = "public_key, name, node_type, lat_e6, lon_e6, \
     advert_timestamp, signature, first_seen_ms, last_heard_ms";

const PACKET_CONFLICT: &str = "ON CONFLICT (hash) DO UPDATE SET
    payload_type = excluded.payload_type, route = excluded.route,
    payload_len = excluded.payload_len, channel_hash = excluded.channel_hash,
    channel_name = excluded.channel_name, src_hash = excluded.src_hash,
    dst_hash = excluded.dst_hash, sender = excluded.sender, our_key = excluded.our_key,
    decrypted = excluded.decrypted, signature = excluded.signature, text = excluded.text,
    record = excluded.record
    WHERE meshcore_packets.decrypted = 0 AND excluded.decrypted = 1";

/// The node upsert's SET clause; `{LEAST}` and `{GREATEST}` are the
/// dialect's spellings.
const NODE_CONFLICT: &str = "ON CONFLICT (public_key) DO UPDATE SET
    first_seen_ms = {LEAST}(n.first_seen_ms, excluded.first_seen_ms),
    last_heard_ms = CASE WHEN excluded.signature = 'invalid' THEN n.last_heard_ms
        ELSE {GREATEST}(n.last_heard_ms, excluded.last_heard_ms) END,
    name = CASE WHEN {NEWER} THEN excluded.name ELSE n.name END,
    node_type = CASE WHEN {NEWER} THEN excluded.node_type ELSE n.node_type END,
    lat_e6 = CASE WHEN {NEWER} THEN excluded.lat_e6 ELSE n.lat_e6 END,
    lon_e6 = CASE WHEN {NEWER} THEN excluded.lon_e6 ELSE n.lon_e6 END,
    advert_timestamp = CASE WHEN {NEWER} THEN excluded.advert_timestamp
        ELSE n.advert_timestamp END,
    signature = CASE WHEN excluded.signature = 'valid' OR n.signature = 'valid' THEN 'valid'
        ELSE coalesce(excluded.signature, n.signature) END";

/// A verified advert at least as new as the stored one.
const NEWER: &str =
    "(excluded.signature = 'valid' AND excluded.advert_timestamp >= coalesce(n.advert_timestamp, -1))";

fn node_conflict(least: &str, greatest: &str) -> String {
    NODE_CONFLICT
        .replace("{NEWER}", NEWER)
        .replace("{LEAST}", least)
        .replace("{GREATEST}", greatest)
}

/// SQLite: one row per execution of a prepared statement.
pub(in crate::store) mod sqlite {
    use super::*;

    /// Upserts one packet (15 parameters, [`PACKET_COLUMNS`]).
    pub fn packet() -> String {
        format!(
            "INSERT INTO meshcore_packets ({PACKET_COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) {PACKET_CONFLICT}"
        )
    }

    /// Inserts one reception unless stored (8 parameters, [`RECEPTION_COLUMNS`]).
    pub fn reception() -> String {
        format!(
            "INSERT INTO meshcore_receptions ({RECEPTION_COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING"
        )
    }

    /// Upserts one node (9 parameters, [`NODE_COLUMNS`]).
    pub fn node() -> String {
        format!(
            "INSERT INTO meshcore_nodes AS n ({NODE_COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) {}",
            node_conflict("min", "max")
        )
    }

    /// The oldest packets first seen before `?1`, at most `?2`.
    pub const PRUNE_PICK: &str = "SELECT hash FROM meshcore_packets \
        WHERE first_seen_ms < ?1 ORDER BY first_seen_ms LIMIT ?2";
    /// The receptions of one packet.
    pub const PRUNE_RECEPTIONS: &str = "DELETE FROM meshcore_receptions WHERE hash = ?1";
    /// One packet.
    pub const PRUNE_PACKET: &str = "DELETE FROM meshcore_packets WHERE hash = ?1";
}

/// PostgreSQL: one statement per table per batch, the rows as arrays.
pub(in crate::store) mod postgres {
    use super::*;

    /// The element types of the packet arrays, in [`PACKET_COLUMNS`] order.
    pub const PACKET_TYPES: [&str; 15] = [
        "int8", "text", "text", "int8", "int8", "text", "int8", "int8", "bytea", "bytea", "int4",
        "text", "text", "text", "int8",
    ];

    /// The element types of the reception arrays, in [`RECEPTION_COLUMNS`] order.
    pub const RECEPTION_TYPES: [&str; 8] = [
        "int8", "text", "text", "text", "text", "int8", "float4", "int4",
    ];

    /// The element types of the node arrays, in [`NODE_COLUMNS`] order.
    pub const NODE_TYPES: [&str; 9] = [
        "bytea", "text", "text", "int8", "int8", "int8", "text", "int8", "int8",
    ];

    fn unnest(types: &[&str]) -> String {
        let args: Vec<String> = types
            .iter()
            .enumerate()
            .map(|(i, t)| format!("${}::{t}[]", i + 1))
            .collect();
        format!("SELECT * FROM unnest({})", args.join(", "))
    }

    /// Upserts the packets given as 15 arrays.
    pub fn packets() -> String {
        format!(
            "INSERT INTO meshcore_packets ({PACKET_COLUMNS}) {} {PACKET_CONFLICT}",
            unnest(&PACKET_TYPES)
        )
    }

    /// Inserts the receptions given as 8 arrays, skipping stored ones
    /// (`skip`) or failing on them.
    pub fn receptions(skip: bool) -> String {
        format!(
            "INSERT INTO meshcore_receptions ({RECEPTION_COLUMNS}) {}{}",
            unnest(&RECEPTION_TYPES),
            if skip { " ON CONFLICT DO NOTHING" } else { "" }
        )
    }

    /// Upserts the nodes given as 9 arrays.
    pub fn nodes() -> String {
        format!(
            "INSERT INTO meshcore_nodes AS n ({NODE_COLUMNS}) {} {}",
            unnest(&NODE_TYPES),
            node_conflict("least", "greatest")
        )
    }

    /// Removes the oldest packets first seen before `$1`, at most `$2`, and
    /// their receptions; returns the packets and receptions removed.
    pub const PRUNE: &str = "WITH p AS (SELECT hash FROM meshcore_packets \
        WHERE first_seen_ms < $1 ORDER BY first_seen_ms LIMIT $2), \
        r AS (DELETE FROM meshcore_receptions USING p WHERE meshcore_receptions.hash = p.hash \
        RETURNING 1), \
        d AS (DELETE FROM meshcore_packets USING p WHERE meshcore_packets.hash = p.hash \
        RETURNING 1) \
        SELECT (SELECT count(*) FROM d)::int8, (SELECT count(*) FROM r)::int8";
}
