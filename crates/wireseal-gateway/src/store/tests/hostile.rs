//! Bad input, run against SQLite and PostgreSQL: hostile values stored
//! safely, and rows the database refuses isolated from their batch.

use super::probe::{node_text, packet_text, write, Probe};
use super::*;
use crate::store::{Store, MAX_ID, MAX_NAME, MAX_PAYLOAD};

/// SQL-looking strings, invalid UTF-8, NUL and huge fields in one batch
/// beside ordinary records: stored as text (capped), or the one record that
/// cannot be stored counted as rejected; the batch goes through.
pub fn hostile_rows(store: &mut Store, p: &mut dyn Probe) {
    let sql = "'); DROP TABLE packets; --";
    let mut inject = node_info(
        0x5002,
        2,
        GW[0],
        10,
        Some(key(9)),
        (b"Robert'); DROP TABLE nodes;--", b"';--"),
        "matches",
    );
    inject.packet.text = Some(sql.as_bytes().to_vec());
    inject.packet.channel_id = "x'; DELETE FROM receptions; --".into();
    inject.reception.gateway_id = "!gw\"; --".into();
    inject.reception.topic = "msh/'OR'1'='1".into();
    let mut bad_utf8 = node_info(
        0x5003,
        3,
        GW[0],
        10,
        None,
        (b"\xff\xfeBad\xc3", b"\x80"),
        "legacy",
    );
    bad_utf8.packet.text = Some(b"caf\xe9".to_vec());
    let mut nul = node_info(0x5004, 4, GW[0], 10, None, (b"Nul\0Name", b"\0"), "legacy");
    nul.packet.channel_id = "Long\0Fast".into();
    nul.packet.text = Some(b"a\0b".to_vec());
    let mut huge = node_info(
        0x5005,
        5,
        GW[0],
        10,
        None,
        (&[b'A'; 1 << 20], b"S"),
        "legacy",
    );
    huge.packet.text = Some(vec![b'T'; 100_000]);
    huge.packet.payload = Some(vec![7; 100_000]);
    huge.reception.topic = "t".repeat(10_000);
    huge.reception.gateway_id = "g".repeat(1_000);
    let mut late = text(0x5006, 6, GW[0], 10, "time out of range");
    late.reception.rx_time_ms = u64::MAX;
    let batch = [
        text(0x5001, 1, GW[0], 10, "ordinary"),
        inject,
        bad_utf8,
        nul,
        huge,
        late,
        text(0x5007, 7, GW[0], 10, "ordinary too"),
    ];
    let c = write(store, &batch);
    assert_eq!(c.rejected.len(), 1, "{:?}", c.rejected);
    assert_eq!(c.rejected[0].index, 5);
    assert!(
        c.rejected[0].reason.contains("out of range"),
        "{:?}",
        c.rejected
    );
    assert_eq!((c.packets, c.receptions), (6, 6));
    assert!(c.capped >= 10, "capped {}", c.capped);
    assert_eq!(p.count("SELECT count(*) FROM packets"), 6);
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 6);
    assert_eq!(p.count("SELECT count(*) FROM nodes"), 6);
    assert_eq!(packet_text(p, "text", 0x5002).as_deref(), Some(sql));
    assert_eq!(
        packet_text(p, "channel_id", 0x5002).as_deref(),
        Some("x'; DELETE FROM receptions; --")
    );
    assert_eq!(
        node_text(p, "long_name", 0x5002).as_deref(),
        Some("Robert'); DROP TABLE nodes;--")
    );
    assert_eq!(
        p.text("SELECT topic FROM receptions WHERE from_node = 20482")
            .as_deref(),
        Some("msh/'OR'1'='1")
    );
    assert_eq!(
        node_text(p, "long_name", 0x5003).as_deref(),
        Some("\u{fffd}\u{fffd}Bad\u{fffd}")
    );
    assert_eq!(
        packet_text(p, "text", 0x5003).as_deref(),
        Some("caf\u{fffd}")
    );
    assert_eq!(
        node_text(p, "long_name", 0x5004).as_deref(),
        Some("Nul\u{fffd}Name")
    );
    assert_eq!(
        packet_text(p, "channel_id", 0x5004).as_deref(),
        Some("Long\u{fffd}Fast")
    );
    let len = |p: &mut dyn Probe, sql: &str| p.int(sql).unwrap() as usize;
    assert_eq!(
        len(p, "SELECT length(long_name) FROM nodes WHERE node = 20485"),
        MAX_NAME
    );
    assert_eq!(
        len(
            p,
            "SELECT length(payload) FROM packets WHERE from_node = 20485"
        ),
        MAX_PAYLOAD
    );
    assert_eq!(
        len(
            p,
            "SELECT length(gateway_id) FROM receptions WHERE from_node = 20485"
        ),
        MAX_ID
    );
}

/// Rows the database itself refuses (test constraints on receptions and on
/// nodes) are isolated and counted; the rest of their batch is committed.
pub fn refused_row_isolated(store: &mut Store, p: &mut dyn Probe) {
    let refuse = match p.dialect() {
        "sqlite" => {
            "CREATE TRIGGER refuse BEFORE INSERT ON receptions \
             WHEN NEW.gateway_id = '!refused' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
             CREATE TRIGGER refuse_name BEFORE INSERT ON nodes \
             WHEN NEW.long_name = 'Refused' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"
        }
        _ => {
            "ALTER TABLE receptions ADD CONSTRAINT refuse CHECK (gateway_id <> '!refused');
             ALTER TABLE nodes ADD CONSTRAINT refuse_name CHECK (long_name <> 'Refused')"
        }
    };
    p.exec(refuse);
    let batch: Vec<Record> = (0..100u32)
        .map(|i| match i {
            17 | 64 => text(0x6000 + i, i, "!refused", 10, "batch"),
            80 => node_info(
                0x6000 + i,
                i,
                GW[0],
                10,
                Some(key(80)),
                (b"Refused", b"RF"),
                "matches",
            ),
            _ => text(0x6000 + i, i, GW[0], 10, "batch"),
        })
        .collect();
    let c = write(store, &batch);
    let idx: Vec<usize> = c.rejected.iter().map(|r| r.index).collect();
    assert_eq!(idx, [17, 64, 80], "{:?}", c.rejected);
    assert_eq!((c.packets, c.receptions), (97, 97));
    assert_eq!(p.count("SELECT count(*) FROM packets"), 97);
    assert_eq!(
        p.count("SELECT count(*) FROM packets WHERE from_node IN (24593, 24640, 24656)"),
        0
    );
    assert_eq!(p.count("SELECT count(*) FROM nodes"), 97);
}
