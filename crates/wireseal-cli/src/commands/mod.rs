//! One file per subcommand family.

pub mod bench;
pub mod completions;
pub mod file;
pub mod gateway;
pub mod keygen;
pub mod meshtastic;
pub mod onion;
pub mod peat;
pub mod pubkey;
pub mod v2;
