//! Any bytes as a peat mesh-wide frame: opening never panics, agrees across
//! the three open shapes (`open_into` given exactly `opened_len` bytes), and
//! what opens re-seals (same nonce, the `test-vectors` entry point) to the
//! frame.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::peat::{opened_len, MeshKey};

fuzz_target!(|data: &[u8]| {
    let key = MeshKey::derive(&"DEMO".parse().unwrap(), &[0x42; 32]);
    let vec = key.open_to_vec(data);
    let mut out = vec![0u8; opened_len(data.len()).unwrap_or(0)];
    let into = key.open_into(data, &mut out);
    let mut buf = data.to_vec();
    let in_place = key.open_in_place(&mut buf).map(|p| p.to_vec());
    match (&vec, into, &in_place) {
        (Ok(a), Ok(n), Ok(c)) => {
            assert_eq!((a, &out[..n]), (c, &a[..]));
            assert_eq!(opened_len(data.len()).ok(), Some(a.len()));
            let nonce: [u8; 12] = data[2..14].try_into().unwrap();
            let again = key.seal_with_nonce_to_vec(&nonce, a);
            assert_eq!(&again[2..], &data[2..], "re-seal differs");
        }
        (Err(_), Err(_), Err(_)) => {}
        other => panic!("open shapes disagree: {other:?}"),
    }
});
