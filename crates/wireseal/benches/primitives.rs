//! Candidate primitive implementations measured side by side: the numbers
//! behind docs/crypto-choices.md.
#![allow(missing_docs)] // criterion_group! generates undocumented functions

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wireseal::hazmat::{
    aes_ccm::Aes256Ccm8, chacha20poly1305::ChaChaKey, sha, x25519::StaticSecret,
};

fn x25519(c: &mut Criterion) {
    let mut g = c.benchmark_group("x25519_shared_secret");
    let a = StaticSecret::generate();
    let peer = *StaticSecret::generate().public_key();
    g.bench_function("aws-lc-rs", |b| {
        b.iter(|| a.diffie_hellman(black_box(&peer)).unwrap())
    });
    let d = x25519_dalek::StaticSecret::from(*a.expose());
    let dp = x25519_dalek::PublicKey::from(peer);
    g.bench_function("x25519-dalek", |b| {
        b.iter(|| d.diffie_hellman(black_box(&dp)))
    });
    g.finish();
}

fn chacha(c: &mut Criterion) {
    for size in [64usize, 633, 16384] {
        let mut g = c.benchmark_group(format!("chacha20poly1305_seal_{size}B"));
        g.throughput(Throughput::Bytes(size as u64));
        let key = [7u8; 32];
        let mut buf = vec![0u8; size];
        let ours = ChaChaKey::new(&key);
        g.bench_function("aws-lc-rs", |b| {
            b.iter(|| ours.seal_in_place(&[1u8; 12], b"", black_box(&mut buf)))
        });
        let rc = chacha20poly1305::ChaCha20Poly1305::new(&key.into());
        g.bench_function("RustCrypto", |b| {
            b.iter(|| {
                rc.encrypt_in_place_detached(&[1u8; 12].into(), b"", black_box(&mut buf))
                    .unwrap()
            })
        });
        g.finish();
    }
}

fn ccm_and_sha(c: &mut Criterion) {
    let mut g = c.benchmark_group("aes256_ccm8_seal_200B");
    g.throughput(Throughput::Bytes(200));
    let k = Aes256Ccm8::new(&[3u8; 32]);
    let mut buf = [0u8; 200];
    g.bench_function("RustCrypto ccm+aes (AES-NI)", |b| {
        b.iter(|| k.seal_in_place(&[0u8; 13], b"", black_box(&mut buf)))
    });
    let mut sealed = [0u8; 200];
    let tag = k.seal_in_place(&[0u8; 13], b"", &mut sealed).unwrap();
    g.bench_function("open (RustCrypto ccm+aes)", |b| {
        b.iter(|| {
            let mut c = sealed;
            k.open_in_place(&[0u8; 13], b"", black_box(&mut c), &tag)
                .unwrap();
            c
        })
    });
    g.bench_function("key expansion", |b| {
        b.iter(|| Aes256Ccm8::new(black_box(&[3u8; 32])))
    });
    g.finish();
    let mut g = c.benchmark_group("sha256_32B");
    g.bench_function("sha2 (SHA-NI)", |b| {
        b.iter(|| sha::sha256(black_box(&[0u8; 32])))
    });
    g.bench_function("aws-lc-rs digest", |b| {
        b.iter(|| aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, black_box(&[0u8; 32])))
    });
    g.finish();
}

fn hmac_bulk(c: &mut Criterion) {
    let data = vec![0x5au8; 1 << 20];
    let mut g = c.benchmark_group("hmac_sha256_1MiB");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("RustCrypto hmac+sha2 (SHA-NI)", |b| {
        b.iter(|| sha::hmac_sha256(&[1u8; 32], &[black_box(&data)]))
    });
    let k = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &[1u8; 32]);
    g.bench_function("aws-lc-rs hmac", |b| {
        b.iter(|| aws_lc_rs::hmac::sign(&k, black_box(&data)))
    });
    g.finish();
}

criterion_group!(benches, x25519, chacha, ccm_and_sha, hmac_bulk);
criterion_main!(benches);
