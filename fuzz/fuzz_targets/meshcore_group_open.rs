//! Any plaintext, sealed under a channel so that its MAC verifies: the
//! decoder's structure checks never panic, and a text or data it reports
//! is exactly the bytes that were sealed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::meshcore::{
    ciphertext_len, Body, ChannelKey, Decoder, GroupContent, PacketOut, PayloadType,
};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, plaintext)) = data.split_first() else {
        return;
    };
    let key: &[u8] = if mode & 1 == 0 {
        &[0x42; 16]
    } else {
        &[0x42; 32]
    };
    let ch = ChannelKey::from_bytes(key).unwrap();
    let mut payload = [0u8; 184];
    let Ok(n) = ch.seal_payload_into(plaintext, &mut payload) else {
        return;
    };
    let t = if mode & 2 == 0 {
        PayloadType::GrpTxt
    } else {
        PayloadType::GrpData
    };
    let Ok(raw) = PacketOut::flood(t, &payload[..n]).to_vec() else {
        return;
    };
    let mut dec = Decoder::new();
    dec.add_channel(ch);
    let d = dec.decode(0, &raw).expect("a packet we built parses");
    let Body::Group(g) = d.body else {
        panic!("group packet")
    };
    // What the receiver decrypts: the plaintext and its zero padding.
    let mut sealed = plaintext.to_vec();
    sealed.resize(ciphertext_len(plaintext.len()), 0);
    match g.opened.map(|o| o.content) {
        Some(GroupContent::Text(m)) => {
            assert_eq!(&sealed[..4], &m.timestamp.to_le_bytes());
            assert!(sealed[5..].starts_with(m.text.as_bytes()));
        }
        Some(GroupContent::Data { data_type, data }) => {
            assert_eq!(&sealed[..2], &data_type.to_le_bytes());
            assert_eq!(&sealed[3..3 + data.len()], &data[..]);
        }
        None => {}
    }
});
