//! The library's integration tests, one binary: official and peer-verified
//! vectors, sessions, drivers, policy, the docs' names and the crate's
//! boundaries. The two allocation-counting tests (`cache_no_alloc`,
//! `churn_cache`) stay binaries of their own: each installs a counting global
//! allocator that sees the whole process.

mod bip324_session_support;
mod bip324_vectors_support;
mod common;
mod meshtastic_envelope_support;
mod peat_peer_support;
mod peat_policy_support;
mod sphinx_support;
mod wycheproof_common;

mod aescrypt_vectors;
mod bip324_connection;
mod bip324_drivers;
mod bip324_session_handshake;
mod bip324_session_packets;
mod bip324_state;
mod bip324_vectors_ellswift;
mod bip324_vectors_message_types;
mod bip324_vectors_packets;
mod churn_replay;
mod docs_names;
mod fuzz_regressions;
mod meshcore_driver_cases;
mod meshcore_library;
mod meshcore_vectors;
mod meshtastic_driver_cases;
mod meshtastic_envelope_codec;
mod meshtastic_envelope_decoder;
mod meshtastic_pkc;
mod meshtastic_policy;
mod meshtastic_vectors;
mod meshtastic_xeddsa;
mod peat_driver_cases;
mod peat_peer_replay;
mod peat_peer_sessions;
mod peat_policy;
mod peat_policy_receiver;
mod peat_vectors;
mod sans_io;
mod sphinx_attribution;
mod sphinx_blinded_attribution;
mod sphinx_driver_cases;
mod sphinx_negative;
mod sphinx_vectors_attribution;
mod sphinx_vectors_blinding;
mod sphinx_vectors_failures;
mod sphinx_vectors_fulfillment;
mod sphinx_vectors_messages;
mod sphinx_vectors_payment;
mod vocabulary;
mod wycheproof_aead;
mod wycheproof_ecdh;
mod wycheproof_kdf_mac;
