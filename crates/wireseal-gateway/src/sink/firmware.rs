//! The 2.7 firmware's JSON ([`crate::firmware_json`]) published on
//! `ROOT/2/json/<channel>/<!gateway>`, as the uplinking node published it
//! before firmware 2.8: `<channel>` is the envelope's channel id (`PKI` for
//! direct messages) through the library's check, `<!gateway>` the
//! envelope's gateway id when it is a node id (`!%08x`); either is the
//! library's label when it cannot be used, so every topic has exactly the
//! root's levels and four more.

use super::{Context, Handled, Item, Sink, SinkError};
use crate::firmware_json::{self, Names};
use wireseal::meshtastic::app::App;
use wireseal::meshtastic::envelope::NODEINFO_APP;
use wireseal::meshtastic::untrusted::UNUSABLE_LABEL;
use wireseal::meshtastic::NodeId;

/// Publishes the firmware's JSON under a root.
pub struct FirmwareJson {
    root: String,
    names: Names,
}

impl FirmwareJson {
    /// Under `root` (`msh`, `msh/US`, ...; checked by the settings).
    pub fn new(root: String) -> Self {
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
        if let Some(data) = d.data.as_ref().filter(|x| x.portnum == NODEINFO_APP) {
            if let Some(App::User(u)) = App::decode(data.portnum, &data.payload) {
                self.names.learn(d.from, &u.long_name);
            }
        }
        let gateway = NodeId::parse_canonical(&d.gateway_id);
        let sender = gateway.map_or_else(|| UNUSABLE_LABEL.to_owned(), |g| g.to_string());
        let Some(json) = firmware_json::object(d, &sender, &self.names) else {
            return Ok(Handled::Done);
        };
        let topic = format!("{}/2/json/{}/{sender}", self.root, p.channel_level);
        if cx.publish(&topic, json.into_bytes()) {
            cx.counters().firmware_json.bump();
        } else {
            cx.counters().publish_dropped.bump();
        }
        Ok(Handled::Done)
    }
}
