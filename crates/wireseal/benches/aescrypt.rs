#![allow(missing_docs)] // criterion_group! generates an undocumented function
//! Criterion benches for AES Crypt: bulk encrypt/decrypt (v2) at 16 MiB,
//! a 1 KiB file, and per-file IV + key generation.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::io::Write;
use wireseal::aescrypt::{self, EncryptOptions, Limits, SessionMaterial};
use wireseal::batch::Batch;

const PW: &str = "correct horse battery staple";

fn bulk(c: &mut Criterion) {
    let size = 16 << 20;
    let data = vec![0x42u8; size];
    let opts = EncryptOptions::v2();
    let batch = Batch::all_cores();
    let mut g = c.benchmark_group("aescrypt_bulk_16MiB");
    g.throughput(Throughput::Bytes(size as u64));
    g.sample_size(10);
    let mut out = Vec::with_capacity(aescrypt::encrypted_len(&opts, size));
    g.bench_function("encrypt_v2", |b| {
        b.iter(|| {
            out.clear();
            let mut e = aescrypt::io::EncryptWriter::new(&batch, &mut out, PW, &opts).unwrap();
            e.write_all(&data).unwrap();
            e.finish().unwrap();
        })
    });
    let ct = aescrypt::encrypt_to_vec(&batch, PW, &data, &opts).unwrap();
    let mut plain = Vec::with_capacity(size);
    g.bench_function("decrypt_v2_one_pass", |b| {
        b.iter(|| {
            plain.clear();
            aescrypt::io::decrypt_into_sink(&batch, PW, &ct[..], &mut plain, &Limits::default())
                .unwrap()
        })
    });
    g.finish();
}

fn small(c: &mut Criterion) {
    let kib = [7u8; 1024];
    let opts = EncryptOptions::v2();
    let batch = Batch::all_cores();
    c.bench_function("aescrypt_encrypt_1KiB_v2", |b| {
        b.iter(|| aescrypt::encrypt_to_vec(&batch, PW, black_box(&kib), &opts).unwrap())
    });
    c.bench_function("aescrypt_iv_key_generation", |b| {
        b.iter(SessionMaterial::generate)
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = bulk, small
}
criterion_main!(benches);
