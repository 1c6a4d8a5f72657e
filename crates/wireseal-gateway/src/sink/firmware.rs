//! The 2.7 firmware's JSON ([`wireseal_io::firmware_json`]) published on
//! `ROOT/2/json/<channel>/<!gateway>`, as the uplinking node published it
//! before firmware 2.8: `ROOT` is the root of the envelope's own topic
//! (`msh/US` of `msh/US/2/e/…`; a topic of another shape is counted as
//! unusable and not published) or one root the settings give; `<channel>` is the envelope's channel id (`PKI` for
//! direct messages) through the library's check, `<!gateway>` the
//! envelope's gateway id when it is a node id (`!%08x`); either is the
//! library's label when it cannot be used, so every topic has exactly the
//! root's levels and four more.

use super::{Context, Handled, Item, Sink, SinkError};
use crate::config::FirmwareRoot;
use wireseal::meshtastic::untrusted::{topic_root, TopicKind};
use wireseal_io::firmware_json::{self, Names};

/// Publishes the firmware's JSON under a root.
pub struct FirmwareJson {
    root: FirmwareRoot,
    names: Names,
}

impl FirmwareJson {
    /// Under `root`: each envelope's own, or one (`msh`, `msh/US`, ...;
    /// checked by the settings).
    pub fn new(root: FirmwareRoot) -> Self {
        Self {
            root,
            names: Names::default(),
        }
    }
}

impl Sink for FirmwareJson {
    fn name(&self) -> &'static str {
        "firmware-json"
    }

    fn publishes(&self) -> bool {
        true
    }

    fn handle(&mut self, item: &Item<'_>, cx: &mut dyn Context) -> Result<Handled, SinkError> {
        let Some(p) = &item.packet else {
            return Ok(Handled::Done);
        };
        let d = p.decoded;
        self.names.learn_from(d);
        let sender = firmware_json::sender(d);
        let Some(json) = firmware_json::object(d, &sender, &self.names) else {
            return Ok(Handled::Done);
        };
        let root = match &self.root {
            FirmwareRoot::Fixed(r) => r.as_str(),
            FirmwareRoot::Envelope => match topic_root(item.topic, TopicKind::Envelope) {
                Some(r) => r,
                None => {
                    cx.counters().unusable_ids.bump();
                    return Ok(Handled::Done);
                }
            },
        };
        let topic = format!("{root}/2/json/{}/{sender}", p.channel_level);
        if cx.publish(&topic, json.into_bytes()) {
            cx.counters().firmware_json.bump();
        } else {
            cx.counters().publish_dropped.bump();
        }
        Ok(Handled::Done)
    }
}
