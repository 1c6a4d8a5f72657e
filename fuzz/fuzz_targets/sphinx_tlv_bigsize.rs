//! Any bytes through the BOLT #4 readers: BigSize reads only canonical
//! encodings and re-encodes them byte for byte; the TLV iterator never
//! panics, yields strictly increasing types inside the stream, and `find`
//! agrees with it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::sphinx::{bigsize, tlv};

fuzz_target!(|data: &[u8]| {
    if let Ok((n, used)) = bigsize::read(data) {
        assert_eq!(used, bigsize::len(n));
        let mut out = [0u8; 9];
        assert_eq!(bigsize::write(n, &mut out), used);
        assert_eq!(&out[..used], &data[..used]);
    }
    let mut last = None;
    let mut all_ok = true;
    let mut seen = Vec::new();
    for r in tlv::records(data) {
        match r {
            Ok((t, v)) => {
                assert!(last.map_or(true, |l| t > l), "types not increasing");
                assert!(v.len() <= data.len());
                last = Some(t);
                seen.push((t, v.to_vec()));
            }
            Err(_) => {
                all_ok = false;
                break;
            }
        }
    }
    if all_ok {
        let mut rebuilt = Vec::new();
        for (t, v) in &seen {
            tlv::push(&mut rebuilt, *t, v);
            assert_eq!(tlv::find(data, *t).unwrap(), Some(&v[..]));
        }
        assert_eq!(rebuilt, data, "a valid stream re-encodes to itself");
    }
});
