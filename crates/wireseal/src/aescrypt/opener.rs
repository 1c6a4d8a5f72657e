//! [`Opener`]: what a reader unlocks a stream with.

use super::error::Error;
use super::header::{Header, Version};
use super::kdf;
use super::key::{StretchedKey, StretchedKeys};
use super::session::open_session;
use crate::secret::Secret;
use std::sync::Arc;
use zeroize::Zeroizing;

/// Where a reader's password key comes from.
enum Source {
    /// The password, stretched for the stream.
    Password(Zeroizing<String>),
    /// Keys shared with other readers.
    Shared(Arc<StretchedKeys>),
}

/// What unlocks a stream for a reader: its password (or keys shared with
/// other readers), and a key stretched ahead of reading if one was
/// offered. Both are dropped, and the password and key wiped, once used.
pub(crate) struct Opener {
    source: Source,
    stretched: Option<StretchedKey>,
}

impl Opener {
    pub(crate) fn new(password: &str) -> Self {
        Self {
            source: Source::Password(Zeroizing::new(password.to_owned())),
            stretched: None,
        }
    }

    pub(crate) fn shared(keys: Arc<StretchedKeys>) -> Self {
        Self {
            source: Source::Shared(keys),
            stretched: None,
        }
    }

    /// Keeps `key` for a stream whose header it was stretched for.
    pub(crate) fn offer(&mut self, key: StretchedKey) {
        self.stretched = Some(key);
    }

    /// The password key for `header` (the offered key when it was
    /// stretched for this header, else the shared keys' or the password
    /// stretched here, slow by design), then the body's initial chaining
    /// value and key: the session IV and key unwrapped from `block`
    /// (versions 1-3, [`Error::WrongPassword`] when its HMAC fails), or the
    /// public IV and the password key itself (version 0, where `block` is
    /// unused).
    pub(crate) fn unlock(
        &mut self,
        header: &Header,
        block: &[u8; 80],
    ) -> Result<([u8; 16], Secret<32>), Error> {
        let source = core::mem::replace(&mut self.source, Source::Password(Zeroizing::default()));
        let v = header.version;
        let pkey = match self.stretched.take().and_then(|k| k.into_key_for(header)) {
            Some(k) => k,
            None => match &source {
                Source::Password(p) => kdf::for_header(p, header),
                Source::Shared(keys) => keys.key_for(header),
            },
        };
        if v == Version::V0 {
            Ok((header.public_iv, pkey))
        } else {
            open_session(v, &pkey, &header.public_iv, block)
        }
    }
}
