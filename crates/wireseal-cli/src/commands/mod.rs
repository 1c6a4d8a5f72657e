//! One file per subcommand family.

pub mod keygen;
pub mod onion;
