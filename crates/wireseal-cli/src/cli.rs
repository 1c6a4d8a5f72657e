//! The command line: subcommands, the `--json` flag, and the flag
//! vocabulary every subcommand shares (shown by `wireseal help`).

use crate::commands;
use clap::{Parser, Subcommand};

/// The flag vocabulary, written once.
const VOCABULARY: &str = "\
Flags every subcommand shares:
  --key HEX | --key-file FILE | --key-env VAR
        Our private key: inline (visible in the process list), in a file
        (`-` = stdin; what `wireseal keygen --out` writes) or in an
        environment variable. One source only. Other secrets follow the
        same pattern: --psk*, --secret*, --seed*, --session-key*,
        --password-file/--password-env. Secret files are read up to 64 KiB;
        errors never show a secret's value, file name or variable name.
  --peer-key HEX
        A peer's public key.
  Numbers (--from, --id, --node, --counter, ...) are decimal or 0x-hex.
  --magic NAME|HEX
        A Bitcoin network: mainnet, testnet, testnet4, signet, regtest, or
        4 bytes of hex.
  DATA arguments are hex (whitespace and newlines allowed), `-` reads them
        from stdin; --in-format raw / --out-format raw move payload bytes.
  --json
        One JSON object per result on stdout (field names: docs/cli.md).
        Without it results are human text: bare hex for data, `name: value`
        lines for several fields.
Errors go to stderr with a non-zero exit status (with --json, as one JSON
object).";

/// `wireseal`.
#[derive(Parser)]
#[command(
    name = "wireseal",
    version,
    about = "Cheap encrypted packets for mesh and peer-to-peer wire formats",
    after_help = VOCABULARY
)]
pub struct Cli {
    /// Print each result as one JSON object; also accepted after the
    /// subcommand.
    #[arg(long)]
    pub json: bool,
    /// The subcommand.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// `--json`, accepted by every subcommand.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct JsonFlag {
    /// Print each result as one JSON object (field names in docs/cli.md).
    #[arg(long, global = true)]
    pub json: bool,
}

/// The subcommands, named after the library's modules.
#[derive(Subcommand)]
pub enum Cmd {
    /// Generate a private key (X25519 or secp256k1); prints the public key.
    Keygen {
        /// keygen's arguments.
        #[command(flatten)]
        args: commands::keygen::Args,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// Derive the public key of a private key.
    Pubkey {
        /// pubkey's arguments.
        #[command(flatten)]
        args: commands::pubkey::Args,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// Meshtastic PKC direct messages and channel packets.
    Meshtastic {
        /// The meshtastic subcommand.
        #[command(subcommand)]
        cmd: commands::meshtastic::Cmd,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// MeshCore packets: decode one, build group texts and adverts, identity keys.
    Meshcore {
        /// The meshcore subcommand.
        #[command(subcommand)]
        cmd: commands::meshcore::Cmd,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// peat-btle BLE mesh: mesh-wide and per-peer frames, genesis, policy.
    Peat {
        /// The peat subcommand.
        #[command(subcommand)]
        cmd: commands::peat::Cmd,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// BIP324 v2 encrypted transport over TCP (listen / connect).
    Bip324 {
        /// The bip324 arguments.
        #[command(flatten)]
        args: commands::bip324::Args,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// Lightning BOLT #4 Sphinx onions: build, peel, failure packets.
    Sphinx {
        /// The sphinx arguments.
        #[command(flatten)]
        args: commands::sphinx::Args,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// Encrypt or decrypt files in the AES Crypt format (.aes, v0-v3).
    Aescrypt {
        /// The aescrypt arguments.
        #[command(flatten)]
        args: commands::aescrypt::Args,
        /// --json.
        #[command(flatten)]
        out: JsonFlag,
    },
    /// Print a shell completion script (bash, zsh or fish) to stdout.
    Completions(commands::completions::Args),
    /// Measure every wire format against its baseline (quick by default;
    /// runs the `wireseal-bench` binary: `wireseal bench --help`).
    Bench(commands::bench::Args),
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn two_sources_for_one_key_are_refused() {
        use clap::Parser;
        let r = Cli::try_parse_from([
            "wireseal",
            "sphinx",
            "peel",
            "--key",
            "11",
            "--key-file",
            "f",
            "00",
        ]);
        assert!(r.is_err());
        let r = Cli::try_parse_from(["wireseal", "sphinx", "peel", "--key-file", "f", "00"]);
        assert!(r.is_ok());
    }
}
