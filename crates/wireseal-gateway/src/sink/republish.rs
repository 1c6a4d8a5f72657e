//! The record of each decoded packet republished on
//! `PREFIX/<channel>/<!from>` (QoS 0): the channel level through the
//! library's check (its label when the envelope's channel id cannot be a
//! level), so every topic has exactly the prefix's levels and two more.

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
        let Some(p) = &item.packet else {
            return Ok(Handled::Done);
        };
        let topic = format!(
            "{}/{}/{}",
            self.prefix,
            p.channel_level,
            NodeId(p.decoded.from)
        );
        let mut line = Vec::with_capacity(512);
        wireseal_io::record::write_json(&PacketRecord::new(p.decoder, p.decoded), &mut line);
        if cx.publish(&topic, line) {
            cx.counters().republished.bump();
        } else {
            cx.counters().publish_dropped.bump();
        }
        Ok(Handled::Done)
    }
}
