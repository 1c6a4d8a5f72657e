//! Which way a batch goes: the one word the planner, the layout and the
//! executor share.

/// Which way a batch goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Sealing packets.
    Seal,
    /// Opening packets.
    Open,
}
