//! What the two peat policy test files share: every data type and link the
//! tables run over.

use wireseal::peat::policy::{DataType, Link};

/// Every built-in data type and one application-defined type.
pub const TYPES: [DataType; 7] = [
    DataType::Counter,
    DataType::Heartbeat,
    DataType::Location,
    DataType::Chat,
    DataType::Emergency,
    DataType::SensitiveChat,
    DataType::App(3),
];

/// Every kind of link.
pub const LINKS: [Link; 3] = [Link::TrustedLocal, Link::KnownPeer, Link::UntrustedRelay];
