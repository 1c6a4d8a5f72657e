//! The decision itself: [`super::Policy::decide`]'s four steps, once, over anything
//! that holds a policy's rules ([`super::Policy`], [`super::PolicyRules`])
//! without copying it.

#[cfg(feature = "alloc")]
use super::Policy;
use super::{
    Adaptive, Conditions, DataType, Decision, Level, Link, Override, PolicyRules, Protection, Rule,
};

/// What the decision reads of a policy.
pub(super) trait Rules {
    fn level(&self) -> Level;
    fn classes(&self) -> &[(DataType, Protection)];
    fn unlisted(&self) -> Protection;
    fn link(&self, link: Link) -> Override;
    fn adaptive(&self) -> Option<&Adaptive>;
    fn always_encrypt(&self) -> &[DataType];
}

/// Implements [`Rules`] over a type with the policy's field names.
macro_rules! rules_from_fields {
    ($t:ty) => {
        impl Rules for $t {
            #[inline]
            fn level(&self) -> Level {
                self.level
            }
            #[inline]
            fn classes(&self) -> &[(DataType, Protection)] {
                &self.classes
            }
            #[inline]
            fn unlisted(&self) -> Protection {
                self.unlisted
            }
            #[inline]
            fn link(&self, link: Link) -> Override {
                match link {
                    Link::TrustedLocal => self.trusted_local,
                    Link::KnownPeer => self.known_peer,
                    Link::UntrustedRelay => self.untrusted_relay,
                }
            }
            #[inline]
            fn adaptive(&self) -> Option<&Adaptive> {
                self.adaptive.as_ref()
            }
            #[inline]
            fn always_encrypt(&self) -> &[DataType] {
                &self.always_encrypt
            }
        }
    };
}
rules_from_fields!(PolicyRules<'_>);
#[cfg(feature = "alloc")]
rules_from_fields!(Policy);

/// The classification of `t` (or the policy's unlisted protection).
#[inline]
pub(super) fn classify_in<R: Rules>(policy: &R, t: DataType) -> Protection {
    policy
        .classes()
        .iter()
        .find(|(d, _)| *d == t)
        .map_or(policy.unlisted(), |(_, p)| *p)
}

/// The four steps of [`super::Policy::decide`].
#[inline]
pub(super) fn decide_rules<R: Rules>(
    policy: &R,
    data: DataType,
    link: Link,
    cond: Conditions,
) -> Decision {
    let class = classify_in(policy, data);
    let base = match policy.level() {
        Level::None => Protection::Plain,
        Level::MeshWide => Protection::MeshWide,
        Level::Selective => class,
        Level::PeerE2ee => Protection::PeerE2ee,
    };
    let mut decided_by = Rule::Base;
    let after_link = match policy.link(link) {
        Override::Keep => base,
        Override::AtLeast(p) => base.max(p),
        Override::AtMost(p) => base.min(p),
    };
    if after_link != base {
        decided_by = Rule::Link;
    }
    let low_power = policy.adaptive().is_some_and(|a| {
        cond.battery_percent < a.battery_below_percent || cond.update_rate_hz > a.rate_above_hz
    });
    let after_adaptive = if low_power {
        Protection::Plain
    } else {
        after_link
    };
    if after_adaptive != after_link {
        decided_by = Rule::Adaptive;
    }
    let protection = if policy.always_encrypt().contains(&data) {
        after_adaptive.max(class.max(Protection::MeshWide))
    } else {
        after_adaptive
    };
    if protection != after_adaptive {
        decided_by = Rule::AlwaysEncrypt;
    }
    Decision {
        protection,
        base,
        after_link,
        after_adaptive,
        decided_by,
    }
}

/// The conditions under which the adaptive rule fires whenever it can fire
/// at all: empty battery, the fastest finite update rate.
const LOWEST_POWER: Conditions = Conditions {
    battery_percent: 0,
    update_rate_hz: f64::MAX,
};

/// [`super::Policy::required_floor`]: the conditions enter the decision only
/// through the adaptive rule's yes/no, so one case where it fires if it
/// ever can and one where it stays off if it ever can cover every outcome.
pub(super) fn floor_in<R: Rules>(policy: &R, data: DataType, link: Link) -> Protection {
    let low = decide_rules(policy, data, link, LOWEST_POWER).protection;
    let full = decide_rules(policy, data, link, Conditions::FULL_POWER).protection;
    low.min(full)
}
