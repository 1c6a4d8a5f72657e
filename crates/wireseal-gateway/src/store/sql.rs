//! The statements that write a batch, per database. Every value is a
//! parameter; the rules they carry are the same in both:
//!
//! - a packet row is written once per (`from_node`, `packet_id`), where
//!   `packet_id` is the packet's id or, for a packet without one, a negative
//!   key of its content; a later copy
//!   replaces its content only when the stored one was not decoded and the
//!   new one was (the first decoded content is kept);
//! - a reception is written once per (packet, gateway, relay, transport);
//! - a node's first and last seen widen; the first key stored is pinned and
//!   never replaced; names and identity are taken from an update whose key is
//!   the pinned key (or that has no key while none is pinned), so a NodeInfo
//!   announcing another key cannot rename the node;
//! - every (node, key) announced is kept in `node_keys`, and
//!   `nodes.key_conflicts` is the number of those keys other than the pinned
//!   one, recounted (so writing a batch twice counts nothing twice);
//! - when a key is stored for a node for the first time, the nodes that pin
//!   it are linked to the node numbered `crc32` of it, the number firmware
//!   2.8 gives it (`renumbered_to` on the older, `renumbered_from` on the
//!   new), whichever of the two was stored first.

/// Columns of `packets`, in the order the statements bind them.
pub(super) const PACKET_COLUMNS: &str = "from_node, packet_id, to_node, channel_id, decryption, \
     channel_name, portnum, payload, text, signature, identity, error, our_node, first_seen_ms";

/// Columns of `receptions`, in the order the statements bind them.
pub(super) const RECEPTION_COLUMNS: &str = "from_node, packet_id, gateway_id, relay_node, \
     transport, topic, rx_time_ms, rx_time, rssi, snr, hop_start, hop_limit";

const PACKET_CONFLICT: &str = "ON CONFLICT (from_node, packet_id) DO UPDATE SET
    to_node = excluded.to_node, channel_id = excluded.channel_id,
    decryption = excluded.decryption, channel_name = excluded.channel_name,
    portnum = excluded.portnum, payload = excluded.payload, text = excluded.text,
    signature = excluded.signature, identity = excluded.identity, error = excluded.error,
    our_node = excluded.our_node
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

/// Links the nodes pinning key `{K}` to node `{C}` (`crc32` of the key) when
/// `{C}` pins it too: the older numbers get `renumbered_to`, `{C}` gets
/// `renumbered_from` (the highest other number, when several).
const LINK: &str = "UPDATE nodes SET renumbered_to = {C}
    WHERE public_key = {K} AND node <> {C}
    AND EXISTS (SELECT 1 FROM nodes c WHERE c.node = {C} AND c.public_key = {K});
UPDATE nodes SET renumbered_from = (SELECT max(o.node) FROM nodes o
    WHERE o.public_key = {K} AND o.node <> {C})
    WHERE node = {C} AND public_key = {K}
    AND EXISTS (SELECT 1 FROM nodes o WHERE o.public_key = {K} AND o.node <> {C})";

/// SQLite: one row per execution of a prepared statement.
pub(super) mod sqlite {
    use super::*;

    /// Upserts one packet (14 parameters, [`PACKET_COLUMNS`]).
    pub fn packet() -> String {
        format!(
            "INSERT INTO packets ({PACKET_COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) {PACKET_CONFLICT}"
        )
    }

    /// The two statements of the renumbering link: `?1` the `crc32` node,
    /// `?2` the key.
    pub fn link() -> [String; 2] {
        let sql = LINK.replace("{C}", "?1").replace("{K}", "?2");
        let mut it = sql.split(';').map(|s| s.trim().to_owned());
        [it.next().unwrap_or_default(), it.next().unwrap_or_default()]
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

    /// The oldest packets first seen before `?1`, at most `?2`.
    pub const PRUNE_PICK: &str = "SELECT from_node, packet_id FROM packets \
        WHERE first_seen_ms < ?1 ORDER BY first_seen_ms LIMIT ?2";
    /// The receptions of one packet.
    pub const PRUNE_RECEPTIONS: &str =
        "DELETE FROM receptions WHERE from_node = ?1 AND packet_id = ?2";
    /// One packet.
    pub const PRUNE_PACKET: &str = "DELETE FROM packets WHERE from_node = ?1 AND packet_id = ?2";
}

/// PostgreSQL: one statement per table per batch, the rows as arrays.
pub(super) mod postgres {
    use super::*;

    /// The element types of the packet arrays, in [`PACKET_COLUMNS`] order.
    pub const PACKET_TYPES: [&str; 14] = [
        "int8", "int8", "int8", "text", "text", "text", "int8", "bytea", "text", "text", "text",
        "text", "int8", "int8",
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

    /// Upserts the packets given as 14 arrays.
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

    /// Inserts the (node, key, first seen) arrays, skipping stored pairs;
    /// returns the pairs inserted.
    pub const KEYS: &str = "INSERT INTO node_keys (node, public_key, first_seen_ms) \
        SELECT * FROM unnest($1::int8[], $2::bytea[], $3::int8[]) ON CONFLICT DO NOTHING \
        RETURNING node, public_key";

    /// The renumbering link for arrays of `crc32` nodes (`$1`) and keys
    /// (`$2`), as one statement per half.
    pub fn link() -> [String; 2] {
        let each = |sql: &str| {
            format!(
                "WITH l(c, k) AS (SELECT * FROM unnest($1::int8[], $2::bytea[])) {}",
                sql.trim()
            )
        };
        [
            each(
                "UPDATE nodes SET renumbered_to = l.c FROM l
                WHERE nodes.public_key = l.k AND nodes.node <> l.c
                AND EXISTS (SELECT 1 FROM nodes c WHERE c.node = l.c AND c.public_key = l.k)",
            ),
            each(
                "UPDATE nodes SET renumbered_from = (SELECT max(o.node) FROM nodes o
                WHERE o.public_key = l.k AND o.node <> l.c)
                FROM l WHERE nodes.node = l.c AND nodes.public_key = l.k
                AND EXISTS (SELECT 1 FROM nodes o WHERE o.public_key = l.k AND o.node <> l.c)",
            ),
        ]
    }

    /// Recounts the conflicting keys of the nodes in the array.
    pub fn conflicts() -> String {
        format!("{CONFLICTS} WHERE node = ANY($1::int8[])")
    }

    /// Removes the oldest packets first seen before `$1`, at most `$2`, and
    /// their receptions; returns the packets and receptions removed.
    pub const PRUNE: &str = "WITH p AS (SELECT from_node, packet_id FROM packets \
        WHERE first_seen_ms < $1 ORDER BY first_seen_ms LIMIT $2), \
        r AS (DELETE FROM receptions USING p WHERE receptions.from_node = p.from_node \
        AND receptions.packet_id = p.packet_id RETURNING 1), \
        d AS (DELETE FROM packets USING p WHERE packets.from_node = p.from_node \
        AND packets.packet_id = p.packet_id RETURNING 1) \
        SELECT (SELECT count(*) FROM d)::int8, (SELECT count(*) FROM r)::int8";
}
