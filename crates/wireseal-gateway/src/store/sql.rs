//! The statements that write a batch, per database. Every value is a
//! parameter; the rules they carry are the same in both:
//!
//! - a packet row is written once per (`from_node`, `packet_id`); a later copy
//!   replaces its content only when the stored one was not decoded and the
//!   new one was (the first decoded content is kept);
//! - a reception is written once per (packet, gateway, relay, transport);
//! - a node's first and last seen widen; the first key stored is pinned and
//!   never replaced; names and identity are taken from an update whose key is
//!   the pinned key (or that has no key while none is pinned), so a NodeInfo
//!   announcing another key cannot rename the node;
//! - every (node, key) announced is kept in `node_keys`, and
//!   `nodes.key_conflicts` is the number of those keys other than the pinned
//!   one, recounted (so writing a batch twice counts nothing twice).

/// Columns of `packets`, in the order the statements bind them.
pub(super) const PACKET_COLUMNS: &str = "from_node, packet_id, to_node, channel_id, decryption, \
     channel_name, portnum, payload, text, signature, identity, error, first_seen_ms";

/// Columns of `receptions`, in the order the statements bind them.
pub(super) const RECEPTION_COLUMNS: &str = "from_node, packet_id, gateway_id, relay_node, \
     transport, topic, rx_time_ms, rx_time, rssi, snr, hop_start, hop_limit";

const PACKET_CONFLICT: &str = "ON CONFLICT (from_node, packet_id) DO UPDATE SET
    to_node = excluded.to_node, channel_id = excluded.channel_id,
    decryption = excluded.decryption, channel_name = excluded.channel_name,
    portnum = excluded.portnum, payload = excluded.payload, text = excluded.text,
    signature = excluded.signature, identity = excluded.identity, error = excluded.error
    WHERE packets.portnum IS NULL AND excluded.portnum IS NOT NULL";

/// The node upsert's SET clause; `{LEAST}`, `{GREATEST}` and `{SAME}` are
/// the dialect's spellings.
const NODE_CONFLICT: &str = "ON CONFLICT (node) DO UPDATE SET
    first_seen_ms = {LEAST}(nodes.first_seen_ms, excluded.first_seen_ms),
    last_seen_ms = {GREATEST}(nodes.last_seen_ms, excluded.last_seen_ms),
    long_name = CASE WHEN excluded.public_key {SAME} coalesce(nodes.public_key, excluded.public_key)
        THEN coalesce(excluded.long_name, nodes.long_name) ELSE nodes.long_name END,
    short_name = CASE WHEN excluded.public_key {SAME} coalesce(nodes.public_key, excluded.public_key)
        THEN coalesce(excluded.short_name, nodes.short_name) ELSE nodes.short_name END,
    identity = CASE WHEN excluded.public_key {SAME} coalesce(nodes.public_key, excluded.public_key)
        THEN coalesce(excluded.identity, nodes.identity) ELSE nodes.identity END,
    public_key = coalesce(nodes.public_key, excluded.public_key)";

const NODE_COLUMNS: &str =
    "node, public_key, long_name, short_name, identity, first_seen_ms, last_seen_ms, key_conflicts";

const CONFLICTS: &str = "UPDATE nodes SET key_conflicts = (SELECT count(*) FROM node_keys k
    WHERE k.node = nodes.node AND k.public_key <> nodes.public_key)";

/// SQLite: one row per execution of a prepared statement.
pub(super) mod sqlite {
    use super::*;

    /// Upserts one packet (13 parameters, [`PACKET_COLUMNS`]).
    pub fn packet() -> String {
        format!(
            "INSERT INTO packets ({PACKET_COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) {PACKET_CONFLICT}"
        )
    }

    /// Inserts one reception unless stored (12 parameters, [`RECEPTION_COLUMNS`]).
    pub fn reception() -> String {
        format!(
            "INSERT INTO receptions ({RECEPTION_COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT DO NOTHING"
        )
    }

    /// Upserts one node: node, key, long name, short name, identity, first
    /// and last seen.
    pub fn node() -> String {
        let tail = NODE_CONFLICT
            .replace("{LEAST}", "min")
            .replace("{GREATEST}", "max")
            .replace("{SAME}", "IS");
        format!("INSERT INTO nodes ({NODE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0) {tail}")
    }

    /// Inserts one (node, key, first seen) unless stored.
    pub const KEY: &str = "INSERT INTO node_keys (node, public_key, first_seen_ms) \
                           VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING";

    /// Recounts one node's conflicting keys.
    pub fn conflicts() -> String {
        format!("{CONFLICTS} WHERE node = ?1")
    }
}

/// PostgreSQL: one statement per table per batch, the rows as arrays.
pub(super) mod postgres {
    use super::*;

    /// The element types of the packet arrays, in [`PACKET_COLUMNS`] order.
    pub const PACKET_TYPES: [&str; 13] = [
        "int8", "int8", "int8", "text", "text", "text", "int8", "bytea", "text", "text", "text",
        "text", "int8",
    ];

    /// The element types of the reception arrays, in [`RECEPTION_COLUMNS`] order.
    pub const RECEPTION_TYPES: [&str; 12] = [
        "int8", "int8", "text", "int8", "int4", "text", "int8", "int8", "int4", "float4", "int8",
        "int8",
    ];

    fn unnest(types: &[&str]) -> String {
        let args: Vec<String> = types
            .iter()
            .enumerate()
            .map(|(i, t)| format!("${}::{t}[]", i + 1))
            .collect();
        format!("SELECT * FROM unnest({})", args.join(", "))
    }

    /// Upserts the packets given as 13 arrays.
    pub fn packets_unnest() -> String {
        format!(
            "INSERT INTO packets ({PACKET_COLUMNS}) {} {PACKET_CONFLICT}",
            unnest(&PACKET_TYPES)
        )
    }

    /// Inserts the receptions given as 12 arrays, skipping stored ones
    /// (`skip`) or failing on them.
    pub fn receptions_unnest(skip: bool) -> String {
        format!(
            "INSERT INTO receptions ({RECEPTION_COLUMNS}) {}{}",
            unnest(&RECEPTION_TYPES),
            if skip { " ON CONFLICT DO NOTHING" } else { "" }
        )
    }

    /// The staging tables COPY fills (emptied at each commit).
    pub fn staging() -> String {
        let cols = |names: &str, types: &[&str]| {
            names
                .split(", ")
                .zip(types)
                .map(|(n, t)| format!("{n} {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "CREATE TEMP TABLE IF NOT EXISTS stage_packets ({}) ON COMMIT DELETE ROWS;
             CREATE TEMP TABLE IF NOT EXISTS stage_receptions ({}) ON COMMIT DELETE ROWS;",
            cols(PACKET_COLUMNS, &PACKET_TYPES),
            cols(RECEPTION_COLUMNS, &RECEPTION_TYPES)
        )
    }

    /// COPY into the packets' staging table.
    pub fn copy_packets() -> String {
        format!("COPY stage_packets ({PACKET_COLUMNS}) FROM STDIN (FORMAT binary)")
    }

    /// COPY into the receptions' staging table.
    pub fn copy_receptions() -> String {
        format!("COPY stage_receptions ({RECEPTION_COLUMNS}) FROM STDIN (FORMAT binary)")
    }

    /// Upserts the staged packets.
    pub fn packets_from_stage() -> String {
        format!(
            "INSERT INTO packets ({PACKET_COLUMNS}) SELECT {PACKET_COLUMNS} FROM stage_packets \
             {PACKET_CONFLICT}"
        )
    }

    /// Inserts the staged receptions, skipping stored ones (`skip`) or
    /// failing on them.
    pub fn receptions_from_stage(skip: bool) -> String {
        format!(
            "INSERT INTO receptions ({RECEPTION_COLUMNS}) SELECT {RECEPTION_COLUMNS} \
             FROM stage_receptions{}",
            if skip { " ON CONFLICT DO NOTHING" } else { "" }
        )
    }

    /// Upserts the nodes given as 7 arrays: node, key, long name, short name,
    /// identity, first and last seen.
    pub fn nodes() -> String {
        let tail = NODE_CONFLICT
            .replace("{LEAST}", "least")
            .replace("{GREATEST}", "greatest")
            .replace("{SAME}", "IS NOT DISTINCT FROM");
        format!(
            "INSERT INTO nodes ({NODE_COLUMNS}) SELECT n, k, ln, sn, i, f, l, 0 FROM \
             unnest($1::int8[], $2::bytea[], $3::text[], $4::text[], $5::text[], $6::int8[], \
             $7::int8[]) AS u(n, k, ln, sn, i, f, l) {tail}"
        )
    }

    /// Inserts the (node, key, first seen) arrays, skipping stored pairs.
    pub const KEYS: &str = "INSERT INTO node_keys (node, public_key, first_seen_ms) \
        SELECT * FROM unnest($1::int8[], $2::bytea[], $3::int8[]) ON CONFLICT DO NOTHING";

    /// Recounts the conflicting keys of the nodes in the array.
    pub fn conflicts() -> String {
        format!("{CONFLICTS} WHERE node = ANY($1::int8[])")
    }
}
