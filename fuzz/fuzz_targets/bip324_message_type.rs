//! BIP324 message types (`bip324::message`) from any contents: `parse`
//! never panics; what it accepts names a command that `encode_type` writes
//! back, and the written type parses to the same command with the same
//! payload (so the 1- and 13-byte forms of a command always agree). Every
//! 13-byte form of a command with a short id parses to that command.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::bip324::message::{encode_type, parse, short_id, COMMAND_LEN};

fuzz_target!(|data: &[u8]| {
    let Ok(m) = parse(data) else {
        return;
    };
    assert!(!m.command.is_empty() && m.command.len() <= COMMAND_LEN);
    let t = encode_type(m.command).expect("a parsed command encodes");
    assert_eq!(
        t.as_bytes().len(),
        if short_id(m.command).is_some() { 1 } else { 13 }
    );
    let mut again = t.as_bytes().to_vec();
    again.extend_from_slice(m.payload);
    let n = parse(&again).expect("an encoded type parses");
    assert_eq!((n.command, n.payload), (m.command, m.payload));
    if m.short {
        let mut long = vec![0u8; 1 + COMMAND_LEN];
        long[1..1 + m.command.len()].copy_from_slice(m.command.as_bytes());
        assert_eq!(parse(&long).map(|l| l.command), Ok(m.command));
    }
});
