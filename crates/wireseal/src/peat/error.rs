//! The `peat` module's error type.

use super::policy::{DataType, Protection};

crate::error::format_error! {
    /// Everything that can go wrong sealing, opening or dispatching a
    /// peat-btle frame.
    ///
    /// Authentication failures are one opaque variant ([`Error::Auth`]); the
    /// other variants tell the caller what to do. A replayed per-peer frame
    /// is [`Error::Replay`]; an exhausted outbound counter is
    /// [`Error::Exhausted`].
    #[derive(Copy)]
    pub enum Error {
        /// A key is malformed, weak (low order, all-zero shared secret)
        /// or of the wrong length.
        #[error("invalid or weak key")]
        InvalidKey => InvalidKey,
        /// The packet, frame or onion was accepted before.
        #[error("replayed: already accepted once")]
        Replay => Replay,
        /// A counter or key-usage limit is used up; re-key.
        #[error("counter exhausted; re-key")]
        Exhausted => Exhausted,
        /// The first byte is not the marker this call handles.
        #[error("unexpected marker byte 0x{found:02X} (expected 0x{expected:02X})")]
        WrongMarker {
            /// Marker found.
            found: u8,
            /// Marker expected.
            expected: u8,
        } => Malformed,
        /// Strict mode: an unencrypted frame was received.
        #[error("unencrypted frame rejected (strict encryption mode)")]
        UnencryptedInStrictMode => Policy,
        /// Policy mode: a document arrived less protected than the policy
        /// would ever send a document of its type over that link.
        #[error("{data} document arrived {received}; the policy sends it at least {required}")]
        BelowPolicy {
            /// The document's type, as the receiver's classifier saw it.
            data: DataType,
            /// The lowest protection the policy could have chosen.
            required: Protection,
            /// The protection it arrived with.
            received: Protection,
        } => Policy,
        /// A frame range given to a batch call lies outside the buffer or
        /// overlaps (or precedes) the range before it.
        #[error("frame range {index} is out of bounds or overlaps the one before it")]
        BadRange {
            /// Position of the range in the list.
            index: usize,
        } => InvalidInput,
        /// An encrypted mesh-wide frame arrived but this node has no mesh key.
        #[error("encrypted frame received but no mesh key is configured")]
        NoMeshKey => State,
        /// A per-peer frame addressed to another node.
        #[error("per-peer frame is addressed to node {recipient:08X}, not to us")]
        NotForUs {
            /// The recipient named in the frame.
            recipient: u32,
        } => Policy,
        /// No session (or no established session) with this peer.
        #[error("no established E2EE session with node {peer:08X}")]
        NoSession {
            /// The peer's node id.
            peer: u32,
        } => State,
        /// The session with this peer has timed out; start a new key exchange.
        #[error("E2EE session with node {peer:08X} has expired")]
        SessionExpired {
            /// The peer's node id.
            peer: u32,
        } => State,
        /// The session table is full of live sessions.
        #[error("E2EE session limit reached ({max} sessions)")]
        SessionLimit {
            /// The configured cap.
            max: usize,
        } => Limit,
        /// The caller's random source failed while a nonce was drawn
        /// (nothing was sealed, no session state moved).
        #[error("the random source failed")]
        Rng => Io,
        /// The key-exchange frame names our own node id as its sender.
        #[error("key exchange claims our own node id")]
        OwnNodeId => Policy,
        /// A mesh id that is empty or holds a character other than ASCII
        /// letters, digits, `-` and `_`.
        #[error("not a mesh id: 1 to 64 letters, digits, '-' or '_' (genesis makes 8 hex digits such as CBE6FC55)")]
        InvalidMeshId => InvalidInput,
        /// An empty mesh name given to genesis.
        #[error("the mesh name is empty")]
        EmptyMeshName => InvalidInput,
        /// A name or number that is not one of the values accepted here.
        #[error("invalid {what}: expected {expected}")]
        InvalidValue {
            /// What was being read (`link`, `battery percentage`, ...).
            what: &'static str,
            /// The values accepted.
            expected: &'static str,
        } => InvalidInput,
    }
    impl From<KeyError> => InvalidKey;
}

/// Checks that `frame` starts with `marker` and holds at least `min` bytes.
///
/// # Errors
///
/// [`Error::WrongMarker`] when the first byte is another marker;
/// [`Error::Truncated`] when the frame is empty or shorter than `min`.
pub(super) fn check_frame(frame: &[u8], marker: u8, min: usize) -> Result<(), Error> {
    match frame.first() {
        None => Err(Error::Truncated { len: 0, min }),
        Some(&found) if found != marker => Err(Error::WrongMarker {
            found,
            expected: marker,
        }),
        Some(_) if frame.len() < min => Err(Error::Truncated {
            len: frame.len(),
            min,
        }),
        Some(_) => Ok(()),
    }
}
