//! BOLT #4 `onion-error-test.json`: per-hop shared secrets and failure keys,
//! the failure packet created, wrapped by every hop and attributed.

use crate::common;
use crate::sphinx_support;

use common::hx;
use sphinx_support::{key, pk, val};
use wireseal::keys::PublicKey;
use wireseal::sphinx::{failure, keys};

#[test]
fn onion_error_test() {
    let v = common::load_json("bolt04/onion-error-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let hops = g["hops"].as_array().unwrap();
    let pubs: Vec<PublicKey> = hops.iter().map(|x| pk(&x["pubkey"])).collect();
    let (_, secrets) = keys::session_secrets(&session, pubs.iter().copied()).unwrap();
    for (i, x) in hops.iter().enumerate() {
        // Only version-0 packets exist (and are all this library speaks).
        assert_eq!(x["version"], 0);
        let ss = secrets.hop(i + 1).unwrap();
        assert_eq!(ss.expose().to_vec(), hx(x, "hop_shared_secret"), "hop {i}");
        assert_eq!(
            keys::derive(keys::KeyKind::Ammag, ss.expose())
                .expose()
                .to_vec(),
            hx(x, "ammag_key")
        );
        if let Some(um) = x.get("um_key") {
            assert_eq!(
                keys::derive(keys::KeyKind::Um, ss.expose())
                    .expose()
                    .to_vec(),
                val(um)
            );
        }
    }
    // The last hop fails; its plaintext payload (after the HMAC) is in the vector.
    let msg = hx(g, "failure_message");
    let last = hops.len() - 1;
    let mut packet = failure::create_to_vec(secrets.hop(last + 1).unwrap(), &msg).unwrap();
    assert_eq!(packet.len(), failure::failure_len(msg.len()));
    let mut plain = packet.clone();
    failure::wrap_in_place(secrets.hop(last + 1).unwrap(), &mut plain).unwrap();
    assert_eq!(
        hex::encode(&plain[32..]),
        hops[last]["payload"].as_str().unwrap()
    );
    for i in (0..last).rev() {
        failure::wrap_in_place(secrets.hop(i + 1).unwrap(), &mut packet).unwrap();
    }
    assert_eq!(hex::encode(&packet), v["errorpacket"].as_str().unwrap());
    let f = failure::unwrap(&secrets, &hx(&v, "errorpacket")).unwrap();
    // Hops count from 1: the vector's hops[4] is hop 5.
    assert_eq!(f.hop, last + 1);
    assert_eq!(f.message, msg);
    // Tampering makes it unattributable.
    let mut bad = hx(&v, "errorpacket");
    bad[100] ^= 1;
    assert_eq!(
        failure::unwrap(&secrets, &bad),
        Err(wireseal::sphinx::Error::Auth)
    );
}
