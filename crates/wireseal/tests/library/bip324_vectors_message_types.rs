//! BIP324's short message type ids against the BIP's own files: its table
//! (1 to 28) and `message_type_ids.md` (29 to 37), both ways, and the two
//! forms of a type naming the same message.

use crate::bip324_vectors_support::csv;
use crate::common;
use wireseal::bip324::message::{encode_type, parse, short_id, COMMAND_LEN, SHORT_IDS};
use wireseal::bip324::Error;

/// (id, command) of every row of the BIP's two tables.
fn bip_table() -> Vec<(u8, String)> {
    let mut rows: Vec<(u8, String)> = csv("short_ids.csv")
        .into_iter()
        .map(|r| (r["id"].parse().unwrap(), r["message"].to_lowercase()))
        .collect();
    let md = common::vector_text("bip324/message_type_ids.md");
    for line in md.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if let [id, message, _] = cells[..] {
            if let Ok(id) = id.parse::<u8>() {
                rows.push((id, message.to_string()));
            }
        }
    }
    rows
}

#[test]
fn the_table_is_the_bips() {
    let bip = bip_table();
    assert_eq!(bip.len(), 37, "28 in the BIP, 9 in message_type_ids.md");
    let ours: Vec<(u8, String)> = SHORT_IDS.iter().map(|(i, c)| (*i, c.to_string())).collect();
    assert_eq!(ours, bip);
}

#[test]
fn both_forms_name_the_same_message() {
    for (id, cmd) in bip_table() {
        // Short form: one byte, then the payload.
        assert_eq!(encode_type(&cmd).unwrap().as_bytes(), [id]);
        let short = [id, 0xaa, 0xbb];
        let m = parse(&short).unwrap();
        assert_eq!(
            (m.command, m.short, m.payload),
            (cmd.as_str(), true, &[0xaa, 0xbb][..])
        );
        // Long form: the same command.
        let mut long = vec![0u8; 1 + COMMAND_LEN];
        long[1..1 + cmd.len()].copy_from_slice(cmd.as_bytes());
        long.push(0xcc);
        let m = parse(&long).unwrap();
        assert_eq!(
            (m.command, m.short, m.payload),
            (cmd.as_str(), false, &[0xcc][..])
        );
        assert_eq!(short_id(m.command), Some(id));
    }
}

#[test]
fn commands_without_a_short_id_take_the_long_form() {
    let t = encode_type("version").unwrap();
    let mut want = [0u8; 1 + COMMAND_LEN];
    want[1..8].copy_from_slice(b"version");
    assert_eq!(t.as_bytes(), &want[..]);
    let m = parse(t.as_bytes()).unwrap();
    assert_eq!((m.command, m.short, m.payload), ("version", false, &[][..]));
    assert_eq!(encode_type("wtxidrelay").unwrap().as_bytes().len(), 13);
}

#[test]
fn malformed_types_are_refused() {
    for id in 38..=255u8 {
        assert_eq!(parse(&[id]), Err(Error::UnknownMessageType { id }));
    }
    assert!(matches!(parse(&[]), Err(Error::Truncated { .. })));
    assert!(matches!(
        parse(&[0, b'p', b'i']),
        Err(Error::Truncated { .. })
    ));
    let long = |name: &[u8]| {
        let mut v = vec![0u8; 1 + COMMAND_LEN];
        v[1..1 + name.len()].copy_from_slice(name);
        v
    };
    for bad in [
        long(b""),
        long(b"pi ng"),
        long(b"ping\0x"),
        long(&[0xc3, 0xa9]),
        long(b"\x07bell"),
    ] {
        assert_eq!(parse(&bad), Err(Error::MalformedCommand), "{bad:?}");
    }
    for bad in ["", "thirteenchars", "sp ace", "caf\u{e9}"] {
        assert_eq!(encode_type(bad), Err(Error::MalformedCommand), "{bad}");
    }
}
