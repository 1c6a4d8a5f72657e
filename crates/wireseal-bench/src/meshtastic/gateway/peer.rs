//! Gateway rows measured against other code in the same run: channel
//! envelopes against meshtastic-mqtt-json (Python, timed inside Python over
//! the same bytes, samples alternating with ours, every field compared), and
//! `wireseal::meshtastic::xeddsa`'s verification and signing
//! (curve25519-dalek, the converted key kept) against aws-lc-rs's and
//! ed25519-dalek's Ed25519.

use super::{Feed, Kind, SECTION};
use crate::peers::{meshtastic_mqtt_json, Skip};
use crate::{Better, Ctx, Row};
use aws_lc_rs::signature::{Ed25519KeyPair, UnparsedPublicKey, ED25519};
use ed25519_dalek::Verifier;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::Instant;
use wireseal::hazmat::xeddsa::{XedSigningKey, XedVerifyingKey};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::Decoded;
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::Decoder;

const PEER_NAME: &str = "meshtastic-mqtt-json 3.0.0";

/// The fields the peer reports, from our decoding.
fn our_fields(d: &Decoded) -> Value {
    let data = d.data.as_ref();
    json!({
        "from": d.from,
        "to": d.to,
        "id": d.id,
        "channel": d.channel_hash,
        "rx_time": d.reception.rx_time,
        "hop_limit": d.reception.hop_limit,
        "hop_start": d.reception.hop_start,
        "portnum": d.portnum(),
        "payload_hex": d.payload().map(hex::encode),
        "want_response": data.is_some_and(|d| d.want_response),
        "bitfield": data.and_then(|d| d.bitfield).unwrap_or(0),
    })
}

/// The running peer script (`serve`).
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    fn start(envelopes: &[&[u8]]) -> Result<Peer, Skip> {
        let mut child = meshtastic_mqtt_json()?
            .command(["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| Skip::new(format!("python3 not runnable: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut p = Peer {
            child,
            stdin,
            stdout,
        };
        let mut msg = format!("envelopes {}\n", envelopes.len());
        for e in envelopes {
            msg.push_str(&hex::encode(e));
            msg.push('\n');
        }
        p.ask(&msg)?;
        Ok(p)
    }

    /// Sends `msg` and returns the peer's one-line answer.
    fn ask(&mut self, msg: &str) -> Result<String, Skip> {
        let broken = |e: std::io::Error| Skip::new(format!("{PEER_NAME} peer: {e}"));
        self.stdin.write_all(msg.as_bytes()).map_err(broken)?;
        self.stdin.flush().map_err(broken)?;
        let mut line = String::new();
        self.stdout.read_line(&mut line).map_err(broken)?;
        match line.trim() {
            "" => Err(Skip::new(format!("{PEER_NAME} peer exited"))),
            l if l.starts_with("error") => Err(Skip::new(format!("{PEER_NAME} peer: {l}"))),
            l => Ok(l.to_owned()),
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.stdin.write_all(b"quit\n");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

/// Compares every field the peer decoded with ours: `Err` names the first
/// difference, `Ok` says how many envelopes both decoded.
fn compare(decoder: &mut Decoder, envelopes: &[&[u8]], theirs: &[Value]) -> Result<usize, String> {
    if theirs.len() != envelopes.len() {
        return Err(format!(
            "the peer answered for {} of {} envelopes",
            theirs.len(),
            envelopes.len()
        ));
    }
    let mut both = 0;
    for (i, (e, t)) in envelopes.iter().zip(theirs).enumerate() {
        let d = decoder
            .decode(0, e)
            .map_err(|e| format!("envelope {i}: {e}"))?;
        if t.is_null() || d.data.is_none() {
            continue;
        }
        let ours = our_fields(&d);
        for (k, v) in t.as_object().ok_or("the peer's fields are not an object")? {
            if ours.get(k) != Some(v) {
                return Err(format!(
                    "envelope {i}: {k} is {v} for the peer, {} for wireseal",
                    ours.get(k).unwrap_or(&Value::Null)
                ));
            }
        }
        both += 1;
    }
    if both < envelopes.len() {
        return Err(format!(
            "only {both} of {} envelopes decoded by both",
            envelopes.len()
        ));
    }
    Ok(both)
}

/// Channel envelopes to the gateway's JSON, ours against the peer's.
pub fn versus_mqtt_json(ctx: &Ctx, feed: &Feed) -> Row {
    let envelopes = feed.of(Kind::Channel);
    let n = envelopes.len();
    let mut decoder = feed.decoder();
    let ours_once = |decoder: &mut Decoder| {
        let t = Instant::now();
        let mut bytes = 0;
        for e in &envelopes {
            let d = decoder.decode(0, e).expect("envelope");
            bytes += wireseal_io::record::to_json(&PacketRecord::new(decoder, &d)).len();
        }
        std::hint::black_box(bytes);
        t.elapsed().as_secs_f64()
    };
    let workload = format!("gw channel envelopes -> JSON x {n}, 1 core");
    // Outer error: the peer is missing (a skipped baseline); inner error:
    // its fields differ from ours (a failed run).
    let theirs = (|| -> Result<Result<(f64, f64), String>, Skip> {
        let mut peer = Peer::start(&envelopes)?;
        let fields: Vec<Value> = serde_json::from_str(&peer.ask("fields\n")?)
            .map_err(|e| Skip::new(format!("{PEER_NAME} peer: bad fields: {e}")))?;
        if let Err(why) = compare(&mut decoder, &envelopes, &fields) {
            return Ok(Err(format!("fields differ from {PEER_NAME}: {why}")));
        }
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..ctx.samples().max(5) {
            ours.push(ours_once(&mut decoder));
            let t: f64 = peer
                .ask("sample\n")?
                .parse()
                .map_err(|e| Skip::new(format!("{PEER_NAME} peer: bad time: {e}")))?;
            theirs.push(t);
        }
        Ok(Ok((
            crate::timing::median(&mut ours),
            crate::timing::median(&mut theirs),
        )))
    })();
    let ours_alone = |decoder: &mut Decoder| {
        let mut v: Vec<f64> = (0..ctx.samples()).map(|_| ours_once(decoder)).collect();
        crate::timing::median(&mut v)
    };
    let (ours, baseline) = match theirs {
        Ok(Ok((o, t))) => (o, Ok(n as f64 / t)),
        Ok(Err(why)) => {
            let ours = ours_alone(&mut decoder);
            return Row::new(
                SECTION,
                workload,
                "pkt/s",
                Better::Higher,
                n as f64 / ours,
                PEER_NAME,
                None,
            )
            .failed(why);
        }
        Err(why) => (ours_alone(&mut decoder), Err(why)),
    };
    let row = Row::with_peer(
        SECTION,
        workload,
        "pkt/s",
        Better::Higher,
        n as f64 / ours,
        PEER_NAME,
        baseline.as_ref().copied(),
    );
    if row.skipped.is_none() {
        row.seed("target >= 20x; every field equal")
    } else {
        row
    }
}

/// XEdDSA verify and sign against Ed25519 on the same key and message (72
/// bytes: the 12-byte prefix and a 60-byte payload). Our verification (the
/// converted key kept, the message in its two parts) is timed against
/// aws-lc-rs's and ed25519-dalek's Ed25519 verify (each with its key made
/// once), each pair sampled alternately. aws-lc-rs cannot sign with an
/// XEdDSA scalar, so its signing figure is plain Ed25519 from a seed, for
/// reference.
pub fn xeddsa_rows(ctx: &Ctx) -> Vec<Row> {
    let node = StaticSecret::generate();
    let signer = XedSigningKey::from_x25519(node.expose());
    let vk = XedVerifyingKey::from_x25519(node.public_key()).expect("a valid key");
    let msg = [0x42u8; 72];
    let sig = signer.sign(&[&msg], &[7u8; 64]);
    let aws = UnparsedPublicKey::new(&ED25519, *vk.ed25519_bytes());
    let dalek = ed25519_dalek::VerifyingKey::from_bytes(vk.ed25519_bytes()).expect("a point");
    let dalek_sig = ed25519_dalek::Signature::from_bytes(&sig);
    assert!(vk.verify(&[&msg], &sig) && aws.verify(&msg, &sig).is_ok());
    assert!(dalek.verify(&msg, &dalek_sig).is_ok());
    let ours = || vk.verify(&[&msg[..12], &msg[12..]], &sig);
    let (ours_v, aws_v) = ctx.time_pair_per_op(ours, || aws.verify(&msg, &sig).is_ok());
    let (ours_vd, dalek_v) = ctx.time_pair_per_op(ours, || dalek.verify(&msg, &dalek_sig).is_ok());
    let pair = Ed25519KeyPair::from_seed_unchecked(&[9u8; 32]).expect("seed");
    let z = [3u8; 64];
    let (dalek_s, aws_s) = ctx.time_pair_per_op(
        || signer.sign(&[&msg[..12], &msg[12..]], &z),
        || pair.sign(&msg),
    );
    vec![
        Row::new(
            SECTION,
            "XEdDSA verify 72 B, key kept",
            "µs/op",
            Better::Lower,
            ours_v * 1e6,
            "aws-lc-rs Ed25519 verify",
            Some(aws_v * 1e6),
        )
        .seed("target >= 1.0x"),
        Row::new(
            SECTION,
            "XEdDSA verify 72 B, key kept (vs ed25519-dalek)",
            "µs/op",
            Better::Lower,
            ours_vd * 1e6,
            "ed25519-dalek Ed25519 verify (key kept)",
            Some(dalek_v * 1e6),
        )
        .seed("target >= 1.0x"),
        Row::new(
            SECTION,
            "XEdDSA sign 72 B, hedged (curve25519-dalek)",
            "µs/op",
            Better::Lower,
            dalek_s * 1e6,
            "aws-lc-rs Ed25519 sign (seed)",
            Some(aws_s * 1e6),
        )
        .seed("aws-lc-rs has no XEdDSA (scalar) signing API"),
    ]
}

#[cfg(test)]
mod tests {
    //! Our XEdDSA verification, aws-lc-rs's and ed25519-dalek's Ed25519
    //! verification agree, edge cases included (Wycheproof's Ed25519 kinds:
    //! s ≥ q, a non-canonical R, small-order keys, tampered bytes), so the
    //! bench's baselines accept what ours accepts. (The library's own tests
    //! compare its aws-lc-rs and curve25519-dalek paths.)

    use super::*;

    /// The group order q, little-endian.
    const Q: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];

    /// Ours and aws-lc-rs's verdicts, after asserting that ed25519-dalek's
    /// is aws-lc-rs's.
    fn both(vk: &XedVerifyingKey, msg: &[u8], sig: &[u8; 64]) -> (bool, bool) {
        let aws = UnparsedPublicKey::new(&ED25519, vk.ed25519_bytes()).verify(msg, sig);
        let dalek = ed25519_dalek::VerifyingKey::from_bytes(vk.ed25519_bytes())
            .expect("a point")
            .verify(msg, &ed25519_dalek::Signature::from_bytes(sig));
        assert_eq!(aws.is_ok(), dalek.is_ok(), "aws-lc-rs and ed25519-dalek");
        (vk.verify(&[msg], sig), aws.is_ok())
    }

    fn add_le(a: &[u8], b: &[u8; 32]) -> [u8; 32] {
        let mut out = [0u8; 32];
        let mut carry = 0u16;
        for i in 0..32 {
            let v = u16::from(a[i]) + u16::from(b[i]) + carry;
            out[i] = v as u8;
            carry = v >> 8;
        }
        out
    }

    #[test]
    fn fields_match_meshtastic_mqtt_json() {
        let feed = super::super::feed::feed(400, 7);
        let envelopes = feed.of(Kind::Channel);
        let mut peer = match Peer::start(&envelopes) {
            Ok(p) => p,
            Err(why) => return crate::peers::skip_or_fail(&why),
        };
        let theirs: Vec<Value> = serde_json::from_str(&peer.ask("fields\n").unwrap()).unwrap();
        let mut decoder = feed.decoder();
        assert_eq!(
            compare(&mut decoder, &envelopes, &theirs),
            Ok(envelopes.len())
        );
        // A difference in any field fails the comparison and names it.
        let mut tampered = theirs.clone();
        tampered[3]["hop_limit"] = json!(99);
        let why = compare(&mut decoder, &envelopes, &tampered).unwrap_err();
        assert!(why.starts_with("envelope 3: hop_limit is 99"), "{why}");
        tampered[3] = Value::Null;
        assert!(compare(&mut decoder, &envelopes, &tampered).is_err());
    }

    /// `cargo test --release -p wireseal-bench --lib xeddsa_figures --
    /// --ignored --nocapture`: the XEdDSA rows five times with full-length
    /// samples (the figures in docs/crypto-choices.md).
    #[test]
    #[ignore = "a benchmark"]
    fn xeddsa_figures() {
        for _ in 0..5 {
            for r in xeddsa_rows(&Ctx { full: true }) {
                let b = r.baseline.unwrap_or(f64::NAN);
                println!(
                    "{}: {:.2} vs {:.2} µs ({})",
                    r.workload, r.ours, b, r.baseline_name
                );
            }
        }
    }

    /// `cargo test --release -p wireseal-bench --lib xeddsa_parts --
    /// --ignored --nocapture`: where a curve25519-dalek XEdDSA verification's
    /// time goes (hashing, the double-scalar multiplication, the encoding of
    /// the result: the portable backend's path), beside aws-lc-rs's whole
    /// Ed25519 verification and its SHA-512, each sampled alternately with
    /// the library's whole verification.
    #[test]
    #[ignore = "a benchmark"]
    fn xeddsa_parts() {
        use curve25519_dalek::edwards::EdwardsPoint;
        use curve25519_dalek::montgomery::MontgomeryPoint;
        use curve25519_dalek::scalar::Scalar;
        use sha2::{Digest, Sha512};
        use std::hint::black_box;
        let ctx = Ctx { full: true };
        let node = StaticSecret::from_bytes(&[0x5a; 32]).unwrap();
        let signer = XedSigningKey::from_x25519(node.expose());
        let vk = XedVerifyingKey::from_x25519(node.public_key()).unwrap();
        let msg = [0x42u8; 72];
        let sig = signer.sign(&[&msg], &[7u8; 64]);
        let a = MontgomeryPoint(*node.public_key()).to_edwards(0).unwrap();
        let minus_a = -a;
        let s = Scalar::from_canonical_bytes(sig[32..].try_into().unwrap()).unwrap();
        let hash = || {
            let mut h = Sha512::new();
            h.update(&sig[..32]);
            h.update(vk.ed25519_bytes());
            h.update(msg);
            Scalar::from_bytes_mod_order_wide(&h.finalize().into())
        };
        let h = hash();
        let point = EdwardsPoint::vartime_double_scalar_mul_basepoint(&h, &minus_a, &s);
        let mut whole = [0u8; 136];
        whole[..32].copy_from_slice(&sig[..32]);
        whole[32..64].copy_from_slice(vk.ed25519_bytes());
        whole[64..].copy_from_slice(&msg);
        let aws = UnparsedPublicKey::new(&ED25519, *vk.ed25519_bytes());
        let verify = || vk.verify(&[&msg[..12], &msg[12..]], &sig);
        let parts: [(&str, &mut dyn FnMut()); 6] = [
            ("SHA-512 + reduction (sha2)", &mut || {
                black_box(hash());
            }),
            ("SHA-512 (aws-lc-rs)", &mut || {
                black_box(aws_lc_rs::digest::digest(
                    &aws_lc_rs::digest::SHA512,
                    &whole,
                ));
            }),
            ("s·B − h·A (dalek)", &mut || {
                black_box(EdwardsPoint::vartime_double_scalar_mul_basepoint(
                    &h, &minus_a, &s,
                ));
            }),
            ("encode the result (dalek)", &mut || {
                black_box(point.compress());
            }),
            ("X25519 key → Ed25519 (once per key)", &mut || {
                black_box(XedVerifyingKey::from_x25519(node.public_key()));
            }),
            ("aws-lc-rs Ed25519 verify, whole", &mut || {
                black_box(aws.verify(&msg, &sig).is_ok());
            }),
        ];
        for (name, part) in parts {
            let (t, whole_v) = ctx.time_pair_per_op(part, verify);
            println!(
                "{name}: {:.2} µs (XEdDSA verify {:.2} µs)",
                t * 1e6,
                whole_v * 1e6
            );
        }
    }

    #[test]
    fn dalek_and_aws_lc_agree_on_signatures_and_tampering() {
        for k in 0..32u8 {
            let node = StaticSecret::from_bytes(&[k.wrapping_mul(29) ^ 0x5a; 32]).unwrap();
            let signer = XedSigningKey::from_x25519(node.expose());
            let vk = XedVerifyingKey::from_x25519(node.public_key()).unwrap();
            let msg = vec![k; usize::from(k) * 7];
            let sig = signer.sign(&[&msg], &[k; 64]);
            assert_eq!(both(&vk, &msg, &sig), (true, true));
            // s + q: the same residue, not canonical; s = q; top bits set.
            let mut s_plus_q = sig;
            s_plus_q[32..].copy_from_slice(&add_le(&sig[32..], &Q));
            let mut s_is_q = sig;
            s_is_q[32..].copy_from_slice(&Q);
            let mut s_high = sig;
            s_high[63] |= 0xe0;
            for bad in [s_plus_q, s_is_q, s_high] {
                assert_eq!(both(&vk, &msg, &bad), (false, false), "key {k}");
            }
            for byte in [0, 31, 32, 63] {
                let mut bad = sig;
                bad[byte] ^= 1 << (k % 8);
                assert_eq!(both(&vk, &msg, &bad), (false, false), "key {k} byte {byte}");
            }
            let mut other = msg.clone();
            other.push(1);
            assert_eq!(both(&vk, &other, &sig), (false, false));
        }
    }

    #[test]
    fn small_order_keys_are_refused_though_plain_ed25519_verify_takes_forgeries_under_them() {
        // u = 0 maps to (0, −1), of order 2 (Ed25519 encoding y = p − 1);
        // u = 1 to a point of order 4: the library makes no key of either.
        let mut one = [0u8; 32];
        one[0] = 1;
        assert!(XedVerifyingKey::from_x25519(&[0u8; 32]).is_none());
        assert!(XedVerifyingKey::from_x25519(&one).is_none());
        // Under A = (0, −1), R = the identity and s = 0 satisfy
        // s·B − h·A = R for every even h: a signature made with no key.
        let mut a = [0xffu8; 32];
        a[0] = 0xec;
        a[31] = 0x7f;
        let mut sig = [0u8; 64];
        sig[0] = 1;
        let aws = UnparsedPublicKey::new(&ED25519, &a);
        let dalek = ed25519_dalek::VerifyingKey::from_bytes(&a).expect("a point");
        let mut forged = 0;
        for m in 0u32..64 {
            let msg = m.to_le_bytes();
            let by_aws = aws.verify(&msg, &sig).is_ok();
            let by_dalek = dalek
                .verify(&msg, &ed25519_dalek::Signature::from_bytes(&sig))
                .is_ok();
            assert_eq!(by_aws, by_dalek, "message {m}");
            forged += usize::from(by_aws);
        }
        assert!(forged > 0, "no forgery verified under the order-2 key");
    }
}
