//! Sealing and opening many mesh-wide frames across cores.
//!
//! Output is identical to sealing / opening one at a time: each frame gets
//! its own nonce, drawn in order before the parallel part, and results come
//! back in input order.

use super::mesh::MeshKey;
use super::nonce::NonceSource;
use super::PeatError;
use crate::batch::Batch;
use crate::primitives::chacha20poly1305::NONCE_LEN;

/// Seals every plaintext with its own fresh nonce from `nonces`.
pub fn seal_batch<P: AsRef<[u8]> + Sync>(
    batch: &Batch,
    key: &MeshKey,
    nonces: &mut NonceSource,
    plaintexts: &[P],
) -> Vec<Vec<u8>> {
    let jobs: Vec<([u8; NONCE_LEN], &[u8])> = plaintexts
        .iter()
        .map(|p| (nonces.next_nonce(), p.as_ref()))
        .collect();
    batch.map(&jobs, |(n, p)| key.seal_with_nonce(n, p))
}

/// Seals `(nonce, plaintext)` pairs (for reproducing vectors; nonces must be unique).
pub fn seal_batch_with_nonces<P: AsRef<[u8]> + Sync>(
    batch: &Batch,
    key: &MeshKey,
    jobs: &[([u8; NONCE_LEN], P)],
) -> Vec<Vec<u8>> {
    batch.map(jobs, |(n, p)| key.seal_with_nonce(n, p.as_ref()))
}

/// Opens every frame; one result per frame, in order.
pub fn open_batch<F: AsRef<[u8]> + Sync>(
    batch: &Batch,
    key: &MeshKey,
    frames: &[F],
) -> Vec<Result<Vec<u8>, PeatError>> {
    batch.map(frames, |f| key.open(f.as_ref()))
}

/// Opens every frame in place (no allocation); one result per frame, the
/// plaintext length on success. Frames that fail are wiped.
pub fn open_batch_in_place<F: AsMut<[u8]> + Send>(
    batch: &Batch,
    key: &MeshKey,
    frames: &mut [F],
) -> Vec<Result<usize, PeatError>> {
    let mut slots: Vec<(&mut F, Result<usize, PeatError>)> =
        frames.iter_mut().map(|f| (f, Ok(0))).collect();
    batch.for_each_mut(&mut slots, |(f, r)| {
        *r = key.open_in_place(f.as_mut()).map(|p| p.len());
    });
    slots.into_iter().map(|(_, r)| r).collect()
}
