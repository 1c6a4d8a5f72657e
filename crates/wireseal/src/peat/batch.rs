//! Sealing and opening many mesh-wide frames across cores.
//!
//! Output is identical to sealing / opening one at a time: each frame gets
//! its own nonce, drawn in order before the parallel part, and results come
//! back in input order.
//!
//! [`seal_batch_into`] and [`open_batch_in_place_ranges`] work in one caller
//! buffer, frames back to back, with no allocation per frame (one list of
//! ranges or results per batch): reuse the buffer across batches and the
//! cores spend their time in the AEAD, not in the allocator and page faults.

use super::mesh::{sealed_len, MeshKey};
use super::PeatError;
use crate::batch::Batch;
use crate::entropy::NonceSource;
use crate::primitives::chacha20poly1305::NONCE_LEN;
use std::ops::Range;

/// Seals every plaintext with its own fresh nonce from `nonces`.
pub fn seal_batch<P: AsRef<[u8]> + Sync>(
    batch: &Batch,
    key: &MeshKey,
    nonces: &mut NonceSource,
    plaintexts: &[P],
) -> Vec<Vec<u8>> {
    let jobs: Vec<([u8; NONCE_LEN], &[u8])> = plaintexts
        .iter()
        .map(|p| (nonces.take(), p.as_ref()))
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

/// Bytes [`seal_batch_into`] writes for `plaintexts`: the sum of their
/// [`sealed_len`]s.
pub fn seal_batch_len<P: AsRef<[u8]>>(plaintexts: &[P]) -> usize {
    plaintexts.iter().fold(0usize, |n, p| {
        n.saturating_add(sealed_len(p.as_ref().len()))
    })
}

/// Seals every plaintext with its own fresh nonce from `nonces` (drawn in
/// input order, as one at a time would), writing the frames back to back
/// into `out[..seal_batch_len(plaintexts)]`. Returns each frame's range in
/// `out`. Nothing is written and no nonce is drawn when `out` is too small.
pub fn seal_batch_into<P: AsRef<[u8]> + Sync>(
    batch: &Batch,
    key: &MeshKey,
    nonces: &mut NonceSource,
    plaintexts: &[P],
    out: &mut [u8],
) -> Result<Vec<Range<usize>>, PeatError> {
    check_room(seal_batch_len(plaintexts), out)?;
    let jobs = plaintexts.iter().map(|p| (nonces.take(), p.as_ref()));
    Ok(seal_packed(batch, key, plaintexts.len(), jobs, out))
}

/// [`seal_batch_into`] with given `(nonce, plaintext)` pairs (for
/// reproducing vectors; nonces must be unique).
pub fn seal_batch_with_nonces_into<P: AsRef<[u8]> + Sync>(
    batch: &Batch,
    key: &MeshKey,
    jobs: &[([u8; NONCE_LEN], P)],
    out: &mut [u8],
) -> Result<Vec<Range<usize>>, PeatError> {
    let total = jobs.iter().fold(0usize, |n, (_, p)| {
        n.saturating_add(sealed_len(p.as_ref().len()))
    });
    check_room(total, out)?;
    let jobs = jobs.iter().map(|(n, p)| (*n, p.as_ref()));
    Ok(seal_packed(batch, key, jobs.len(), jobs, out))
}

fn check_room(required: usize, out: &[u8]) -> Result<(), PeatError> {
    if out.len() < required {
        return Err(PeatError::BufferTooSmall { required });
    }
    Ok(())
}

/// Splits `out` into one exact slot per job, then seals the slots in parallel.
fn seal_packed<'p>(
    batch: &Batch,
    key: &MeshKey,
    count: usize,
    jobs: impl Iterator<Item = ([u8; NONCE_LEN], &'p [u8])>,
    out: &mut [u8],
) -> Vec<Range<usize>> {
    let mut ranges = Vec::with_capacity(count);
    let mut slots = Vec::with_capacity(count);
    let mut rest = out;
    let mut at = 0;
    for (nonce, pt) in jobs {
        let n = sealed_len(pt.len());
        let (frame, tail) = std::mem::take(&mut rest).split_at_mut(n);
        rest = tail;
        ranges.push(at..at + n);
        at += n;
        slots.push((frame, nonce, pt));
    }
    batch.for_each_mut(&mut slots, |(frame, nonce, pt)| {
        // Each slot is exactly sealed_len(pt.len()) bytes, so this cannot fail.
        let _ = key.seal_with_nonce_into(nonce, pt, frame);
    });
    ranges
}

/// One frame of a packed buffer (`None` for a bad range) and its result.
type OpenSlot<'a> = (Option<&'a mut [u8]>, Result<usize, PeatError>);

/// Opens in place the frames at `ranges` of `buf` (as [`seal_batch_into`]
/// returned them: ascending, not overlapping), without allocating per frame.
/// One result per range, in order: the plaintext length on success (the
/// plaintext starts [`super::MESH_HEADER_LEN`] bytes into the range). Frames
/// that fail are wiped; a range outside `buf` or overlapping the one before
/// is [`PeatError::BadRange`] and its bytes are left alone.
pub fn open_batch_in_place_ranges(
    batch: &Batch,
    key: &MeshKey,
    buf: &mut [u8],
    ranges: &[Range<usize>],
) -> Vec<Result<usize, PeatError>> {
    let mut slots: Vec<OpenSlot<'_>> = Vec::with_capacity(ranges.len());
    let mut rest = buf;
    let mut at = 0;
    for (index, r) in ranges.iter().enumerate() {
        let fits = r.start >= at && r.start <= r.end && r.end - at <= rest.len();
        if !fits {
            slots.push((None, Err(PeatError::BadRange { index })));
            continue;
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(r.start - at);
        let (frame, tail) = tail.split_at_mut(r.end - r.start);
        rest = tail;
        at = r.end;
        slots.push((Some(frame), Ok(0)));
    }
    batch.for_each_mut(&mut slots, |(frame, r)| {
        if let Some(f) = frame {
            *r = key.open_in_place(f).map(|p| p.len());
        }
    });
    slots.into_iter().map(|(_, r)| r).collect()
}
