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
//! - Writing: [`Encryptor`] (a streaming `Write` over any writer),
//!   [`encrypt_to_vec`], [`encrypt_into`] with [`EncryptOptions::encrypted_len`].
//! - Reading: [`SeekDecryptor`] (a `Read` that verifies before releasing
//!   anything), [`decrypt_into_sink`] (one pass into a [`ProvisionalSink`]
//!   that holds plaintext back until told to commit it),
//!   [`decrypt_to_vec`].
//! - A wrong password is [`Error::WrongPassword`]; damage is
//!   [`Error::Corrupted`] (version 0 cannot tell them apart).
//!
//! See `docs/aescrypt.md` for the design, the hazards of versions 0-2 (an
//! unauthenticated size octet) and the measurements.

mod decrypt;
mod encrypt;
mod error;
mod header;
mod kdf;
mod session;

pub use decrypt::{decrypt_into_sink, decrypt_to_vec, Decrypted, ProvisionalSink, SeekDecryptor};
pub use encrypt::{
    encrypt_into, encrypt_to_vec, EncryptOptions, Encryptor, CHUNK, DEFAULT_V3_ITERATIONS,
};
pub use error::{Error, Region};
pub use header::{parse_header, read_header, Extension, Header, Limits, Parse, Version};
pub use kdf::{legacy_key, v3_key};
pub use session::SessionMaterial;

#[cfg(test)]
mod tests;
