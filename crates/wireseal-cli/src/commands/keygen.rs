//! `wireseal keygen`.

use anyhow::Result;
use wireseal::keys::StaticSecret;

/// Key types `keygen` can make.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Kind {
    /// X25519 (Meshtastic PKC, peat-btle per-peer E2EE).
    X25519,
}

/// `wireseal keygen KIND`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which kind of key.
    #[arg(value_enum)]
    kind: Kind,
}

/// Prints `private: HEX` and `public: HEX`.
pub fn run(a: Args) -> Result<()> {
    match a.kind {
        Kind::X25519 => {
            let k = StaticSecret::generate();
            let private = zeroize::Zeroizing::new(hex::encode(k.expose()));
            println!("private: {}", private.as_str());
            println!("public:  {}", hex::encode(k.public_key()));
        }
    }
    Ok(())
}
