//! Plaintext held back until its HMAC matched: pieces of [`CHUNK`] bytes
//! drawn from a small process-wide pool, so that decrypting stream after
//! stream reuses warm memory instead of faulting in fresh pages (which on
//! a busy machine costs as much as the decryption). Pieces are wiped before
//! they go back to the pool.

use std::sync::Mutex;
use wireseal::aescrypt::{Error as AError, ProvisionalSink, CHUNK};
use wireseal::secret::wipe;

/// Most pieces the pool keeps (128 MiB).
const POOL_MAX: usize = 128;

static POOL: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

fn take_piece() -> Vec<u8> {
    let from_pool = POOL.lock().ok().and_then(|mut p| p.pop());
    from_pool.unwrap_or_else(|| Vec::with_capacity(CHUNK))
}

/// Plaintext held in pieces; implements [`ProvisionalSink`] (`discard`
/// wipes). Dropping it wipes what it still holds and returns the pieces to
/// the pool.
#[derive(Default)]
pub struct HeldChunks {
    chunks: Vec<Vec<u8>>,
}

impl HeldChunks {
    /// The pieces, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(Vec::as_slice)
    }

    /// Total bytes held.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Copies everything held into `out` (exactly [`Self::len`] bytes).
    pub fn copy_to(&self, out: &mut [u8]) {
        let mut at = 0;
        for c in &self.chunks {
            out[at..at + c.len()].copy_from_slice(c);
            at += c.len();
        }
    }

    fn release(&mut self) {
        let mut pieces = std::mem::take(&mut self.chunks);
        // Each piece is only appended to between wipes: its contents are
        // all it holds (one memset each, not `zeroize`'s byte at a time).
        for c in &mut pieces {
            wipe(c);
            c.clear();
        }
        if let Ok(mut pool) = POOL.lock() {
            let room = POOL_MAX.saturating_sub(pool.len());
            pool.extend(
                pieces
                    .into_iter()
                    .filter(|c| c.capacity() == CHUNK)
                    .take(room),
            );
        }
    }
}

impl ProvisionalSink for HeldChunks {
    type Error = AError;

    fn write_unverified(&mut self, mut plaintext: &[u8]) -> Result<(), AError> {
        while !plaintext.is_empty() {
            match self.chunks.last_mut() {
                Some(c) if c.len() < CHUNK => {
                    let take = (CHUNK - c.len()).min(plaintext.len());
                    c.extend_from_slice(&plaintext[..take]);
                    plaintext = &plaintext[take..];
                }
                _ => self.chunks.push(take_piece()),
            }
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), AError> {
        Ok(())
    }

    fn discard(&mut self) {
        self.release();
    }
}

impl Drop for HeldChunks {
    fn drop(&mut self) {
        self.release();
    }
}
