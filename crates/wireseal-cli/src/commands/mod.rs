//! One file per subcommand family.

pub mod file;
pub mod keygen;
pub mod meshtastic;
pub mod peat;
pub mod v2;
