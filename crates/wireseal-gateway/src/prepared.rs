//! [`Prepared`]: the settings checked and turned into what the gateway runs
//! with, before anything connects.

use crate::config::FirmwareRoot;
use crate::flood::FloodLimits;
use crate::mqtt;
use crate::store::{StoreUrl, WriterConfig};
use std::time::Duration;
use wireseal::meshtastic::Decoder;

/// The settings ready to run.
pub(crate) struct Prepared {
    pub mqtt: mqtt::Settings,
    /// What the gateway subscribes to: the Meshtastic filter, then each
    /// MeshCore one (shared in the group when `shared` names one).
    pub filters: Vec<String>,
    pub decoder: Decoder,
    /// The MeshCore feeds, when `meshcore-topic` names any.
    pub meshcore: Option<crate::setup::MeshcoreSetup>,
    pub store: Option<StoreUrl>,
    pub writer: WriterConfig,
    pub print_records: bool,
    pub publish: Option<String>,
    pub firmware_root: Option<FirmwareRoot>,
    pub stats: Option<Duration>,
    pub max_packets: Option<u64>,
    pub max_retries: Option<u64>,
    pub dedup_window: Duration,
    pub flood: FloodLimits,
    pub http: Option<std::net::SocketAddr>,
    pub map_tiles: Option<crate::page::TileUrl>,
}

impl Prepared {
    /// Whether `topic` is one the gateway itself publishes on: such
    /// messages come back on a broad subscription (`msh/#`) and are not the
    /// feed's.
    pub(crate) fn is_own_output(&self, topic: &str) -> bool {
        let under = |root: &str, sub: &str| {
            topic
                .strip_prefix(root)
                .and_then(|t| t.strip_prefix('/'))
                .is_some_and(|t| t.starts_with(sub))
        };
        self.publish.as_deref().is_some_and(|p| under(p, ""))
            || match &self.firmware_root {
                Some(FirmwareRoot::Fixed(r)) => under(r, "2/json/"),
                Some(FirmwareRoot::Envelope) => wireseal::meshtastic::untrusted::topic_root(
                    topic,
                    wireseal::meshtastic::untrusted::TopicKind::Json,
                )
                .is_some(),
                None => false,
            }
    }
}
