//! Differential against LDK (`lightning` 0.2.7): one payment onion peeled
//! by wireseal (`Onion::peel`) and by LDK
//! (`lightning::ln::onion_payment::peel_payment_onion`) for the same node.
//! (Attribution data against LDK's origin is `sphinx_ldk_attribution`.)
//!
//! After the first byte, the input is the decrypted routing area (hop frame,
//! payload, next HMAC, filler) that a sender with a fixed session key
//! encrypts and MACs for the node, so the fuzzer reaches the frame parser
//! behind a valid HMAC; the first byte (modulo 4) may instead have the
//! version byte replaced, one byte of the packet flipped or the ephemeral
//! key replaced. Both must agree:
//! * a bad version, ephemeral key or HMAC is refused by both, for that reason;
//! * a frame wireseal refuses (`BadPayload`, `FrameOverflow`) LDK refuses too;
//! * when wireseal peels, LDK refuses only for its payload policy (amounts,
//!   CLTV, required TLVs), never for the packet itself; when both peel, both
//!   forward (with byte-identical next onions) or both receive.
//!
//! Built with `cfg(fuzzing)` (a `cargo fuzz` run without
//! `--no-cfg-fuzzing`), LDK replaces its ChaCha20 with a stub that leaves
//! bytes as they are. The target then sees that (LDK's own randomness is all
//! zero), hands LDK's peel the routing area in the clear under an HMAC over
//! it, and expects the next onion LDK forwards to be wireseal's with the
//! refilled tail left zero (wireseal's is the `rho` stream, checked too).
#![no_main]
use libfuzzer_sys::fuzz_target;
use lightning::bitcoin::secp256k1::{PublicKey as LdkPublicKey, Secp256k1};
use lightning::ln::channelmanager::PendingHTLCRouting;
use lightning::ln::msgs::{OnionPacket, UpdateAddHTLC};
use lightning::ln::onion_payment::peel_payment_onion;
use lightning::ln::onion_utils::LocalHTLCFailureReason as Reason;
use lightning::ln::types::ChannelId;
use lightning::sign::{EntropySource, KeysManager};
use lightning::types::payment::PaymentHash;
use lightning::util::logger::{Logger, Record};
use std::sync::OnceLock;
use wireseal::hazmat::chacha20::KeyStream;
use wireseal::hazmat::sha::hmac_sha256;
use wireseal::keys::PrivateKey;
use wireseal::sphinx::{bigsize, keys, Error, Onion, Peeled, PAYMENT_AREA};

const HEIGHT: u32 = 800_000;
const PAYMENT_HASH: [u8; 32] = [5; 32];
/// The HTLC's amount; the seeds' payloads forward or receive exactly this.
const AMOUNT_MSAT: u64 = 1000;

struct NoLog;
impl Logger for NoLog {
    fn log(&self, _: Record) {}
}

struct Setup {
    ldk: KeysManager,
    /// LDK was built with `cfg(fuzzing)`: its ChaCha20 is a stub.
    stubbed: bool,
    secp: Secp256k1<lightning::bitcoin::secp256k1::All>,
    node: PrivateKey,
    /// The sender's ephemeral key (compressed) and its secret with the node.
    ephemeral: [u8; 33],
    rho: [u8; 32],
    mu: [u8; 32],
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let ldk = KeysManager::new(&[1; 32], 1, 0, true);
        // Real ChaCha20 never gives 32 zero bytes from a key; LDK's stub does.
        let stubbed = ldk.get_secure_random_bytes() == [0; 32];
        if stubbed {
            eprintln!(
                "sphinx_ldk_differential: LDK was built with cfg(fuzzing) (its ChaCha20 is a stub): \
                 onions go to LDK with their routing area in the clear"
            );
        }
        let node = PrivateKey::from_bytes(&ldk.get_node_secret_key().secret_bytes()).unwrap();
        let session = PrivateKey::from_bytes(&[0x21; 32]).unwrap();
        let (first, secrets) =
            keys::session_secrets(&session, std::iter::once(node.public_key())).unwrap();
        let ss = secrets.hop(1).unwrap().expose();
        Setup {
            ldk,
            stubbed,
            secp: Secp256k1::new(),
            node,
            ephemeral: first.serialize(),
            rho: *keys::derive(keys::KeyKind::Rho, ss).expose(),
            mu: *keys::derive(keys::KeyKind::Mu, ss).expose(),
        }
    })
}

/// The 1366-byte onion whose routing area decrypts to `plain` (zero
/// padded); with `clear`, the area is left unencrypted (what LDK's stubbed
/// ChaCha20 decrypts to `plain`).
fn onion(s: &Setup, plain: &[u8], clear: bool) -> Vec<u8> {
    let mut area = vec![0u8; PAYMENT_AREA];
    let n = plain.len().min(PAYMENT_AREA);
    area[..n].copy_from_slice(&plain[..n]);
    if !clear {
        KeyStream::new(&s.rho, 0).xor(&mut area);
    }
    let mac = hmac_sha256(&s.mu, &[&area, &PAYMENT_HASH]);
    let mut packet = vec![0u8];
    packet.extend_from_slice(&s.ephemeral);
    packet.extend_from_slice(&area);
    packet.extend_from_slice(&mac);
    packet
}

fn ldk_peel(s: &Setup, packet: &[u8]) -> Result<PendingHTLCRouting, Reason> {
    let msg = UpdateAddHTLC {
        channel_id: ChannelId([0; 32]),
        htlc_id: 0,
        amount_msat: AMOUNT_MSAT,
        payment_hash: PaymentHash(PAYMENT_HASH),
        cltv_expiry: HEIGHT + 2016,
        skimmed_fee_msat: None,
        onion_routing_packet: OnionPacket {
            version: packet[0],
            public_key: LdkPublicKey::from_slice(&packet[1..34]),
            hop_data: packet[34..34 + PAYMENT_AREA].try_into().unwrap(),
            hmac: packet[34 + PAYMENT_AREA..].try_into().unwrap(),
        },
        blinding_point: None,
        hold_htlc: None,
    };
    peel_payment_onion(&msg, &s.ldk, &NoLog, &s.secp, HEIGHT, false)
        .map(|info| info.routing)
        .map_err(|e| e.reason)
}

/// LDK's serialization of a forwarded onion.
fn ldk_bytes(p: &OnionPacket) -> Vec<u8> {
    let mut out = vec![p.version];
    out.extend_from_slice(&p.public_key.expect("forwarded key is valid").serialize());
    out.extend_from_slice(&p.hop_data);
    out.extend_from_slice(&p.hmac);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let s = setup();
    let (tweak, plain) = match mode % 4 {
        0 => (&[][..], rest),
        _ => rest.split_at(rest.len().min(34)),
    };
    let mut packet = onion(s, plain, false);
    let mut for_ldk = onion(s, plain, s.stubbed);
    for p in [&mut packet, &mut for_ldk] {
        match mode % 4 {
            1 => p[0] = tweak.first().copied().unwrap_or(1),
            2 if tweak.len() >= 3 && tweak[2] != 0 => {
                let at = u16::from_le_bytes([tweak[0], tweak[1]]) as usize % p.len();
                p[at] ^= tweak[2];
            }
            3 if tweak.len() >= 33 => p[1..34].copy_from_slice(&tweak[..33]),
            _ => {}
        }
    }

    let ours = Onion::parse(&packet).and_then(|o| o.peel(&s.node, &PAYMENT_HASH));
    let theirs = ldk_peel(s, &for_ldk);
    let packet_level = |r: &Reason| {
        matches!(
            r,
            Reason::InvalidOnionVersion | Reason::InvalidOnionHMAC | Reason::InvalidOnionKey
        )
    };
    match (&ours, &theirs) {
        (Err(Error::UnknownVersion(_)), Err(r)) => assert_eq!(*r, Reason::InvalidOnionVersion),
        (Err(Error::InvalidKey), Err(r)) => assert_eq!(*r, Reason::InvalidOnionKey),
        (Err(Error::Auth), Err(r)) => assert_eq!(*r, Reason::InvalidOnionHMAC),
        (Err(Error::BadPayload | Error::FrameOverflow), Err(r)) => {
            assert!(!packet_level(r), "wireseal: frame refused; LDK: {r:?}")
        }
        (Ok(_), Err(r)) => assert!(!packet_level(r), "wireseal peeled; LDK: {r:?}"),
        (
            Ok(Peeled::Forward { next, payload, .. }),
            Ok(PendingHTLCRouting::Forward { onion_packet, .. }),
        ) => {
            let (ours, theirs) = (next.to_vec(), ldk_bytes(onion_packet));
            if s.stubbed {
                // The frame (length, payload, HMAC) shifted out; LDK's stub
                // leaves the refilled tail zero, ours is the rho stream past
                // the area.
                let shift = bigsize::len(payload.len() as u64) + payload.len() + 32;
                let (keep, end) = (34 + PAYMENT_AREA - shift, 34 + PAYMENT_AREA);
                assert_eq!(ours[..keep], theirs[..keep], "next onions differ");
                assert_eq!(ours[end..], theirs[end..], "next HMACs differ");
                assert!(theirs[keep..end].iter().all(|b| *b == 0), "LDK's stub tail");
                let mut stream = vec![0u8; PAYMENT_AREA + shift];
                KeyStream::new(&s.rho, 0).xor(&mut stream);
                assert_eq!(ours[keep..end], stream[PAYMENT_AREA..], "our refilled tail");
            } else {
                assert_eq!(ours, theirs, "next onions differ");
            }
        }
        (
            Ok(Peeled::Final { .. }),
            Ok(PendingHTLCRouting::Receive { .. } | PendingHTLCRouting::ReceiveKeysend { .. }),
        ) => {}
        (a, b) => panic!(
            "wireseal and LDK disagree: {:?} vs {:?}",
            a.as_ref().map(|p| p.payload().len()),
            b.as_ref().map(std::mem::discriminant)
        ),
    }
});
