//! Any PSK, header ids and payload: channel decryption (AES-CTR, no tag)
//! never panics, and sealing what was opened gives the input back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::meshtastic::ChannelKey;

fuzz_target!(|data: &[u8]| {
    // [psk_len (1)] [psk] [from (4)] [id (4)] [payload...]
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
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
    key.open_in_place(from, id, &mut buf);
    if !key.is_encrypted() {
        assert_eq!(buf, payload);
    }
    key.seal_in_place(from, id, &mut buf);
    assert_eq!(buf, payload);
});
