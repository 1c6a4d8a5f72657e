//! Every peat-btle vector in `vectors/peat/meshwide_vectors.json` (frames
//! made by the peat-btle 0.2.4 crate), both directions, plus the genesis
//! example and the key-exchange frame from `vectors/README.md`; then the
//! negative cases for each decoder.

use crate::common;

use common::{arr, hx};
use serde_json::Value;
use wireseal::batch::Batch;
use wireseal::peat::*;

fn load() -> Value {
    common::load_json("peat/meshwide_vectors.json")
}

struct Case {
    mesh_id: MeshId,
    secret: [u8; 32],
    derived: Vec<u8>,
    nonce: [u8; 12],
    plaintext: Vec<u8>,
    frame: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let d = load();
    let list = d["meshwide_vectors"].as_array().unwrap();
    assert_eq!(list.len(), 9, "the whole vector set");
    list.iter()
        .map(|v| {
            // Every field of every vector is used.
            assert_eq!(v.as_object().unwrap().len(), 7, "{v}");
            assert!(v["label"].is_string());
            Case {
                mesh_id: v["mesh_id"].as_str().unwrap().parse().unwrap(),
                secret: arr(v, "secret_hex"),
                derived: hx(v, "derived_key_hex"),
                nonce: arr(v, "nonce_hex"),
                plaintext: hx(v, "plaintext_hex"),
                frame: hx(v, "frame_hex"),
            }
        })
        .collect()
}

#[test]
fn meshwide_vectors_seal_and_open() {
    for c in cases() {
        assert_eq!(
            derive_key_bytes(&c.mesh_id, &c.secret).expose()[..],
            c.derived[..]
        );
        let k = MeshKey::derive(&c.mesh_id, &c.secret);
        assert_eq!(k.seal_with_nonce_to_vec(&c.nonce, &c.plaintext), c.frame);
        assert_eq!(sealed_len(c.plaintext.len()), c.frame.len());
        let mut out = vec![0u8; c.frame.len()];
        assert_eq!(
            k.seal_with_nonce_into(&c.nonce, &c.plaintext, &mut out),
            Ok(c.frame.len())
        );
        assert_eq!(out, c.frame);
        assert_eq!(k.open_to_vec(&c.frame).unwrap(), c.plaintext);
        let mut f = c.frame.clone();
        assert_eq!(k.open_in_place(&mut f).unwrap(), &c.plaintext[..]);
        // `open_into` needs exactly the plaintext's length.
        let mut o = vec![0u8; c.plaintext.len()];
        assert_eq!(opened_len(c.frame.len()), Ok(c.plaintext.len()));
        assert_eq!(k.open_into(&c.frame, &mut o), Ok(c.plaintext.len()));
        assert_eq!(o, c.plaintext);
        // The receive path dispatches it as a mesh-wide document.
        assert_eq!(classify(&c.frame), FrameKind::MeshWide);
        let r = Receiver::new(Some(k), Mode::Strict);
        match r.receive(&c.frame).unwrap() {
            Received::Document { bytes, protection } => {
                assert_eq!(protection, policy::Protection::MeshWide);
                assert_eq!(bytes.as_ref(), &c.plaintext[..]);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn reserved_byte_is_ignored_on_receive() {
    for c in cases() {
        let k = MeshKey::derive(&c.mesh_id, &c.secret);
        for r in [0x01u8, 0x7f, 0xff] {
            let mut f = c.frame.clone();
            f[1] = r;
            assert_eq!(k.open_to_vec(&f).unwrap(), c.plaintext);
        }
    }
}

/// One thread, two threads, every core.
fn batches() -> [Batch; 3] {
    [
        Batch::with_threads(1),
        Batch::with_threads(2),
        Batch::all_cores(),
    ]
}

/// A nonce and a plaintext to seal.
type Job = ([u8; 12], Vec<u8>);

/// The key of `mesh`, the indexes of its cases, and their jobs repeated 200
/// times so a batch really splits across threads.
fn mesh_jobs(cs: &[Case], jobs: &[Job], mesh: &str) -> (MeshKey, Vec<usize>, Vec<Job>) {
    let sel: Vec<usize> = (0..cs.len()).filter(|&i| cs[i].mesh_id == mesh).collect();
    let k = MeshKey::derive(&cs[sel[0]].mesh_id, &cs[sel[0]].secret);
    let many = (0..200)
        .flat_map(|_| sel.iter().map(|&i| jobs[i].clone()))
        .collect();
    (k, sel, many)
}

#[test]
fn batch_matches_one_at_a_time() {
    let cs = cases();
    let jobs: Vec<Job> = cs.iter().map(|c| (c.nonce, c.plaintext.clone())).collect();
    for b in batches() {
        // One key per mesh; group by mesh id.
        for mesh in ["DEMO", "BENCH", "ALPHA"] {
            let (k, sel, many) = mesh_jobs(&cs, &jobs, mesh);
            let frames = k.seal_batch_with_nonces_to_vec(&b, &many);
            for (j, f) in frames.iter().enumerate() {
                assert_eq!(f, &cs[sel[j % sel.len()]].frame);
            }
            let opened = k.open_batch_to_vec(&b, &frames);
            for (j, o) in opened.iter().enumerate() {
                assert_eq!(o.as_ref().unwrap(), &cs[sel[j % sel.len()]].plaintext);
            }
            let mut inplace = frames.clone();
            inplace[3][20] ^= 1;
            let r = k.open_batch_in_place(&b, &mut inplace);
            for (j, x) in r.iter().enumerate() {
                if j == 3 {
                    assert_eq!(*x, Err(Error::Auth));
                } else {
                    let r = x.clone().unwrap();
                    assert_eq!(r.start, MESH_HEADER_LEN);
                    assert_eq!(&inplace[j][r], &cs[sel[j % sel.len()]].plaintext[..]);
                }
            }
        }
    }
    // Packed into one buffer: the same frames back to back, ranges in order,
    // opened in place over that buffer.
    for b in batches() {
        for mesh in ["DEMO", "BENCH", "ALPHA"] {
            let (k, sel, many) = mesh_jobs(&cs, &jobs, mesh);
            let total: usize = many.iter().map(|(_, p)| p.len() + 30).sum();
            let mut buf = vec![0u8; total + 7];
            assert_eq!(
                k.seal_batch_with_nonces_into(&b, &many, &mut buf[..total - 1]),
                Err(Error::BufferTooSmall { required: total })
            );
            let ranges = k.seal_batch_with_nonces_into(&b, &many, &mut buf).unwrap();
            assert_eq!(ranges.len(), many.len());
            let mut at = 0;
            for (j, r) in ranges.iter().enumerate() {
                assert_eq!(r.start, at, "back to back");
                assert_eq!(&buf[r.clone()], &cs[sel[j % sel.len()]].frame[..]);
                at = r.end;
            }
            assert_eq!(at, total);
            assert!(
                buf[total..].iter().all(|&x| x == 0),
                "nothing past the frames"
            );
            buf[ranges[5].start + 20] ^= 1;
            let r = k.open_batch_ranges_in_place(&b, &mut buf, &ranges);
            for (j, x) in r.iter().enumerate() {
                let range = &ranges[j];
                if j == 5 {
                    assert_eq!(*x, Err(Error::Auth));
                    assert!(buf[range.start + MESH_HEADER_LEN..range.end]
                        .iter()
                        .all(|&x| x == 0));
                } else {
                    let pt = x.clone().unwrap();
                    assert_eq!(pt.start, range.start + MESH_HEADER_LEN);
                    assert_eq!(pt.end, range.end - 16);
                    assert_eq!(&buf[pt], &cs[sel[j % sel.len()]].plaintext[..]);
                }
            }
        }
    }
    // Random nonces into one buffer: each frame is what sealing it alone with
    // its nonce gives, every frame opens, all nonces distinct.
    let sealer = MeshSealer::new(&"DEMO".parse().unwrap(), &[0x42; 32]);
    let k = sealer.key();
    let docs: Vec<Vec<u8>> = (0..1000u32)
        .map(|i| vec![i as u8; (i % 97) as usize])
        .collect();
    let mut buf = vec![0u8; seal_batch_len(&docs)];
    for b in batches() {
        let ranges = sealer.seal_batch_into(&b, &docs, &mut buf).unwrap();
        let mut seen: Vec<[u8; 12]> = Vec::new();
        for (r, d) in ranges.iter().zip(&docs) {
            let f = &buf[r.clone()];
            let nonce: [u8; 12] = f[2..14].try_into().unwrap();
            assert_eq!(f, &k.seal_with_nonce_to_vec(&nonce, d)[..]);
            assert_eq!(&k.open_to_vec(f).unwrap(), d);
            seen.push(nonce);
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), docs.len());
        let opened = k.open_batch_ranges_in_place(&b, &mut buf, &ranges);
        for ((o, r), d) in opened.iter().zip(&ranges).zip(&docs) {
            let pt = o.clone().unwrap();
            assert_eq!(pt.start, r.start + MESH_HEADER_LEN);
            assert_eq!(&buf[pt], &d[..]);
        }
    }
    // Bad ranges are reported per range and touch nothing.
    let mut buf = vec![0u8; seal_batch_len(&docs[..3])];
    let ranges = sealer
        .seal_batch_into(&Batch::all_cores(), &docs[..3], &mut buf)
        .unwrap();
    let copy = buf.clone();
    let len = buf.len();
    let bad = [
        ranges[1].clone(),
        ranges[0].clone(),        // before the previous one
        ranges[2].start..len + 1, // past the end
        ranges[2].clone(),
    ];
    let r = k.open_batch_ranges_in_place(&Batch::all_cores(), &mut buf, &bad);
    assert_eq!(r[1], Err(Error::BadRange { index: 1 }));
    assert_eq!(r[2], Err(Error::BadRange { index: 2 }));
    assert!(r[0].is_ok() && r[3].is_ok());
    assert_eq!(buf[ranges[0].clone()], copy[ranges[0].clone()], "untouched");
    // Random-nonce batch: every frame opens and nonces are all distinct.
    let docs: Vec<Vec<u8>> = (0..1000u32).map(|i| i.to_le_bytes().to_vec()).collect();
    let frames = sealer.seal_batch_to_vec(&Batch::all_cores(), &docs);
    let mut nonces: Vec<&[u8]> = frames.iter().map(|f| &f[2..14]).collect();
    nonces.sort();
    nonces.dedup();
    assert_eq!(nonces.len(), 1000);
    for (f, d) in frames.iter().zip(&docs) {
        assert_eq!(&k.open_to_vec(f).unwrap(), d);
    }
}

#[test]
fn genesis_example() {
    let d = load();
    let g = &d["genesis_example"];
    assert_eq!(g.as_object().unwrap().len(), 6);
    let seed: [u8; 32] = arr(g, "seed_hex");
    let name = g["mesh_name"].as_str().unwrap();
    let gen = Genesis::derive(name, &seed).unwrap();
    assert_eq!(gen.mesh_id().to_string(), g["mesh_id"].as_str().unwrap());
    assert_eq!(mesh_id(name, &seed).unwrap(), "CBE6FC55");
    assert_eq!(
        gen.secret().expose()[..],
        hx(g, "encryption_secret_hex")[..]
    );
    assert_eq!(
        gen.beacon_key_base().expose()[..],
        hx(g, "beacon_key_base_hex")[..]
    );
    assert_eq!(
        derive_key_bytes(gen.mesh_id(), gen.secret().expose()).expose()[..],
        hx(g, "mesh_key_hex")[..]
    );
    // vectors/README.md states the same example.
    assert_eq!(
        hex::encode(gen.secret().expose()),
        "882125bc581b8c73b79e35e839534fe50f1583adf331b21c6c937a042ade5b32"
    );
}

/// The key-exchange frame peat-btle produced for key `a1`x32 of node 0x11111111.
#[test]
fn key_exchange_frame_from_peat_btle() {
    let want = hex::decode(
        "b0001111111100c306fb0ef2bf8b7f93bad98155fa37daec74db0c4cbeda6c6f1dba9d36558252",
    )
    .unwrap();
    let id = wireseal::keys::StaticSecret::from_bytes(&[0xa1; 32]).unwrap();
    let s = PeerSessions::new(0x1111_1111, id);
    assert_eq!(s.key_exchange_frame().to_vec(), want);
    let kx = KeyExchange::decode(&want).unwrap();
    assert_eq!(kx.sender, 0x1111_1111);
    assert!(!kx.ephemeral);
    assert_eq!(&kx.public_key, s.public_key());
    assert_eq!(kx.encode().to_vec(), want);
    let mut eph = want.clone();
    eph[6] = 0x03; // bit 0 set; other flag bits ignored
    assert!(KeyExchange::decode(&eph).unwrap().ephemeral);
    assert_eq!(classify(&want), FrameKind::KeyExchange);
}

#[test]
fn meshwide_negative_cases() {
    let c = &cases()[1];
    let k = MeshKey::derive(&c.mesh_id, &c.secret);
    // Tampered: every byte after the reserved one.
    for i in 2..c.frame.len() {
        let mut f = c.frame.clone();
        f[i] ^= 0x01;
        assert_eq!(k.open_to_vec(&f), Err(Error::Auth), "byte {i}");
        let mut g = f.clone();
        assert_eq!(k.open_in_place(&mut g), Err(Error::Auth));
        assert!(g[MESH_HEADER_LEN..].iter().all(|&b| b == 0), "wiped");
        let mut o = vec![0x55u8; c.plaintext.len()];
        assert_eq!(k.open_into(&f, &mut o), Err(Error::Auth));
        assert!(o.iter().all(|&b| b == 0), "wiped");
    }
    // `open_into` with one byte too few writes nothing.
    if !c.plaintext.is_empty() {
        let mut o = vec![0x55u8; c.plaintext.len() - 1];
        assert_eq!(
            k.open_into(&c.frame, &mut o),
            Err(Error::BufferTooSmall {
                required: c.plaintext.len()
            })
        );
        assert!(o.iter().all(|&b| b == 0x55));
    }
    // Truncated: every length below the full frame.
    for n in 0..c.frame.len() {
        let r = k.open_to_vec(&c.frame[..n]);
        if n < MESH_OVERHEAD {
            assert!(matches!(r, Err(Error::Truncated { .. })), "{n}: {r:?}");
        } else {
            assert_eq!(r, Err(Error::Auth), "{n}");
        }
    }
    // Oversized: appended bytes break the tag.
    let mut long = c.frame.clone();
    long.extend_from_slice(&[0u8; 5]);
    assert_eq!(k.open_to_vec(&long), Err(Error::Auth));
    // Wrong key / wrong mesh id.
    assert_eq!(
        MeshKey::derive(&"OTHER".parse().unwrap(), &c.secret).open_to_vec(&c.frame),
        Err(Error::Auth)
    );
    assert_eq!(
        MeshKey::derive(&c.mesh_id, &[0u8; 32]).open_to_vec(&c.frame),
        Err(Error::Auth)
    );
    // Wrong marker.
    let mut m = c.frame.clone();
    m[0] = 0xAF;
    assert_eq!(
        k.open_to_vec(&m),
        Err(Error::WrongMarker {
            found: 0xAF,
            expected: 0xAE
        })
    );
}

#[test]
fn key_exchange_negative_cases() {
    let good = KeyExchange {
        sender: 7,
        ephemeral: false,
        public_key: [9; 32],
    }
    .encode();
    for n in 0..good.len() {
        assert_eq!(
            KeyExchange::decode(&good[..n]),
            Err(Error::Truncated { len: n, min: 39 }),
            "{n}"
        );
    }
    let want = KeyExchange::decode(&good).unwrap();
    assert_eq!(
        (want.sender, want.ephemeral, want.public_key),
        (7, false, [9; 32])
    );
    // Longer frames: the tail is ignored, as peat-btle's decode ignores it.
    for tail in [&[0u8][..], &[0xff; 5], &[0x55; 200]] {
        let mut long = good.to_vec();
        long.extend_from_slice(tail);
        assert_eq!(KeyExchange::decode(&long), Ok(want), "{} extra", tail.len());
    }
    // The reserved byte is ignored.
    for r in [0x01u8, 0x80, 0xff] {
        let mut f = good;
        f[1] = r;
        assert_eq!(KeyExchange::decode(&f), Ok(want), "reserved {r:02X}");
    }
    let mut wrong = good;
    wrong[0] = 0xAE;
    assert!(matches!(
        KeyExchange::decode(&wrong),
        Err(Error::WrongMarker { .. })
    ));
}
