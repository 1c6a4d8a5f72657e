//! AES Crypt stream format ("`.aes` files"): read versions 0-3, write
//! versions 2 and 3.
//!
//! Layout of a version 2/3 stream: `"AES" | version | 0x00 | extensions
//! (u16 BE length + bytes, ended by 0x0000) | [v3: u32 BE PBKDF2 iterations]
//! | public IV (16) | AES-256-CBC(password key, public IV; session IV ||
//! session key) (48) | HMAC-SHA256(password key, that [|| version in v3])
//! (32) | AES-256-CBC(session key, session IV; plaintext + padding) |
//! [v1/v2: plaintext length mod 16 (1)] | HMAC-SHA256(session key, body)
//! (32)`. The password key is 8192 rounds of SHA-256 over the UTF-16LE
//! password (v0-v2) or PBKDF2-HMAC-SHA512 over the UTF-8 password (v3),
//! salted with the public IV.
//!
//! The core is sans-IO: bytes in, bytes out, explicit state.
//!
//! - Writing: [`Encryptor`] (fed plaintext, appends ciphertext or writes
//!   it into a caller's buffer: `update_into` with `update_len`),
//!   [`encrypt_to_vec`], [`encrypt_into`] with [`encrypted_len`]; a
//!   [`PasswordKey`] stretches the password once for many streams.
//! - Reading: [`Decryptor`] (fed ciphertext; plaintext goes only into a
//!   [`ProvisionalSink`] that holds it back until told to commit it),
//!   [`decrypt_to_vec`], [`decrypt_into`] with [`decrypted_len`].
//! - Reading twice, for verified plaintext in bounded memory from a source
//!   that can be read again: [`VerifyPass`] (fed the stream: password, body
//!   HMAC and a digest of every [`CHUNK`] of ciphertext) ends with a
//!   [`ReleasePass`] (fed the same bytes again: releases each chunk's
//!   plaintext once its ciphertext matched its digest, else
//!   [`Error::InputChanged`]).
//! - [`io`]: the `std::io` adapters on top ([`io::EncryptWriter`],
//!   [`io::decrypt_into_sink`], [`io::SeekDecryptor`], [`io::read_header`]).
//!   The output file every driver writes through (`wireseal_io::PartialFile`,
//!   a [`ProvisionalSink`]) lives in the `wireseal-io` crate. They fail with [`io::Error`]: this module's
//!   [`Error`] or an I/O error.
//! - Every call takes the caller's [`Batch`](crate::batch::Batch): on more
//!   than one thread CBC and HMAC overlap; the bytes equal those of a
//!   one-thread batch. [`Batch::calling_thread`](crate::batch::Batch::calling_thread)
//!   runs a call on the calling thread alone, with no pool, which is all a
//!   small input needs.
//! - A wrong password is [`Error::WrongPassword`] (versions 1-3 check the
//!   password against the session block's own HMAC); a failed body HMAC is
//!   [`Error::Auth`] (version 0 has only that one).
//!
//! ```
//! use wireseal::aescrypt::{self, EncryptOptions, Error, Limits};
//! use wireseal::batch::Batch;
//!
//! // A few bytes: no threads needed.
//! let batch = Batch::calling_thread();
//! let file = aescrypt::encrypt_to_vec(&batch, "hunter2", b"attack at dawn", &EncryptOptions::v2())?;
//! let back = aescrypt::decrypt_to_vec(&batch, "hunter2", &file, &Limits::default())?;
//! assert_eq!(back, b"attack at dawn");
//!
//! let wrong = aescrypt::decrypt_to_vec(&batch, "hunter3", &file, &Limits::default());
//! assert!(matches!(wrong, Err(Error::WrongPassword)));
//! let mut damaged = file.clone();
//! let last = damaged.len() - 1;
//! damaged[last] ^= 1;
//! let bad = aescrypt::decrypt_to_vec(&batch, "hunter2", &damaged, &Limits::default());
//! assert!(matches!(bad, Err(Error::Auth)));
//! # Ok::<(), Error>(())
//! ```
//!
//! See `docs/aescrypt.md` for the design, the hazards of versions 0-2 (an
//! unauthenticated size octet) and the measurements.

mod body;
mod decrypt;
mod encrypt;
mod error;
mod header;
mod header_parser;
mod header_writer;
pub mod io;
mod kdf;
mod key;
mod opener;
mod options;
mod owned;
mod prefix;
mod session;
mod sink;
mod two_pass;

pub use decrypt::{decrypt_into, decrypt_to_vec, decrypted_len, Decrypted, Decryptor};
pub use encrypt::{encrypt_into, encrypt_to_vec, Encryptor};
pub use error::Error;
pub use header::{Extension, Header, Limits, Version};
pub use header_parser::{parse_header, Parse};
#[cfg(feature = "hazmat")]
pub use kdf::{legacy_key, v3_key};
pub use key::{PasswordKey, StretchedKey, StretchedKeys};
pub use options::{encrypted_len, EncryptOptions, CHUNK, DEFAULT_V3_ITERATIONS};
pub use owned::{Fill, OwnedDecryptor, Unverified};
#[cfg(any(feature = "hazmat", feature = "test-vectors"))]
pub use session::SessionMaterial;
pub use sink::ProvisionalSink;
pub use two_pass::{ReleasePass, VerifyPass};

#[cfg(test)]
mod tests;
