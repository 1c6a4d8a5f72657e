//! Errors of the BIP324 module.

use super::keys::Network;
use super::stage::Stage;

crate::error::format_error! {
    /// What went wrong in a BIP324 handshake or session. Nothing here
    /// carries key material or plaintext.
    ///
    /// The shared variants, as this module uses them: [`Error::Auth`], a
    /// packet's tag did not verify (the receiver is poisoned);
    /// [`Error::Truncated`], a sealed packet shorter than
    /// [`super::OVERHEAD`] or a body shorter than its announced length;
    /// [`Error::TooLong`], contents over [`super::MAX_CONTENTS_LEN`], a
    /// length field announcing more than the receive limit (refused before
    /// any buffer of that size exists), garbage over
    /// [`super::MAX_GARBAGE_LEN`]; [`Error::Poisoned`], an earlier failure
    /// poisoned this direction or connection; [`Error::Exhausted`], the
    /// 64-bit rekey counter would wrap; [`Error::InvalidKey`], a private key
    /// was rejected.
    #[derive(Copy)]
    pub enum Error {
        /// A key is malformed, weak (low order, all-zero shared secret)
        /// or of the wrong length.
        #[error("invalid or weak key")]
        InvalidKey => InvalidKey,
        /// An earlier failure poisoned this state; start again.
        #[error("poisoned by an earlier failure")]
        Poisoned => Poisoned,
        /// A counter or key-usage limit is used up; re-key.
        #[error("counter exhausted; re-key")]
        Exhausted => Exhausted,
        /// The peer sent more than 4095 bytes of garbage without its terminator.
        #[error("no garbage terminator within 4095 bytes of garbage (the peer is not v2, or \
                 uses another network magic)")]
        NoGarbageTerminator => Malformed,
        /// The peer's garbage terminator is the one the same handshake
        /// gives under another known network's magic: the two sides were
        /// set up for different networks, so their keys can never agree.
        #[error("network mismatch: the peer's handshake is keyed for {}, ours for {}",
                theirs.described(), ours.described())]
        WrongNetwork {
            /// Our network.
            ours: Network,
            /// The network the peer's terminator was made for.
            theirs: Network,
        } => Malformed,
        /// (Responder) the initiator opened with a v1 `version` message;
        /// nothing of ours was sent, so the connection can go to a v1
        /// implementation.
        #[error("the peer is not v2: it sent a v1 version message")]
        V1Peer => Unsupported,
        /// The peer closed the connection at `stage`.
        #[error("the peer disconnected {stage}")]
        Disconnected {
            /// Where the peer was.
            stage: Stage,
        } => Truncated,
        /// A packet was sent before the handshake completed.
        #[error("the handshake is not complete")]
        NotEstablished => State,
        /// A packet body was opened before its length field was decrypted,
        /// or a length field was decrypted twice.
        #[error("packet length and packet calls out of order")]
        OutOfOrder => State,
        /// A network name or magic that does not parse.
        #[error("unknown network: a name (mainnet, testnet, testnet4, signet, regtest) or the \
                 4-byte magic as 8 hex digits")]
        UnknownNetwork => InvalidInput,
        /// A role name other than `initiator` or `responder`.
        #[error("unknown role: initiator or responder")]
        UnknownRole => InvalidInput,
        /// An exported direction state ([`super::state::DirectionState`])
        /// in a version of the byte form this library does not know.
        #[error("exported session state version {version} is not supported (this library \
                 reads version {})", super::state::STATE_VERSION)]
        StateVersion {
            /// The version found.
            version: u8,
        } => Unsupported,
        /// An exported direction state whose message index is not below
        /// [`super::REKEY_INTERVAL`].
        #[error("exported session state is invalid: a message index is not below the rekey \
                 interval")]
        InvalidState => Malformed,
        /// A message's short type id that no BIP assigns
        /// ([`super::message::SHORT_IDS`]).
        #[error("unknown short message type id {id}")]
        UnknownMessageType {
            /// The id.
            id: u8,
        } => Unsupported,
        /// A long-form message command that is empty, longer than 12 bytes,
        /// not printable ASCII, or not NUL-padded.
        #[error("malformed message command: 1 to 12 printable ASCII bytes, padded with NULs")]
        MalformedCommand => Malformed,
    }
    impl From<KeyError> => InvalidKey;
}
