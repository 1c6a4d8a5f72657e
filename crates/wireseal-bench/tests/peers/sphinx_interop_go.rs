//! Interop with lightning-onion v1.3.0 (lnd's Sphinx, Go) through the helper
//! in `interop/sphinx`, built by [`wireseal_bench::peers::go_sphinx`].
//! Skipped with a message when `go` is not installed.

use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{build, failure, keys, Area, Hop, Onion, Padding, Peeled};
use wireseal_bench::peers::{go_sphinx, skip_or_fail};

/// The lightning-onion helper from [`wireseal_bench::peers::go_sphinx`];
/// a missing one fails the test (None after `skipped: WHY` only under
/// `WIRESEAL_ALLOW_MISSING_PEERS=1`).
fn peer() -> Option<PathBuf> {
    match go_sphinx() {
        Ok(bin) => Some(bin),
        Err(why) => {
            skip_or_fail(&why);
            None
        }
    }
}

fn call(bin: &PathBuf, req: Value) -> Value {
    let mut c = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin
        .take()
        .unwrap()
        .write_all(req.to_string().as_bytes())
        .unwrap();
    let out = c.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "peer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn s(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

struct Route {
    keys: Vec<PrivateKey>,
    payloads: Vec<Vec<u8>>,
}

fn route(n: usize, len: usize, seed: u8) -> Route {
    Route {
        keys: (0..n)
            .map(|i| PrivateKey::from_bytes(&[seed.wrapping_add(i as u8); 32]).unwrap())
            .collect(),
        payloads: (0..n)
            .map(|i| (0..len + i).map(|j| (j * 7 + i) as u8).collect())
            .collect(),
    }
}

fn hops_json(r: &Route) -> Value {
    Value::Array(
        r.keys
            .iter()
            .zip(&r.payloads)
            .map(|(k, p)| json!({"pubkey": hex::encode(k.public_key().serialize()), "payload": hex::encode(p)}))
            .collect(),
    )
}

fn ours(session: &PrivateKey, r: &Route, ad: &[u8], area: Area) -> Onion {
    let hops: Vec<Hop> = r
        .keys
        .iter()
        .zip(&r.payloads)
        .map(|(k, p)| Hop {
            pubkey: k.public_key(),
            payload: p,
        })
        .collect();
    let route = wireseal::sphinx::Route::new(&hops, ad)
        .with_area(area)
        .with_padding(Padding::Deterministic);
    build(session, &route).unwrap().0
}

#[test]
fn wireseal_onions_peel_in_lightning_onion_and_back() {
    let Some(bin) = peer() else { return };
    let bin = &bin;
    let ad = [0x42u8; 32];
    for (n, len, area) in [
        (1, 30, Area::Payment),
        (5, 40, Area::Payment),
        (20, 20, Area::Payment),
        (4, 5000, Area::MessageLarge),
    ] {
        let r = route(n, len, 0x30);
        let session = PrivateKey::from_bytes(&[0x11; 32]).unwrap();
        let mine = ours(&session, &r, &ad, area);
        // lightning-onion with the same session key and deterministic filler
        // produces the same bytes.
        let theirs = call(
            bin,
            json!({"op": "build", "session_key": hex::encode([0x11u8; 32]),
            "associated_data": hex::encode(ad), "hops": hops_json(&r), "area": area.bytes()}),
        );
        assert_eq!(
            hex::encode(mine.to_vec()),
            theirs["onion"].as_str().unwrap(),
            "{n} hops"
        );

        // Every layer: lightning-onion peels ours, we peel theirs; same results.
        let mut cur = mine;
        for (i, k) in r.keys.iter().enumerate() {
            let go = call(
                bin,
                json!({"op": "peel", "node_key": hex::encode(k.to_secret().expose()),
                "associated_data": hex::encode(ad), "onion": hex::encode(cur.to_vec())}),
            );
            assert_eq!(s(&go["payload"]), r.payloads[i]);
            match cur.peel(k, &ad).unwrap() {
                Peeled::Forward { payload, next, .. } => {
                    assert_eq!(payload, r.payloads[i]);
                    assert_eq!(go["final"], false);
                    assert_eq!(
                        hex::encode(next.to_vec()),
                        go["next_onion"].as_str().unwrap()
                    );
                    cur = Onion::parse_message(&s(&go["next_onion"])).unwrap();
                }
                Peeled::Final { payload, .. } => {
                    assert_eq!(payload, r.payloads[i]);
                    assert_eq!(go["final"], true);
                    assert_eq!(i + 1, n);
                    break;
                }
            }
        }
    }
}

#[test]
fn failures_cross_both_ways() {
    let Some(bin) = peer() else { return };
    let bin = &bin;
    let ad = [7u8; 32];
    let r = route(5, 30, 0x60);
    let session = PrivateKey::from_bytes(&[0x22; 32]).unwrap();
    let pubs: Vec<PublicKey> = r.keys.iter().map(|k| k.public_key()).collect();
    let (_, secrets) = keys::session_secrets(&session, pubs.iter().copied()).unwrap();
    // Ephemeral key seen by each hop, from peeling.
    let mut eph = Vec::new();
    let mut cur = ours(&session, &r, &ad, Area::Payment);
    for k in &r.keys {
        eph.push(*cur.ephemeral_key());
        if let Peeled::Forward { next, .. } = cur.clone().peel(k, &ad).unwrap() {
            cur = next;
        }
    }
    let msg = hex::decode("400f0000000000000064000c3500").unwrap();
    for failing in [0usize, 2, 4] {
        // Go creates and wraps back to the origin; we attribute.
        let hops: Vec<Value> = (0..=failing)
            .rev()
            .map(|i| {
                json!({"node_key": hex::encode(r.keys[i].to_secret().expose()),
                "ephemeral": hex::encode(eph[i].serialize())})
            })
            .collect();
        let go = call(
            bin,
            json!({"op": "fail", "hops": hops, "message": hex::encode(&msg)}),
        );
        let f = failure::unwrap(&secrets, &s(&go["packet"])).unwrap();
        assert_eq!((f.hop_index(), &f.message), (failing, &msg));
        // We create and wrap; Go attributes.
        let mut p = failure::create_to_vec(secrets.hop(failing + 1).unwrap(), &msg).unwrap();
        for i in (0..failing).rev() {
            failure::wrap_in_place(secrets.hop(i + 1).unwrap(), &mut p).unwrap();
        }
        assert_eq!(hex::encode(&p), go["packet"].as_str().unwrap());
        let back = call(
            bin,
            json!({"op": "unwrap", "session_key": hex::encode([0x22u8; 32]),
            "pubkeys": pubs.iter().map(|p| hex::encode(p.serialize())).collect::<Vec<_>>(),
            "packet": hex::encode(&p)}),
        );
        assert_eq!(back["sender_idx"], failing);
        assert_eq!(s(&back["message"]), msg);
    }
}

#[test]
fn blinded_hop_peels_in_lightning_onion() {
    let Some(bin) = peer() else { return };
    let bin = &bin;
    // The blinded-payment vector: Carol peels with the path key from Bob.
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../vectors/bolt04/blinded-payment-onion-test.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let dec = v["decrypt"]["hops"].as_array().unwrap();
    let ad = v["generate"]["associated_data"].as_str().unwrap();
    let (carol, path_key) = (&dec[2], &dec[1]["next_path_key"]);
    let go = call(
        bin,
        json!({"op": "peel", "node_key": carol["node_privkey"], "associated_data": ad,
        "onion": carol["onion"], "blinding_point": path_key}),
    );
    let node = PrivateKey::from_bytes(&s(&carol["node_privkey"]).try_into().unwrap()).unwrap();
    let u =
        wireseal::sphinx::blinding::unblind(&node, &PublicKey::from_slice(&s(path_key)).unwrap())
            .unwrap();
    let p = Onion::parse(&s(&carol["onion"]))
        .unwrap()
        .peel(u.blinded_privkey(), &hex::decode(ad).unwrap())
        .unwrap();
    assert_eq!(hex::encode(p.payload()), go["payload"].as_str().unwrap());
    match p {
        Peeled::Forward { next, .. } => {
            assert_eq!(
                hex::encode(next.to_vec()),
                go["next_onion"].as_str().unwrap()
            );
            assert_eq!(
                hex::encode(next.to_vec()),
                dec[3]["onion"].as_str().unwrap()
            );
        }
        _ => panic!("Carol forwards"),
    }
}
