//! Sealing and opening many mesh-wide frames across cores.
//!
//! Output is identical to sealing / opening one at a time: each frame gets
//! its own fresh nonce from the OS CSPRNG, results come back in input order.
//!
//! [`MeshSealer::seal_batch_into`] and [`MeshKey::open_batch_ranges_in_place`]
//! work in one caller buffer, frames back to back, with no allocation per
//! frame (one list of ranges or results per batch): reuse the buffer across
//! batches and the cores spend their time in the AEAD, not in the allocator
//! and page faults.
//!
//! Everything per frame runs on the batch's threads: the nonces are drawn
//! there, [`NONCES_PER_DRAW`] per `getrandom` call, and the frames are sealed
//! in chunks of the caller's buffer there too, so the calling thread only
//! lays out the ranges and the chunks. Drawing the nonces one by one on the
//! calling thread before the parallel part costs about a twentieth of a
//! single-core seal of 633-byte documents, which alone caps two cores below
//! 1.9x.

use super::mesh::{sealed_len, MeshKey, MeshSealer, MESH_HEADER_LEN};
use super::Error;
use crate::batch::{consecutive_ranges, ranges_fit, total_len, Batch};
use crate::entropy::fill_random;
use crate::primitives::chacha20poly1305::NONCE_LEN;
use std::ops::Range;

/// Nonces a batch seal draws per `getrandom` call (3 KiB, the size a
/// [`crate::entropy::NonceSource`] refills with).
const NONCES_PER_DRAW: usize = 256;

/// Bytes [`MeshSealer::seal_batch_into`] writes for `plaintexts`: the sum of
/// their [`sealed_len`]s (saturating).
pub fn seal_batch_len<P: AsRef<[u8]>>(plaintexts: &[P]) -> usize {
    total_len(plaintexts.iter().map(|p| sealed_len(p.as_ref().len())))
}

/// `count` fresh nonces from the OS CSPRNG, drawn on the batch's threads.
fn draw_nonces(batch: &Batch, count: usize) -> Vec<[u8; NONCE_LEN]> {
    let mut nonces = vec![[0u8; NONCE_LEN]; count];
    let mut draws: Vec<&mut [[u8; NONCE_LEN]]> = nonces.chunks_mut(NONCES_PER_DRAW).collect();
    batch.for_each_mut_coarse(&mut draws, |d| fill_random(d.as_flattened_mut()));
    nonces
}

fn check_room(required: usize, out: &[u8]) -> Result<(), Error> {
    if out.len() < required {
        return Err(Error::BufferTooSmall { required });
    }
    Ok(())
}

impl MeshSealer {
    /// Seals every plaintext with its own fresh nonce, writing the frames
    /// back to back into `out[..seal_batch_len(plaintexts)]`, in parallel on
    /// `batch`. Returns each frame's range in `out`, in input order. The
    /// nonces come straight from the OS CSPRNG on the batch's threads (not
    /// from the sealer's buffered [`crate::entropy::NonceSource`]).
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than
    /// [`seal_batch_len`]; nothing is written and no nonce is drawn then.
    pub fn seal_batch_into<P: AsRef<[u8]> + Sync>(
        &self,
        batch: &Batch,
        plaintexts: &[P],
        out: &mut [u8],
    ) -> Result<Vec<Range<usize>>, Error> {
        let total = seal_batch_len(plaintexts);
        check_room(total, out)?;
        let ranges = consecutive_ranges(plaintexts.iter().map(|p| sealed_len(p.as_ref().len())));
        let mut nonces = draw_nonces(batch, plaintexts.len());
        batch.for_each_region(&mut nonces, &ranges, &mut out[..total], |i, n, frame| {
            // Each region is exactly sealed_len(plaintext) bytes: cannot fail.
            let _ = self
                .key()
                .seal_with_nonce_into(n, plaintexts[i].as_ref(), frame);
        });
        Ok(ranges)
    }

    /// Seals every plaintext with its own fresh nonce into a new frame each,
    /// in parallel on `batch`, in input order.
    pub fn seal_batch_to_vec<P: AsRef<[u8]> + Sync>(
        &self,
        batch: &Batch,
        plaintexts: &[P],
    ) -> Vec<Vec<u8>> {
        let nonces = draw_nonces(batch, plaintexts.len());
        let jobs: Vec<(&[u8; NONCE_LEN], &[u8])> = nonces
            .iter()
            .zip(plaintexts)
            .map(|(n, p)| (n, p.as_ref()))
            .collect();
        batch.map(&jobs, |(n, p)| self.key().seal_with_nonce_to_vec(n, p))
    }
}

impl MeshKey {
    crate::visibility::pub_if_test_vectors! {
        /// Seals `(nonce, plaintext)` pairs into a new frame each, in
        /// parallel, to reproduce vectors (nonces must be unique).
        fn seal_batch_with_nonces_to_vec<P: AsRef<[u8]> + Sync>(
            &self,
            batch: &Batch,
            jobs: &[([u8; NONCE_LEN], P)],
        ) -> Vec<Vec<u8>> {
            batch.map(jobs, |(n, p)| self.seal_with_nonce_to_vec(n, p.as_ref()))
        }
    }

    crate::visibility::pub_if_test_vectors! {
        /// [`MeshSealer::seal_batch_into`] with given `(nonce, plaintext)`
        /// pairs, to reproduce vectors (nonces must be unique).
        ///
        /// # Errors
        /// [`Error::BufferTooSmall`] when `out` is shorter than the frames;
        /// nothing is written then.
        fn seal_batch_with_nonces_into<P: AsRef<[u8]> + Sync>(
            &self,
            batch: &Batch,
            jobs: &[([u8; NONCE_LEN], P)],
            out: &mut [u8],
        ) -> Result<Vec<Range<usize>>, Error> {
            let lens = || jobs.iter().map(|(_, p)| sealed_len(p.as_ref().len()));
            let total = total_len(lens());
            check_room(total, out)?;
            let ranges = consecutive_ranges(lens());
            let mut nonces: Vec<[u8; NONCE_LEN]> = jobs.iter().map(|(n, _)| *n).collect();
            batch.for_each_region(&mut nonces, &ranges, &mut out[..total], |i, n, frame| {
                let _ = self.seal_with_nonce_into(n, jobs[i].1.as_ref(), frame);
            });
            Ok(ranges)
        }
    }

    /// Opens every frame in parallel; one result per frame, in order.
    pub fn open_batch_to_vec<F: AsRef<[u8]> + Sync>(
        &self,
        batch: &Batch,
        frames: &[F],
    ) -> Vec<Result<Vec<u8>, Error>> {
        batch.map(frames, |f| self.open_to_vec(f.as_ref()))
    }

    /// Opens every frame in place (no allocation per frame), in parallel;
    /// one result per frame, in order: on success the plaintext's range
    /// inside that frame. Frames that fail are wiped.
    pub fn open_batch_in_place<F: AsMut<[u8]> + Send>(
        &self,
        batch: &Batch,
        frames: &mut [F],
    ) -> Vec<Result<Range<usize>, Error>> {
        let mut slots: Vec<(&mut F, Result<Range<usize>, Error>)> =
            frames.iter_mut().map(|f| (f, Ok(0..0))).collect();
        batch.for_each_mut(&mut slots, |(f, r)| {
            *r = self
                .open_in_place(f.as_mut())
                .map(|p| MESH_HEADER_LEN..MESH_HEADER_LEN + p.len());
        });
        slots.into_iter().map(|(_, r)| r).collect()
    }

    /// Opens in place, in parallel, the frames at `ranges` of `buf` (as
    /// [`MeshSealer::seal_batch_into`] returned them: ascending, not
    /// overlapping), without allocating per frame. One result per range, in
    /// order: on success the plaintext's range inside `buf`. Frames that
    /// fail are wiped; a range outside `buf` or overlapping the one before
    /// is [`Error::BadRange`] and its bytes are left alone.
    pub fn open_batch_ranges_in_place(
        &self,
        batch: &Batch,
        buf: &mut [u8],
        ranges: &[Range<usize>],
    ) -> Vec<Result<Range<usize>, Error>> {
        let mut results: Vec<Result<Range<usize>, Error>> = vec![Ok(0..0); ranges.len()];
        let open = |i: usize, r: &mut Result<Range<usize>, Error>, frame: &mut [u8]| {
            if r.is_ok() {
                let start = ranges[i].start + MESH_HEADER_LEN;
                *r = self.open_in_place(frame).map(|p| start..start + p.len());
            }
        };
        if ranges_fit(ranges, buf.len()) {
            batch.for_each_region(&mut results, ranges, buf, open);
            return results;
        }
        // Some range is bad: mark it, and give it an empty region where the
        // last good one ended so the rest still split cleanly.
        let mut at = 0;
        let usable: Vec<Range<usize>> = ranges
            .iter()
            .zip(results.iter_mut())
            .enumerate()
            .map(|(index, (r, res))| {
                if r.start >= at && r.start <= r.end && r.end <= buf.len() {
                    at = r.end;
                    r.clone()
                } else {
                    *res = Err(Error::BadRange { index });
                    at..at
                }
            })
            .collect();
        batch.for_each_region(&mut results, &usable, buf, open);
        results
    }
}
