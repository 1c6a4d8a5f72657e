//! Instruction counts and peak stack per operation, beside the planning
//! figures and the targets for the Meshtastic and peat paths.

use crate::vectors::*;
use chacha20poly1305::aead::AeadInPlace;
use sha2::{Digest, Sha256};
use wireseal_mcu::harness::group;
use wireseal_mcu::ops::{meshtastic as mesh, peat, xeddsa};
use wireseal_mcu::{cost, hprintln, Cost};

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
    let key = mesh::shared_key(&ours, &their).unwrap_or([0; 32]);
    let ccm = mesh::ccm(&key);

    // A 200-byte PKC payload and a 200-byte channel payload.
    let mut sealed = [0u8; PAYLOAD + mesh::PKC_OVERHEAD];
    for (i, b) in sealed[..PAYLOAD].iter_mut().enumerate() {
        *b = i as u8;
    }
    let extra = [1, 2, 3, 4];
    let _ = mesh::pkc_seal(&ccm, v.from_node, v.packet_id, &extra, &mut sealed, PAYLOAD);
    let copy = || {
        let mut b = sealed;
        core::hint::black_box(&mut b);
        b
    };
    let copy_cost = cost(copy);

    // Primitives, beside the planning figures.
    row(
        "x25519 (x25519-dalek, u32 backend)",
        cost(|| x25519_dalek::x25519(core::hint::black_box(ours), their)),
    );
    row(
        "sha-256 of 32 B",
        cost(|| -> [u8; 32] { Sha256::digest(core::hint::black_box(key)).into() }),
    );
    row(
        "aes-256 key expansion (encrypt only)",
        cost(|| mesh::ccm(core::hint::black_box(&key))),
    );
    let ccm_open = net(
        cost(|| {
            let mut b = copy();
            mesh::pkc_open(&ccm, v.from_node, v.packet_id, &mut b)
        }),
        copy_cost,
    );
    row("aes-256-ccm open 200 B (expanded key)", ccm_open);
    let mut buf = [0u8; PAYLOAD];
    let iv = mesh::channel_iv(v.packet_id, v.from_node);
    row(
        "aes-256-ctr 200 B (with key expansion)",
        cost(|| mesh::channel_crypt(&key, &iv, core::hint::black_box(&mut buf))),
    );
    let chacha = peat::cipher(&key);
    let mut doc = [0u8; DOC];
    let nonce12 = [9u8; 12];
    row(
        "chacha20-poly1305 seal 633 B (expanded key)",
        cost(|| {
            chacha.encrypt_in_place_detached(
                (&nonce12).into(),
                b"",
                core::hint::black_box(&mut doc),
            )
        }),
    );

    // Meshtastic PKC through a 16-slot cache (full, so a miss evicts).
    let mut keys_cache = mesh::Cache::<[u8; 32], SLOTS>::default();
    let mut ccm_cache = mesh::Cache::<mesh::Ccm8, SLOTS>::default();
    for i in 0..SLOTS as u32 - 1 {
        let mut p = [0u8; 32];
        p[..4].copy_from_slice(&i.to_le_bytes());
        let _ = keys_cache.get_or_insert(&p, i, || Some([i as u8; 32]));
        let _ = ccm_cache.get_or_insert(&p, i, || Some(mesh::ccm(&[i as u8; 32])));
    }
    let _ = keys_cache.get_or_insert(&their, 100, || Some(key));
    let _ = ccm_cache.get_or_insert(&their, 100, || Some(mesh::ccm(&key)));
    let miss_template = {
        let mut c = keys_cache.clone();
        let mut other = their;
        other[31] ^= 0x40;
        // `their` replaced: a lookup of it now misses.
        for t in 0..SLOTS as u32 {
            let mut p = other;
            p[0] = t as u8;
            let _ = c.get_or_insert(&p, 200 + t, || Some([0; 32]));
        }
        c
    };
    let clone_cost = cost(|| core::hint::black_box(miss_template.clone()));
    let uncached = net(
        cost(|| {
            let mut c = miss_template.clone();
            let mut b = copy();
            let k = *c.get_or_insert(&their, 1000, || mesh::shared_key(&ours, &their))?;
            mesh::pkc_open(&mesh::ccm(&k), v.from_node, v.packet_id, &mut b)
        }),
        Cost {
            instructions: clone_cost.instructions + copy_cost.instructions,
            stack: 0,
        },
    );
    row("pkc open 200 B uncached (miss, 16-slot cache)", uncached);
    let mut now = 1000;
    let cached = net(
        cost(|| {
            now += 1;
            let mut b = copy();
            let k = *keys_cache.get_or_insert(&their, now, || None)?;
            mesh::pkc_open(&mesh::ccm(&k), v.from_node, v.packet_id, &mut b)
        }),
        copy_cost,
    );
    row("pkc open 200 B cached (32-byte key slot)", cached);
    let cached_ccm = net(
        cost(|| {
            now += 1;
            let mut b = copy();
            let c = ccm_cache.get_or_insert(&their, now, || None)?;
            mesh::pkc_open(c, v.from_node, v.packet_id, &mut b)
        }),
        copy_cost,
    );
    row("pkc open 200 B cached (expanded-key slot)", cached_ccm);
    let seal_cached = cost(|| {
        now += 1;
        let mut b = [0u8; PAYLOAD + mesh::PKC_OVERHEAD];
        let k = *keys_cache.get_or_insert(&their, now, || None)?;
        mesh::pkc_seal(
            &mesh::ccm(&k),
            v.from_node,
            v.packet_id,
            &extra,
            &mut b,
            PAYLOAD,
        )
    });
    row("pkc seal 200 B cached (32-byte key slot)", seal_cached);
    let seal_uncached = net(
        cost(|| {
            let mut c = miss_template.clone();
            let mut b = [0u8; PAYLOAD + mesh::PKC_OVERHEAD];
            let k = *c.get_or_insert(&their, 1000, || mesh::shared_key(&ours, &their))?;
            mesh::pkc_seal(
                &mesh::ccm(&k),
                v.from_node,
                v.packet_id,
                &extra,
                &mut b,
                PAYLOAD,
            )
        }),
        clone_cost,
    );
    row("pkc seal 200 B uncached", seal_uncached);
    row(
        "cache lookup, 16 slots, constant time",
        cost(|| keys_cache.find(core::hint::black_box(&their))),
    );

    // Channel: the default key is AES-128 (LongFast); 32-byte PSKs too.
    let psk = MESH_CHANNEL.psk;
    let channel = row(
        "channel decrypt 200 B aes-128-ctr (with key exp.)",
        cost(|| mesh::channel_crypt(&psk, &iv, core::hint::black_box(&mut buf))),
    );

    // peat: the mesh key derived and expanded once.
    let pk = peat::derive_key(PEAT_MESH[0].mesh_id, &PEAT_MESH[0].secret);
    row(
        "peat mesh key derivation (hkdf-sha256)",
        cost(|| {
            peat::derive_key(
                PEAT_MESH[0].mesh_id,
                core::hint::black_box(&PEAT_MESH[0].secret),
            )
        }),
    );
    let pc = peat::cipher(&pk);
    let mut frame = [0u8; DOC + 30];
    let peat_rt = row(
        "peat seal + open 633 B",
        cost(|| {
            let n = peat::seal(&pc, &nonce12, core::hint::black_box(&doc), &mut frame)?;
            peat::open(&pc, &mut frame[..n])
        }),
    );

    // XEdDSA verify of a Meshtastic-signed message made by libxeddsa.
    let xv = &XEDDSA_PEER[7];
    let xed = row(
        "xeddsa verify (key conversion + verify)",
        cost(|| {
            xeddsa::VerifyingKey::from_x25519(core::hint::black_box(&xv.public))
                .map(|k| k.verify(xv.message, &xv.signature))
        }),
    );
    if let Some(k) = xeddsa::VerifyingKey::from_x25519(&xv.public) {
        row(
            "xeddsa verify, converted key kept",
            cost(|| k.verify(core::hint::black_box(xv.message), &xv.signature)),
        );
    }

    hprintln!(
        "ram     cache slot: {} B with the 32-byte key, {} B with the expanded key",
        mesh::Cache::<[u8; 32], 1>::SLOT_BYTES,
        mesh::Cache::<mesh::Ccm8, 1>::SLOT_BYTES
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
    budget(
        "pkc open 200 B uncached",
        uncached.instructions,
        1_500_000,
        "instr",
    );
    budget(
        "pkc open 200 B cached (32-byte key slot)",
        cached.instructions,
        110_000,
        "instr",
    );
    budget(
        "pkc open 200 B cached (expanded-key slot)",
        cached_ccm.instructions,
        110_000,
        "instr",
    );
    for (name, c) in [
        ("uncached/cached ratio x10 (32-byte key slot)", cached),
        ("uncached/cached ratio x10 (expanded-key slot)", cached_ccm),
    ] {
        let r = ratio10(c);
        hprintln!(
            "budget  {:<44} {:>10} (limit >= 130): {}",
            name,
            r,
            if r >= 130 { "met" } else { "MISSED" }
        );
    }
    budget(
        "peat seal + open 633 B",
        peat_rt.instructions,
        60_000,
        "instr",
    );
    budget("xeddsa verify", xed.instructions, 3_500_000, "instr");
    budget(
        "cache slot RAM (32-byte key)",
        mesh::Cache::<[u8; 32], 1>::SLOT_BYTES as u32,
        80,
        "B",
    );
    let _ = channel;

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
    g.end();
}
