//! What the two peat policy test files share: every data type, link and
//! condition the tables run over.

use wireseal::peat::policy::{Conditions, DataType, Link};

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

/// Every battery level and a spread of update rates, including each side of
/// every threshold the tests use and the largest finite rate.
pub fn condition_grid() -> Vec<Conditions> {
    let rates = [0.0, 0.5, 1.0, 9.99, 10.0, 10.01, 25.0, 1e6, 1e300, f64::MAX];
    (0..=100u8)
        .flat_map(|b| {
            rates.iter().map(move |&r| Conditions {
                battery_percent: b,
                update_rate_hz: r,
            })
        })
        .collect()
}
