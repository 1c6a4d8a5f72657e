//! One file per subcommand family.

pub mod aescrypt;
pub mod bench;
pub mod bip324;
pub mod completions;
pub mod gateway;
pub mod keygen;
pub mod meshcore;
pub mod meshtastic;
pub mod peat;
pub mod pubkey;
pub mod sphinx;
