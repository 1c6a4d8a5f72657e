//! One file per subcommand family.

pub mod file;
pub mod gateway;
pub mod keygen;
pub mod meshtastic;
pub mod onion;
pub mod peat;
pub mod v2;
