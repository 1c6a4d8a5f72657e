//! The `wireseal` command: encrypt and decrypt real wire formats, run the
//! network drivers, and `wireseal bench`.
//!
//! Errors go to stderr with a non-zero exit status; results go to stdout.

mod commands;
mod util;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "wireseal",
    version,
    about = "Cheap encrypted packets for mesh and peer-to-peer wire formats"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate a key pair.
    Keygen(commands::keygen::Args),
    /// Meshtastic PKC direct messages and channel packets.
    #[command(subcommand)]
    Meshtastic(commands::meshtastic::Cmd),
    /// peat-btle BLE mesh: mesh-wide frames, genesis, encryption policy.
    #[command(subcommand)]
    Peat(commands::peat::Cmd),
    /// BIP324 v2 encrypted transport over TCP (listen / connect).
    V2(commands::v2::Args),
    /// Encrypt or decrypt files in the AES Crypt format (.aes, v2/v3).
    File(commands::file::Args),
    /// Lightning BOLT #4 Sphinx onions: build, peel, failure packets.
    Onion(commands::onion::Args),
    /// Measure every wire format against its baseline (quick by default).
    Bench(BenchArgs),
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Longer samples and larger workloads (the default is a short run, a
    /// few minutes at most).
    #[arg(long)]
    full: bool,
    /// Write the rows as a JSON array to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<std::path::PathBuf>,
    /// Run only these sections (repeatable).
    #[arg(long = "section", value_name = "NAME")]
    sections: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Keygen(a) => commands::keygen::run(a),
        Cmd::Meshtastic(c) => commands::meshtastic::run(c),
        Cmd::Peat(c) => commands::peat::run(c),
        Cmd::V2(a) => commands::v2::run(a),
        Cmd::File(a) => commands::file::run(a),
        Cmd::Onion(a) => commands::onion::run(a),
        Cmd::Bench(b) => wireseal_bench::run(
            &wireseal_bench::Ctx { full: b.full },
            &b.sections,
            b.json.as_deref(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wireseal: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
