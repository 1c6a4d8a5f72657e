//! Instruction counts and peak stack per operation, beside the planning
//! figures and the targets for the Meshtastic and peat paths.

use crate::library::{engine, test_rng};
use crate::vectors::*;
use ccm::consts::{U13, U8};
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use core::hint::black_box;
use core::str::FromStr;
use sha2::{Digest, Sha256};
use wireseal::cache::Slot;
use wireseal::hazmat::aes_ccm::Aes256Ccm8;
use wireseal::hazmat::aes_ctr::apply_keystream;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::{OVERHEAD, SLOT_BYTES_EXPANDED, SLOT_BYTES_SECRET};
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};
use wireseal::meshtastic::{ChannelKey, PkcEngine, PkcKey, PkcKeyForm, PkcPacket, PkcSecret};
use wireseal::peat::{
    MeshId, MeshKey, PeerSessions, CORE_MAX_SESSIONS, CORE_NONCE_HISTORY, PEER_OVERHEAD,
};
use wireseal_mcu::harness::group;
use wireseal_mcu::{cost, hprintln, Cost};

/// AES-256-CCM as the `ccm` crate computes it (the backend before the
/// paired composition).
type OldCcm = ccm::Ccm<aes::Aes256Enc, U8, U13>;

/// The XEdDSA rows, named for whether curve25519-dalek's precomputed
/// tables are in (feature `dalek-tables`).
const XED: &str = if cfg!(feature = "dalek-tables") {
    "xeddsa verify (library, key conversion + verify, precomputed tables)"
} else {
    "xeddsa verify (library, key conversion + verify)"
};
const XED_KEPT: &str = if cfg!(feature = "dalek-tables") {
    "xeddsa verify, converted key kept (library, precomputed tables)"
} else {
    "xeddsa verify, converted key kept (library)"
};

/// Cortex-M4F clock of the nRF52840 the figures are converted for.
const MHZ: u32 = 64;
/// Cache slots in the measured caches (about what a busy node talks to).
const SLOTS: usize = 16;
/// Payload of the PKC and channel rows.
const PAYLOAD: usize = 200;
/// Document size of the peat rows.
const DOC: usize = 633;

fn row(name: &str, c: Cost) -> Cost {
    let us = (u64::from(c.instructions) * 1000 / u64::from(MHZ) + 500) / 1000;
    hprintln!(
        "measure {:<50} {:>10} instr {:>7} us@64MHz {:>6} B stack",
        name,
        c.instructions,
        us,
        c.stack
    );
    c
}

/// `op`'s cost minus `base`'s (the setup both share).
fn net(op: Cost, base: Cost) -> Cost {
    Cost {
        instructions: op.instructions.saturating_sub(base.instructions),
        stack: op.stack,
    }
}

fn budget(name: &str, value: u32, limit: u32, unit: &str) {
    let ok = value <= limit;
    hprintln!(
        "budget  {:<44} {:>10} {} (limit {}): {}",
        name,
        value,
        unit,
        limit,
        if ok { "met" } else { "MISSED" }
    );
}

pub fn run() {
    let v = &MESH_PKC;
    let their = v.sender_public;
    let ours = v.our_private;
    let key: [u8; 32] = Sha256::digest(x25519_dalek::x25519(ours, their)).into();
    let packet = PkcPacket {
        peer_public: &their,
        from: v.from_node,
        id: v.packet_id,
    };
    let mut rng = test_rng(9);

    // A 200-byte PKC payload from the vector's sender (the key is
    // symmetric: what we seal to the sender opens as coming from it).
    let mut pt = [0u8; PAYLOAD];
    for (i, b) in pt.iter_mut().enumerate() {
        *b = i as u8;
    }
    let mut sealed = [0u8; PAYLOAD + OVERHEAD];
    let mut out = [0u8; PAYLOAD + OVERHEAD];
    if let Some(mut sealer) = engine::<PkcKey>(&ours) {
        let _ = sealer.seal_with_rng_into(0, &mut rng, packet, &pt, &mut sealed);
    }

    // Primitives: the library's backend beside the crates it replaced and
    // the X25519 candidate it does not use.
    let own = StaticSecret::from_bytes(&ours).ok();
    let x25519 = row(
        "x25519 (library: wireseal-fe25519, cortex-m4 assembly)",
        cost(|| {
            own.as_ref()
                .map(|k| k.diffie_hellman(black_box(&their)).is_ok())
        }),
    );
    row(
        "x25519 (x25519-dalek, u32 backend; old backend)",
        cost(|| x25519_dalek::x25519(black_box(ours), their)),
    );
    row(
        "x25519 key generation (library: wireseal-fe25519)",
        cost(|| StaticSecret::from_bytes(black_box(&ours)).map(|k| *k.public_key())),
    );
    row(
        "x25519 (salty 0.3, cortex-m4 assembly; candidate, wrong on wycheproof)",
        cost(|| salty::agreement::x25519(black_box(ours), their)),
    );
    row(
        "sha-256 of 32 B",
        cost(|| -> [u8; 32] { Sha256::digest(black_box(key)).into() }),
    );
    row(
        "aes-256 key expansion (encrypt only)",
        cost(|| Aes256Ccm8::new(black_box(&key))),
    );
    let ccm = Aes256Ccm8::new(&key);
    let tag = [0u8; 8];
    row(
        "aes-256-ccm decrypt + tag check 200 B (library, paired blocks, expanded key)",
        cost(|| ccm.open_in_place(&[7; 13], b"", black_box(&mut out[..PAYLOAD]), &tag)),
    );
    let old_ccm = OldCcm::new((&key).into());
    row(
        "aes-256-ccm decrypt + tag check 200 B (ccm crate, expanded key; old backend)",
        cost(|| {
            old_ccm.decrypt_in_place_detached(
                (&[7; 13]).into(),
                b"",
                black_box(&mut out[..PAYLOAD]),
                (&tag).into(),
            )
        }),
    );
    // The PKC open as the crates before this backend compose it: X25519,
    // SHA-256, key expansion and CCM, no cache.
    let (ct, rest) = sealed.split_at(PAYLOAD);
    let old_tag: [u8; 8] = rest[..8].try_into().unwrap_or_default();
    let extra: [u8; 4] = rest[8..].try_into().unwrap_or_default();
    let nonce = wireseal::meshtastic::pkc::nonce(v.from_node, v.packet_id, extra);
    // The old backend's open with a known 32-byte key: expansion and CCM.
    let mut old_open = |k: &[u8; 32]| {
        out[..PAYLOAD].copy_from_slice(ct);
        OldCcm::new(k.into())
            .decrypt_in_place_detached((&nonce).into(), b"", &mut out[..PAYLOAD], (&old_tag).into())
            .is_ok()
    };
    row(
        "pkc open 200 B uncached (x25519-dalek, sha2, ccm crate; old backend)",
        cost(|| {
            let k: [u8; 32] = Sha256::digest(x25519_dalek::x25519(ours, black_box(their))).into();
            old_open(&k)
        }),
    );
    row(
        "pkc open 200 B, 32-byte key known, no lookup (ccm crate; old backend)",
        cost(|| old_open(black_box(&key))),
    );
    let mut buf = [0u8; PAYLOAD];
    row(
        "aes-256-ctr 200 B (with key expansion)",
        cost(|| apply_keystream(&key, &[3; 16], black_box(&mut buf))),
    );
    let chacha = chacha20poly1305::ChaCha20Poly1305::new((&key).into());
    let mut doc = [0u8; DOC];
    row(
        "chacha20-poly1305 seal 633 B (expanded key)",
        cost(|| chacha.encrypt_in_place_detached((&[9u8; 12]).into(), b"", black_box(&mut doc))),
    );

    // Meshtastic PKC through the library's engine, 16 slots, full.
    let (uncached, cached) = pkc_rows::<PkcSecret>(packet, &sealed, "32-byte key slot");
    let (_, cached_ccm) = pkc_rows::<PkcKey>(packet, &sealed, "expanded-key slot");
    if let Some(mut e) = full_engine::<PkcSecret>(&ours, &mut rng) {
        let mut now = 10;
        let _ = e.open_into(now, packet, &sealed, &mut out);
        row(
            "pkc seal 200 B cached (library, 32-byte key slot)",
            cost(|| {
                now += 1;
                e.seal_with_rng_into(now, &mut rng, packet, black_box(&pt), &mut out)
            }),
        );
        let forget = cost(|| e.invalidate_peer(black_box(&their)));
        row(
            "pkc seal 200 B uncached (library, miss, 16-slot cache)",
            net(
                cost(|| {
                    now += 1;
                    e.invalidate_peer(&their);
                    e.seal_with_rng_into(now, &mut rng, packet, black_box(&pt), &mut out)
                }),
                forget,
            ),
        );
        let absent = [0x55u8; 32];
        row(
            "cache lookup, 16 slots, constant time (library)",
            cost(|| e.cache().peek(now, black_box(&absent)).is_some()),
        );
    }

    // Channel: the default key is AES-128 (LongFast); 32-byte PSKs too.
    let channel = ChannelKey::from_psk(&MESH_CHANNEL.psk).ok();
    row(
        "channel decrypt 200 B aes-128-ctr (library, key expanded)",
        cost(|| {
            channel.as_ref().map(|k| {
                k.open_in_place(v.from_node, v.packet_id, black_box(&mut buf))
                    .is_ok()
            })
        }),
    );

    // peat: the mesh key derived and expanded once.
    let pv = &PEAT_MESH[0];
    let id = MeshId::from_str(pv.mesh_id).ok();
    row(
        "peat mesh key derivation (library, hkdf-sha256)",
        cost(|| {
            id.as_ref()
                .map(|id| MeshKey::derive(id, black_box(&pv.secret)))
        }),
    );
    let mesh = id.as_ref().map(|id| MeshKey::derive(id, &pv.secret));
    let mut frame = [0u8; DOC + 30];
    let peat_rt = row(
        "peat seal + open 633 B (library)",
        cost(|| {
            let m = mesh.as_ref()?;
            let n = m
                .seal_with_rng_into(&mut rng, black_box(&doc), &mut frame)
                .ok()?;
            m.open_in_place(&mut frame[..n]).ok().map(|p| p.len())
        }),
    );

    // peat per-peer: frames over an established session in the fixed table,
    // and re-establishing a session (its X25519 result cached).
    let (mut pa, mut pb) = crate::library_peat::pair(8);
    let mut pframe = [0u8; DOC + PEER_OVERHEAD];
    let mut pnow = 10;
    row(
        "peat per-peer seal + open 633 B (library, fixed table)",
        cost(|| {
            pnow += 1;
            let n = pa
                .seal_with_rng_into(pnow, &mut rng, 0x2222, black_box(&doc), &mut pframe)
                .ok()?;
            pb.open_in_place(pnow, &mut pframe[..n])
                .ok()
                .map(|p| p.len())
        }),
    );
    let kx = pa.key_exchange_frame();
    row(
        "peat key exchange, shared secret cached (library)",
        cost(|| {
            pb.remove(0x1111);
            pb.handle_key_exchange(pnow, black_box(&kx)).is_ok()
        }),
    );

    // XEdDSA verify of a Meshtastic packet signature.
    let signer = StaticSecret::generate_with_rng(&mut rng);
    let fields = SignedFields {
        from: v.from_node,
        id: v.packet_id,
        portnum: 1,
        payload: &pt[..64],
    };
    let signing_key = SigningKey::from_secret(&signer);
    let sig = signing_key.sign_with_rng(&mut rng, &fields);
    let xed_sign = row(
        "xeddsa sign (library)",
        cost(|| signing_key.sign_with_rng(&mut rng, black_box(&fields))),
    );
    let signer_public = *signer.public_key();
    let xed = row(
        XED,
        cost(|| {
            VerifyingKey::from_x25519(black_box(&signer_public)).map(|k| k.verify(&fields, &sig))
        }),
    );
    let xed_kept = VerifyingKey::from_x25519(&signer_public)
        .map(|k| row(XED_KEPT, cost(|| k.verify(black_box(&fields), &sig))));

    hprintln!(
        "ram     cache slot: {} B with the 32-byte key, {} B with the expanded key",
        SLOT_BYTES_SECRET,
        SLOT_BYTES_EXPANDED
    );
    hprintln!(
        "ram     peat session table: {} B for {} sessions of {} nonces",
        core::mem::size_of::<PeerSessions>(),
        CORE_MAX_SESSIONS,
        CORE_NONCE_HISTORY
    );
    let ratio10 = |cached: Cost| uncached.instructions * 10 / cached.instructions.max(1);
    for (slot, c) in [("32-byte key", cached), ("expanded-key", cached_ccm)] {
        hprintln!(
            "ratio   pkc open uncached / cached ({} slot): {}.{}x",
            slot,
            ratio10(c) / 10,
            ratio10(c) % 10
        );
    }
    budget("x25519", x25519.instructions, 600_000, "instr");
    budget("x25519 stack", x25519.stack, 2048, "B");
    budget(
        "pkc open 200 B uncached",
        uncached.instructions,
        680_000,
        "instr",
    );
    budget(
        "pkc open 200 B cached (32-byte key slot)",
        cached.instructions,
        80_000,
        "instr",
    );
    budget(
        "peat seal + open 633 B",
        peat_rt.instructions,
        60_000,
        "instr",
    );
    budget("xeddsa verify", xed.instructions, 1_000_000, "instr");
    budget("xeddsa sign", xed_sign.instructions, 700_000, "instr");
    match xed_kept {
        Ok(kept) if cfg!(feature = "dalek-tables") => budget(
            "xeddsa verify, key kept (precomputed tables)",
            kept.instructions,
            1_400_000,
            "instr",
        ),
        _ => hprintln!("budget  xeddsa verify, key kept: measured with --features dalek-tables"),
    }
    budget(
        "cache slot RAM (32-byte key)",
        SLOT_BYTES_SECRET as u32,
        80,
        "B",
    );

    let mut g = group("measurements are consistent");
    g.check(
        cached.instructions < uncached.instructions,
        format_args!(
            "cached {} >= uncached {}",
            cached.instructions, uncached.instructions
        ),
    );
    g.check(
        cached_ccm.instructions < cached.instructions,
        format_args!("expanded-key slot not cheaper"),
    );
    g.check(
        SLOT_BYTES_SECRET <= 80,
        format_args!("32-byte key slot {} B", SLOT_BYTES_SECRET),
    );
    g.end();
}

/// An engine for `ours` with 16 slots, 15 of them holding other peers.
fn full_engine<K: PkcKeyForm>(
    ours: &[u8; 32],
    rng: &mut rand_chacha::ChaCha20Rng,
) -> Option<PkcEngine<K, [Slot<K>; 16]>> {
    let mut e = engine::<K>(ours)?;
    let mut out = [0u8; 16];
    for i in 0..SLOTS as u32 - 1 {
        let peer = *StaticSecret::generate_with_rng(rng).public_key();
        let p = PkcPacket {
            peer_public: &peer,
            from: i,
            id: i,
        };
        let _ = e.open_into(u64::from(i), p, &[0u8; 16], &mut out);
    }
    Some(e)
}

/// The uncached and cached open of `sealed` through a full 16-slot engine
/// holding keys in the form `K`; prints both rows.
fn pkc_rows<K: PkcKeyForm>(packet: PkcPacket<'_>, sealed: &[u8], form: &str) -> (Cost, Cost) {
    let mut rng = test_rng(4);
    let Some(mut e) = full_engine::<K>(&MESH_PKC.our_private, &mut rng) else {
        return (
            Cost {
                instructions: 0,
                stack: 0,
            },
            Cost {
                instructions: 0,
                stack: 0,
            },
        );
    };
    let mut out = [0u8; PAYLOAD + OVERHEAD];
    let mut now = 100;
    // Each uncached open first forgets the peer (a scan of the slots,
    // measured alone and subtracted).
    let forget = cost(|| e.invalidate_peer(black_box(packet.peer_public)));
    let uncached = net(
        cost(|| {
            now += 1;
            e.invalidate_peer(packet.peer_public);
            e.open_into(now, packet, black_box(sealed), &mut out)
        }),
        forget,
    );
    let cached = cost(|| {
        now += 1;
        e.open_into(now, packet, black_box(sealed), &mut out)
    });
    if form == "32-byte key slot" {
        row(
            "pkc open 200 B uncached (library, miss, 16-slot cache)",
            uncached,
        );
        row("pkc open 200 B cached (library, 32-byte key slot)", cached);
    } else {
        row("pkc open 200 B cached (library, expanded-key slot)", cached);
    }
    (uncached, cached)
}
