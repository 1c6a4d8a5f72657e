//! One file per subcommand family.

pub mod file;
pub mod keygen;
