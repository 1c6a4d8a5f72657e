//! Any PSK, header ids and payload: channel decryption (AES-CTR, no tag)
//! never panics, refuses only payloads over a LoRa frame (leaving them
//! untouched), and sealing what was opened gives the input back. Any text
//! as a PSK (`ChannelKey::from_str`) never panics, and an error never
//! repeats the text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::meshtastic::{ChannelKey, Error, MAX_PAYLOAD_LEN};

fuzz_target!(|data: &[u8]| {
    // [psk_len (1)] [psk] [from (4)] [id (4)] [payload...]
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    if let Ok(text) = std::str::from_utf8(rest) {
        // The message is a fixed reason or a length: never the text.
        match text.parse::<ChannelKey>() {
            Ok(_) => {}
            Err(e @ Error::PskText { reason }) => assert_eq!(e.to_string(), reason),
            Err(Error::InvalidPsk { len }) => assert!(len > 32),
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
    let n = (n as usize) % 40;
    if rest.len() < n + 8 {
        return;
    }
    let (psk, rest) = rest.split_at(n);
    let from = u32::from_le_bytes(rest[..4].try_into().unwrap());
    let id = u32::from_le_bytes(rest[4..8].try_into().unwrap());
    let payload = &rest[8..];
    let Ok(key) = ChannelKey::from_psk(psk) else {
        assert!(psk.len() > 32, "only over-long PSKs are refused");
        return;
    };
    let mut buf = payload.to_vec();
    if payload.len() > MAX_PAYLOAD_LEN {
        assert!(matches!(
            key.open_in_place(from, id, &mut buf),
            Err(Error::TooLong { .. })
        ));
        assert_eq!(buf, payload, "a refused payload is left as it was");
        return;
    }
    let opened = key.open_in_place(from, id, &mut buf).unwrap().len();
    assert_eq!(opened, payload.len());
    if !key.is_encrypted() {
        assert_eq!(buf, payload);
    }
    key.seal_in_place(from, id, &mut buf).unwrap();
    assert_eq!(buf, payload);
});
