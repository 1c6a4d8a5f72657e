//! [`ProvisionalSink`]: the only way a [`Decryptor`](super::Decryptor)
//! hands out plaintext before the final HMAC has been checked.

use super::error::Error;
use zeroize::Zeroize;

/// Where a [`Decryptor`](super::Decryptor) puts plaintext: a destination
/// that holds everything back until it is told the plaintext is authentic.
///
/// Versions 1-3 authenticate the body with one HMAC at its very end, so a
/// one-pass decryptor with bounded memory has to hand plaintext over before
/// it knows whether that plaintext is genuine. Implementing this trait is
/// the explicit promise to hold it back: nothing written through
/// [`write_unverified`](Self::write_unverified) may reach anyone (a reader,
/// a final file name, a parser) until [`commit`](Self::commit) is called,
/// and [`discard`](Self::discard) must destroy all of it. A private
/// temporary file moved into place after `commit` and emptied on `discard`
/// is the typical implementation
/// (`wireseal_io::PartialFile` in the `wireseal-io` crate). For plaintext that is
/// released only once verified, with no such promise, use
/// [`SeekDecryptor`](super::io::SeekDecryptor) (or the
/// [`VerifyPass`](super::VerifyPass) it drives, for any input that can be
/// read twice), [`decrypt_to_vec`](super::decrypt_to_vec) or
/// [`decrypt_into`](super::decrypt_into).
pub trait ProvisionalSink {
    /// What the sink's own writes fail with, holding the decryption's
    /// [`Error`]s too: [`Error`] itself for memory,
    /// [`io::Error`](super::io::Error) for files and streams.
    type Error: From<Error> + Send;

    /// Appends plaintext that is **not yet authenticated** (it may be
    /// forged or garbage until [`commit`](Self::commit)).
    ///
    /// # Errors
    ///
    /// The sink's failure; the decryption then fails with it and
    /// [`discard`](Self::discard) is called.
    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), Self::Error>;

    /// Called once, after the final HMAC matched and the last plaintext was
    /// written: everything written is authentic and may be released.
    ///
    /// # Errors
    ///
    /// The sink's failure, returned by the decryption after
    /// [`discard`](Self::discard).
    fn commit(&mut self) -> Result<(), Self::Error>;

    /// Called when decryption failed (wrong password, corruption,
    /// truncation, I/O): everything written must be destroyed, never used.
    fn discard(&mut self);
}

/// An in-memory sink: plaintext is appended; `discard` wipes and clears the
/// **whole** vector (including anything it held before).
impl ProvisionalSink for Vec<u8> {
    type Error = Error;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), Error> {
        self.extend_from_slice(plaintext);
        Ok(())
    }

    fn commit(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn discard(&mut self) {
        self.zeroize();
    }
}

/// A caller's buffer as a sink (for [`decrypt_into`](super::decrypt_into)):
/// `discard` wipes what was written.
pub(crate) struct SliceSink<'a> {
    pub(crate) out: &'a mut [u8],
    pub(crate) len: usize,
}

impl ProvisionalSink for SliceSink<'_> {
    type Error = Error;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), Error> {
        let end = self.len + plaintext.len();
        let dst = self
            .out
            .get_mut(self.len..end)
            .ok_or(Error::BufferTooSmall { required: end })?;
        dst.copy_from_slice(plaintext);
        self.len = end;
        Ok(())
    }

    fn commit(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn discard(&mut self) {
        self.out[..self.len].zeroize();
        self.len = 0;
    }
}
