//! The record of each decoded packet republished (QoS 0): a Meshtastic one
//! on `PREFIX/<channel>/<!from>`, the channel level through the library's
//! check (its label when the envelope's channel id cannot be a level), so
//! every such topic has exactly the prefix's levels and two more; a
//! MeshCore one on `PREFIX/meshcore/<payload type>/<packet hash>`, three
//! more levels, every one of the gateway's own making.

use super::{Context, Handled, Item, Sink, SinkError};
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::NodeId;

/// Republishes records under a prefix.
pub struct Republish {
    prefix: String,
}

impl Republish {
    /// Under `prefix` (checked by the settings: levels without wildcards).
    pub fn new(prefix: String) -> Self {
        Self { prefix }
    }
}

impl Sink for Republish {
    fn name(&self) -> &'static str {
        "publish"
    }

    fn publishes(&self) -> bool {
        true
    }

    fn handle(&mut self, item: &Item<'_>, cx: &mut dyn Context) -> Result<Handled, SinkError> {
        let mut line = Vec::with_capacity(512);
        let topic = match (&item.packet, &item.meshcore) {
            (Some(p), _) => {
                wireseal_io::record::write_json(
                    &PacketRecord::new(p.decoder, p.decoded),
                    &mut line,
                );
                format!(
                    "{}/{}/{}",
                    self.prefix,
                    p.channel_level,
                    NodeId(p.decoded.from)
                )
            }
            (None, Some(m)) => {
                super::meshcore_json(m.decoded, &mut line);
                let d = m.decoded;
                let hash = hex::encode(d.hash);
                format!("{}/meshcore/{}/{hash}", self.prefix, d.payload_type)
            }
            (None, None) => return Ok(Handled::Done),
        };
        if cx.publish(&topic, line) {
            cx.counters().republished.bump();
        } else {
            cx.counters().publish_dropped.bump();
        }
        Ok(Handled::Done)
    }
}
