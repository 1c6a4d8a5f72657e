//! The `wireseal` command: encrypt and decrypt real wire formats, run the
//! network drivers, and `wireseal bench`.
//!
//! Errors go to stderr with a non-zero exit status; results go to stdout.

mod cli;
mod commands;
mod util;

use clap::Parser;
use cli::{Cli, Cmd};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = |out: cli::JsonFlag| util::output::set_json(out.json || cli.json);
    util::output::set_json(cli.json);
    let result = match cli.cmd {
        Cmd::Keygen { args, out } => {
            json(out);
            commands::keygen::run(args)
        }
        Cmd::Pubkey { args, out } => {
            json(out);
            commands::pubkey::run(args)
        }
        Cmd::Meshtastic { cmd, out } => {
            json(out);
            commands::meshtastic::run(cmd)
        }
        Cmd::Peat { cmd, out } => {
            json(out);
            commands::peat::run(cmd)
        }
        Cmd::Bip324 { args, out } => {
            json(out);
            commands::v2::run(args)
        }
        Cmd::Sphinx { args, out } => {
            json(out);
            commands::onion::run(args)
        }
        Cmd::Aescrypt { args, out } => {
            json(out);
            commands::file::run(args)
        }
        Cmd::Completions(a) => commands::completions::run(a),
        Cmd::Bench(b) => wireseal_bench::run(
            &wireseal_bench::Ctx { full: b.full },
            &b.sections,
            b.json.as_deref(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if util::output::json() {
                let msg = format!("{e:#}");
                match error_kind(&e) {
                    Some(kind) => eprintln!(
                        "{}",
                        serde_json::json!({ "error": msg, "kind": kind.as_str() })
                    ),
                    None => eprintln!("{}", serde_json::json!({ "error": msg })),
                }
            } else {
                eprintln!("wireseal: error: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The library error kind behind `e`, when a library error caused it: the
/// JSON error's `kind`, the same name Python's exception class stands for.
fn error_kind(e: &anyhow::Error) -> Option<wireseal::error::ErrorKind> {
    e.chain().find_map(|c| {
        c.downcast_ref::<wireseal::peat::Error>()
            .map(|e| e.kind())
            .or_else(|| {
                c.downcast_ref::<wireseal::meshtastic::Error>()
                    .map(|e| e.kind())
            })
            .or_else(|| {
                c.downcast_ref::<wireseal::bip324::Error>()
                    .map(|e| e.kind())
            })
            .or_else(|| {
                c.downcast_ref::<wireseal::sphinx::Error>()
                    .map(|e| e.kind())
            })
    })
}
