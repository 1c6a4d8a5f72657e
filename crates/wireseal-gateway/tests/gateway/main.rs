//! The gateway's integration tests, one binary: the service in this process
//! against a real Mosquitto, SQLite files and PostgreSQL servers the tests
//! start, traffic from the independent encoder and from the library's
//! (Meshtastic envelopes and MeshCore observer feeds).

mod api;
mod config;
mod feed;
mod firmware_json;
mod flood;
mod grafana;
mod hostile;
mod http;
mod map_reports;
mod meshcore;
mod nodes;
mod page;
mod retention;
mod store;
mod support;
mod tls;
mod traffic;
