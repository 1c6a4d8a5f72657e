//! The store's schema, one for SQLite and PostgreSQL, as the migrations that
//! build it: a new database is taken through every version in turn, so a
//! fresh database and a migrated one have the same tables, columns and
//! indexes. `schema_version` lists the versions applied.
//!
//! Integers from the protocol are stored as BIGINT (node numbers and ids are
//! unsigned 32-bit; PostgreSQL's INTEGER is signed), times as BIGINT Unix
//! milliseconds, keys and payloads as BLOB (BYTEA in PostgreSQL).
//!
//! - Version 1: packets keyed by (`from_node`, `packet_id`), receptions keyed
//!   by (packet, `gateway_id`) (so two copies of one packet relayed by
//!   different nodes to one gateway were one row), nodes with their names
//!   and pinned key, and an index on recent packets.
//! - Version 2: signature and identity states and the decoder's error on
//!   packets; receptions keyed by (packet, gateway, relay node, transport)
//!   with the packet's own `rx_time`; node identity, `key_conflicts` and every
//!   key announced (`node_keys`); indexes for packets by sender, channel and
//!   portnum.
//! - Version 3: packets without an id keyed by their content (a negative
//!   `packet_id`; rows written before keep id 0); the node of ours a direct
//!   message was for (`packets.our_node`); nodes renumbered by firmware 2.8
//!   linked (`nodes.renumbered_from`, `nodes.renumbered_to`); the decryption
//!   outcome `no` spelled `none`, as everywhere else; nodes by last seen.
//! - Version 4: MeshCore's tables, beside Meshtastic's: `meshcore_packets`
//!   keyed by the packet hash (the 8 bytes as a signed BIGINT), with the
//!   library's JSON record, the payload type, route, channel hash and the
//!   name of our channel that opened it, the sender and our identity of an
//!   opened message, the text, and when it was first seen;
//!   `meshcore_receptions` keyed by (hash, observer, path, direction);
//!   `meshcore_nodes` keyed by public key (name, node type, location in
//!   microdegrees, last advert's timestamp, signature status, first seen,
//!   last heard); packets by first seen and nodes by last heard.
//! - Version 5: the library's outcome words in one casing (`snake_case`, as
//!   its error kinds and MeshCore's names): the stored `packets.error`
//!   (`wrong-channel-key` → `wrong_channel_key`, ...) and
//!   `packets.signature` (`unknown-key` → `unknown_key`) rewritten.

/// The version this gateway writes.
pub const CURRENT: i64 = 5;

/// Which database the statements are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

const V1: &str = "
CREATE TABLE schema_version (
    version INTEGER NOT NULL PRIMARY KEY,
    applied_ms BIGINT NOT NULL
);
CREATE TABLE packets (
    from_node BIGINT NOT NULL,
    packet_id BIGINT NOT NULL,
    to_node BIGINT NOT NULL,
    channel_id TEXT NOT NULL,
    decryption TEXT NOT NULL,
    portnum BIGINT,
    payload {BLOB},
    text TEXT,
    first_seen_ms BIGINT NOT NULL,
    CONSTRAINT packets_key PRIMARY KEY (from_node, packet_id)
);
CREATE TABLE receptions (
    from_node BIGINT NOT NULL,
    packet_id BIGINT NOT NULL,
    gateway_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    rx_time_ms BIGINT NOT NULL,
    rssi INTEGER,
    snr REAL,
    hop_start BIGINT,
    hop_limit BIGINT,
    CONSTRAINT receptions_key PRIMARY KEY (from_node, packet_id, gateway_id)
);
CREATE TABLE nodes (
    node {NODE} NOT NULL PRIMARY KEY,
    public_key {BLOB},
    long_name TEXT,
    short_name TEXT,
    first_seen_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL
);
CREATE INDEX packets_recent ON packets (first_seen_ms);
";

const V2_PACKETS_NODES: &str = "
ALTER TABLE packets ADD COLUMN channel_name TEXT;
ALTER TABLE packets ADD COLUMN signature TEXT;
ALTER TABLE packets ADD COLUMN identity TEXT;
ALTER TABLE packets ADD COLUMN error TEXT;
ALTER TABLE nodes ADD COLUMN identity TEXT;
ALTER TABLE nodes ADD COLUMN key_conflicts BIGINT NOT NULL DEFAULT 0;
CREATE TABLE node_keys (
    node BIGINT NOT NULL,
    public_key {BLOB} NOT NULL,
    first_seen_ms BIGINT NOT NULL,
    CONSTRAINT node_keys_key PRIMARY KEY (node, public_key)
);
INSERT INTO node_keys (node, public_key, first_seen_ms)
    SELECT node, public_key, first_seen_ms FROM nodes WHERE public_key IS NOT NULL;
";

/// SQLite cannot change a table's key in place: the table is rebuilt with
/// the same columns, in the order PostgreSQL's `ALTER TABLE` leaves them.
const V2_RECEPTIONS_SQLITE: &str = "
CREATE TABLE receptions_v2 (
    from_node BIGINT NOT NULL,
    packet_id BIGINT NOT NULL,
    gateway_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    rx_time_ms BIGINT NOT NULL,
    rssi INTEGER,
    snr REAL,
    hop_start BIGINT,
    hop_limit BIGINT,
    relay_node BIGINT NOT NULL DEFAULT 0,
    transport INTEGER NOT NULL DEFAULT 0,
    rx_time BIGINT,
    CONSTRAINT receptions_key
        PRIMARY KEY (from_node, packet_id, gateway_id, relay_node, transport)
);
INSERT INTO receptions_v2
    (from_node, packet_id, gateway_id, topic, rx_time_ms, rssi, snr, hop_start, hop_limit)
    SELECT from_node, packet_id, gateway_id, topic, rx_time_ms, rssi, snr, hop_start, hop_limit
    FROM receptions;
DROP TABLE receptions;
ALTER TABLE receptions_v2 RENAME TO receptions;
";

const V2_RECEPTIONS_POSTGRES: &str = "
ALTER TABLE receptions
    ADD COLUMN relay_node BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN transport INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN rx_time BIGINT;
ALTER TABLE receptions DROP CONSTRAINT receptions_key;
ALTER TABLE receptions ADD CONSTRAINT receptions_key
    PRIMARY KEY (from_node, packet_id, gateway_id, relay_node, transport);
";

const V2_INDEXES: &str = "
CREATE INDEX packets_by_from ON packets (from_node, first_seen_ms);
CREATE INDEX packets_by_channel ON packets (channel_id, first_seen_ms);
CREATE INDEX packets_by_portnum ON packets (portnum, first_seen_ms);
";

const V3: &str = "
ALTER TABLE packets ADD COLUMN our_node BIGINT;
ALTER TABLE nodes ADD COLUMN renumbered_from BIGINT;
ALTER TABLE nodes ADD COLUMN renumbered_to BIGINT;
UPDATE packets SET decryption = 'none' WHERE decryption = 'no';
CREATE INDEX nodes_by_last_seen ON nodes (last_seen_ms);
";

const V4: &str = "
CREATE TABLE meshcore_packets (
    hash {NODE} NOT NULL PRIMARY KEY,
    payload_type TEXT NOT NULL,
    route TEXT NOT NULL,
    payload_len BIGINT NOT NULL,
    channel_hash BIGINT,
    channel_name TEXT,
    src_hash BIGINT,
    dst_hash BIGINT,
    sender {BLOB},
    our_key {BLOB},
    decrypted INTEGER NOT NULL,
    signature TEXT,
    text TEXT,
    record TEXT NOT NULL,
    first_seen_ms BIGINT NOT NULL
);
CREATE TABLE meshcore_receptions (
    hash BIGINT NOT NULL,
    observer_id TEXT NOT NULL,
    path TEXT NOT NULL,
    direction TEXT NOT NULL,
    topic TEXT NOT NULL,
    rx_time_ms BIGINT NOT NULL,
    snr REAL,
    rssi INTEGER,
    CONSTRAINT meshcore_receptions_key PRIMARY KEY (hash, observer_id, path, direction)
);
CREATE TABLE meshcore_nodes (
    public_key {BLOB} NOT NULL PRIMARY KEY,
    name TEXT,
    node_type TEXT,
    lat_e6 BIGINT,
    lon_e6 BIGINT,
    advert_timestamp BIGINT,
    signature TEXT,
    first_seen_ms BIGINT NOT NULL,
    last_heard_ms BIGINT NOT NULL
);
CREATE INDEX meshcore_packets_recent ON meshcore_packets (first_seen_ms);
CREATE INDEX meshcore_nodes_by_last_heard ON meshcore_nodes (last_heard_ms);
";

/// Every word the store held in another casing was one of the library's
/// kebab-case outcome names; no stored word has a hyphen of its own.
const V5: &str = "
UPDATE packets SET error = replace(error, '-', '_') WHERE error LIKE '%-%';
UPDATE packets SET signature = 'unknown_key' WHERE signature = 'unknown-key';
";

/// The statements that take a database at version `to - 1` to `to` (without
/// the `schema_version` row, which the caller adds as a parameter).
pub(super) fn migration(d: Dialect, to: i64) -> String {
    let (blob, node) = match d {
        Dialect::Sqlite => ("BLOB", "INTEGER"),
        Dialect::Postgres => ("BYTEA", "BIGINT"),
    };
    let sql = match (to, d) {
        (1, _) => V1.to_owned(),
        (2, Dialect::Sqlite) => [V2_PACKETS_NODES, V2_RECEPTIONS_SQLITE, V2_INDEXES].concat(),
        (2, Dialect::Postgres) => [V2_PACKETS_NODES, V2_RECEPTIONS_POSTGRES, V2_INDEXES].concat(),
        (3, _) => V3.to_owned(),
        (4, _) => V4.to_owned(),
        (5, _) => V5.to_owned(),
        _ => String::new(),
    };
    sql.replace("{BLOB}", blob).replace("{NODE}", node)
}

/// Why a database at `found` cannot be taken to `target`, if it cannot.
pub(super) fn check_version(found: i64, target: i64) -> Result<(), String> {
    if found > target {
        Err(format!(
            "the database's schema is version {found}, newer than this gateway's ({target}); \
             use a newer wireseal or another database"
        ))
    } else {
        Ok(())
    }
}

/// Unix time in milliseconds (for `schema_version.applied_ms`).
pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
