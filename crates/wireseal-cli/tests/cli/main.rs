//! The command line's integration tests, one binary: every command run as a
//! process against vectors, real peers and its own other commands, its files,
//! signals and listeners, and the README's commands.

mod support;

mod aescrypt_cli;
mod aescrypt_leftovers;
mod aescrypt_many;
mod aescrypt_outputs;
mod aescrypt_signals;
mod bip324_cli_interop;
mod bip324_cli_misbehaving;
mod bip324_listener;
mod cli_deps;
mod daily_cli_io;
mod daily_cli_secrets;
mod fault_listener_flood;
mod fault_sigkill;
mod gateway_cli;
mod gateway_decode;
mod keygen_signals;
mod meshcore_cli;
mod meshcore_cli_agree;
mod meshtastic_cli;
mod meshtastic_cli_agree;
mod peat_cli_agree;
mod peat_cli_genesis;
mod peat_cli_mesh;
mod peat_cli_peer_policy;
mod readme_commands;
mod sphinx_cli_attribution;
mod sphinx_cli_fulfillment;
mod sphinx_cli_inputs;
mod sphinx_cli_vectors;
