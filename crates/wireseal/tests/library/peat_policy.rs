//! The encryption policy as a table: (level, data type, link, battery, rate)
//! → protection, with the expected column written from the rules in
//! `docs/peat.md` (not computed by the code under test).

use wireseal::peat::policy::*;
use wireseal::peat::Mode;
use DataType::*;
use Link::*;
use Protection::*;

use crate::peat_policy_support;
use peat_policy_support::{condition_grid, LINKS, TYPES};

const OK: Conditions = Conditions {
    battery_percent: 80,
    update_rate_hz: 1.0,
};
const LOW_BATTERY: Conditions = Conditions {
    battery_percent: 10,
    update_rate_hz: 1.0,
};
const FAST: Conditions = Conditions {
    battery_percent: 80,
    update_rate_hz: 25.0,
};

fn adaptive(level: Level) -> Policy {
    Policy::new(level).with_adaptive(20, 10.0)
}

#[rustfmt::skip]
fn table() -> Vec<(Policy, DataType, Link, Conditions, Protection, Rule)> {
    vec![
        // Level None: plain, except the always-encrypt floor.
        (Policy::new(Level::None), Counter, KnownPeer, OK, Plain, Rule::Base),
        (Policy::new(Level::None), Chat, KnownPeer, OK, Plain, Rule::Base),
        (Policy::new(Level::None), Emergency, KnownPeer, OK, MeshWide, Rule::AlwaysEncrypt),
        (Policy::new(Level::None), SensitiveChat, KnownPeer, OK, PeerE2ee, Rule::AlwaysEncrypt),
        // Level MeshWide: everything mesh-wide with a known peer.
        (Policy::new(Level::MeshWide), Counter, KnownPeer, OK, MeshWide, Rule::Base),
        (Policy::new(Level::MeshWide), Heartbeat, KnownPeer, OK, MeshWide, Rule::Base),
        (Policy::new(Level::MeshWide), Location, KnownPeer, OK, MeshWide, Rule::Base),
        (Policy::new(Level::MeshWide), SensitiveChat, KnownPeer, OK, PeerE2ee, Rule::AlwaysEncrypt),
        (Policy::new(Level::MeshWide), App(7), KnownPeer, OK, MeshWide, Rule::Base),
        // Level Selective: the classification.
        (Policy::new(Level::Selective), Counter, KnownPeer, OK, Plain, Rule::Base),
        (Policy::new(Level::Selective), Heartbeat, KnownPeer, OK, Plain, Rule::Base),
        (Policy::new(Level::Selective), Location, KnownPeer, OK, MeshWide, Rule::Base),
        (Policy::new(Level::Selective), Chat, KnownPeer, OK, MeshWide, Rule::Base),
        (Policy::new(Level::Selective), Emergency, KnownPeer, OK, MeshWide, Rule::Base),
        (Policy::new(Level::Selective), SensitiveChat, KnownPeer, OK, PeerE2ee, Rule::Base),
        (Policy::new(Level::Selective), App(1), KnownPeer, OK, MeshWide, Rule::Base),
        // Level PeerE2ee.
        (Policy::new(Level::PeerE2ee), Counter, KnownPeer, OK, PeerE2ee, Rule::Base),
        (Policy::new(Level::PeerE2ee), Emergency, KnownPeer, OK, PeerE2ee, Rule::Base),
        // Link overrides.
        (Policy::new(Level::MeshWide), Chat, TrustedLocal, OK, Plain, Rule::Link),
        (Policy::new(Level::MeshWide), Chat, UntrustedRelay, OK, PeerE2ee, Rule::Link),
        (Policy::new(Level::Selective), Counter, UntrustedRelay, OK, PeerE2ee, Rule::Link),
        (Policy::new(Level::None), Counter, UntrustedRelay, OK, PeerE2ee, Rule::Link),
        (Policy::new(Level::MeshWide), Emergency, TrustedLocal, OK, MeshWide, Rule::AlwaysEncrypt),
        (Policy::new(Level::Selective), SensitiveChat, TrustedLocal, OK, PeerE2ee, Rule::AlwaysEncrypt),
        // Adaptive: low battery or fast updates drop to plain...
        (adaptive(Level::MeshWide), Location, KnownPeer, LOW_BATTERY, Plain, Rule::Adaptive),
        (adaptive(Level::MeshWide), Location, KnownPeer, FAST, Plain, Rule::Adaptive),
        (adaptive(Level::MeshWide), Location, KnownPeer, OK, MeshWide, Rule::Base),
        (adaptive(Level::Selective), Chat, UntrustedRelay, LOW_BATTERY, Plain, Rule::Adaptive),
        // ...but never for always-encrypt types.
        (adaptive(Level::MeshWide), Emergency, KnownPeer, LOW_BATTERY, MeshWide, Rule::AlwaysEncrypt),
        (adaptive(Level::PeerE2ee), Emergency, UntrustedRelay, FAST, MeshWide, Rule::AlwaysEncrypt),
        (adaptive(Level::Selective), SensitiveChat, KnownPeer, FAST, PeerE2ee, Rule::AlwaysEncrypt),
        // Thresholds are strict: exactly at the threshold does not trigger.
        (adaptive(Level::MeshWide), Chat, KnownPeer, Conditions { battery_percent: 20, update_rate_hz: 10.0 }, MeshWide, Rule::Base),
        (adaptive(Level::MeshWide), Chat, KnownPeer, Conditions { battery_percent: 19, update_rate_hz: 10.0 }, Plain, Rule::Adaptive),
        (adaptive(Level::MeshWide), Chat, KnownPeer, Conditions { battery_percent: 20, update_rate_hz: 10.01 }, Plain, Rule::Adaptive),
    ]
}

#[test]
fn decision_table() {
    for (i, (p, d, l, c, want, rule)) in table().into_iter().enumerate() {
        let got = p.decide(d, l, c);
        assert_eq!(
            got.protection, want,
            "row {i}: {d:?} {l:?} {c:?} {:?}",
            p.level
        );
        assert_eq!(got.decided_by, rule, "row {i}");
    }
}

/// The whole trail of a decision, step by step, written from the four rules
/// in `docs/peat.md`: base from the level, the link override, the adaptive
/// rule, the always-encrypt floor; `decided_by` is the last step that
/// changed the protection.
#[test]
fn decision_trails() {
    let trail = |protection, base, after_link, after_adaptive, decided_by| Decision {
        protection,
        base,
        after_link,
        after_adaptive,
        decided_by,
    };
    #[rustfmt::skip]
    let rows = [
        // Nothing changes the base.
        (Policy::new(Level::Selective), Chat, KnownPeer, OK,
         trail(MeshWide, MeshWide, MeshWide, MeshWide, Rule::Base)),
        // The link raises, nothing after it changes.
        (Policy::new(Level::None), Counter, UntrustedRelay, OK,
         trail(PeerE2ee, Plain, PeerE2ee, PeerE2ee, Rule::Link)),
        // The link lowers, the floor raises again: the floor decides.
        (Policy::new(Level::MeshWide), Emergency, TrustedLocal, OK,
         trail(MeshWide, MeshWide, Plain, Plain, Rule::AlwaysEncrypt)),
        // The link raises, the adaptive rule lowers: adaptive decides.
        (adaptive(Level::Selective), Chat, UntrustedRelay, LOW_BATTERY,
         trail(Plain, MeshWide, PeerE2ee, Plain, Rule::Adaptive)),
        // Adaptive lowers, the floor raises to the classification.
        (adaptive(Level::Selective), SensitiveChat, KnownPeer, FAST,
         trail(PeerE2ee, PeerE2ee, PeerE2ee, Plain, Rule::AlwaysEncrypt)),
        // The link lowers a plain base no further: still the base.
        (Policy::new(Level::None), Chat, TrustedLocal, OK,
         trail(Plain, Plain, Plain, Plain, Rule::Base)),
        // The adaptive rule on an already plain message changes nothing.
        (adaptive(Level::Selective), Counter, KnownPeer, LOW_BATTERY,
         trail(Plain, Plain, Plain, Plain, Rule::Base)),
        // The floor raises a per-peer-classified type above mesh-wide at level None.
        (Policy::new(Level::None), SensitiveChat, TrustedLocal, OK,
         trail(PeerE2ee, Plain, Plain, Plain, Rule::AlwaysEncrypt)),
    ];
    for (i, (p, d, l, c, want)) in rows.into_iter().enumerate() {
        assert_eq!(
            p.decide(d, l, c),
            want,
            "row {i}: {d} {l} {c:?} {}",
            p.level
        );
    }
}

/// Every named value parses from its one kebab-case spelling, written here
/// by hand, and prints it back.
#[test]
fn names_are_kebab_case_both_ways() {
    let written: [(&str, &str); 6] = [
        ("plain mesh-wide peer-e2ee", "protection"),
        ("none mesh-wide selective peer-e2ee", "level"),
        ("trusted-local known-peer untrusted-relay", "link"),
        ("base link adaptive always-encrypt", "rule"),
        (
            "counter heartbeat location chat emergency sensitive-chat app:0 app:65535",
            "data",
        ),
        ("keep at-least:mesh-wide at-most:plain", "override"),
    ];
    for (names, what) in written {
        for n in names.split(' ') {
            let back = match what {
                "protection" => n.parse::<Protection>().map(|v| v.to_string()),
                "level" => n.parse::<Level>().map(|v| v.to_string()),
                "link" => n.parse::<Link>().map(|v| v.to_string()),
                "rule" => n.parse::<Rule>().map(|v| v.to_string()),
                "data" => n.parse::<DataType>().map(|v| v.to_string()),
                _ => n.parse::<Override>().map(|v| v.to_string()),
            };
            assert_eq!(back.as_deref(), Ok(n), "{what}");
        }
    }
    assert_eq!(Level::ALL.len(), 4);
    assert_eq!(Link::ALL.len(), 3);
    for snake in [
        "mesh_wide",
        "peer_e2ee",
        "known_peer",
        "sensitive_chat",
        "always_encrypt",
    ] {
        assert!(snake.parse::<Level>().is_err() && snake.parse::<Link>().is_err());
        assert!(snake.parse::<DataType>().is_err() && snake.parse::<Rule>().is_err());
    }
}

#[test]
fn custom_classification_and_app_types() {
    let mut p = Policy::new(Level::Selective);
    p.classes.push((App(42), PeerE2ee));
    p.classes.push((App(43), Plain));
    p.unlisted = Plain;
    p.always_encrypt.push(App(43));
    assert_eq!(p.decide(App(42), KnownPeer, OK).protection, PeerE2ee);
    assert_eq!(p.decide(App(99), KnownPeer, OK).protection, Plain);
    // On the always-encrypt list: at least mesh-wide even though classified plain.
    assert_eq!(p.decide(App(43), TrustedLocal, OK).protection, MeshWide);
    p.known_peer = Override::AtLeast(MeshWide);
    assert_eq!(p.decide(Counter, KnownPeer, OK).protection, MeshWide);
}

#[test]
fn strict_receivers_never_accept_what_the_policy_would_encrypt() {
    let levels = [
        Level::None,
        Level::MeshWide,
        Level::Selective,
        Level::PeerE2ee,
    ];
    let conds = [OK, LOW_BATTERY, FAST];
    let received = [Plain, MeshWide, PeerE2ee];
    let mut checked = 0;
    for lv in levels {
        for p in [Policy::new(lv), adaptive(lv)] {
            for d in TYPES {
                for l in LINKS {
                    for c in conds {
                        let need = p.decide(d, l, c).protection;
                        for r in received {
                            let strict = admits(Mode::Strict, need, r);
                            // Weaker than required: refused. Equal or stronger: accepted.
                            let weaker = matches!(
                                (need, r),
                                (MeshWide, Plain) | (PeerE2ee, Plain) | (PeerE2ee, MeshWide)
                            );
                            assert_eq!(strict, !weaker, "{lv:?} {d:?} {l:?} {c:?} {r:?}");
                            assert!(admits(Mode::Permissive, need, r));
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 4 * 2 * 7 * 3 * 3 * 3);
}

#[test]
fn required_floor_is_the_lowest_decision_over_all_conditions() {
    let grid = condition_grid();
    let mut policies = Vec::new();
    for lv in [
        Level::None,
        Level::MeshWide,
        Level::Selective,
        Level::PeerE2ee,
    ] {
        policies.push(Policy::new(lv));
        policies.push(adaptive(lv));
        // Thresholds that only one side of the grid reaches, or none of it.
        policies.push(Policy::new(lv).with_adaptive(0, f64::INFINITY)); // never fires
        policies.push(Policy::new(lv).with_adaptive(0, 1e300)); // only at f64::MAX
        policies.push(Policy::new(lv).with_adaptive(1, f64::INFINITY)); // only at 0 %
        policies.push(Policy::new(lv).with_adaptive(101, f64::INFINITY)); // always
        policies.push(Policy::new(lv).with_adaptive(0, -1.0)); // always
        let mut custom = Policy::new(lv).with_adaptive(50, 2.0);
        custom.always_encrypt.clear();
        custom.known_peer = Override::AtLeast(PeerE2ee);
        custom.trusted_local = Override::Keep;
        policies.push(custom);
    }
    for p in &policies {
        for d in TYPES {
            for l in [TrustedLocal, KnownPeer, UntrustedRelay] {
                let lowest = grid
                    .iter()
                    .map(|&c| p.decide(d, l, c).protection)
                    .min()
                    .unwrap();
                assert_eq!(
                    p.required_floor(d, l),
                    lowest,
                    "{:?} {:?} {d:?} {l:?}",
                    p.level,
                    p.adaptive
                );
            }
        }
    }
    // Spot checks written from the rules, not computed.
    let sel = Policy::new(Level::Selective);
    assert_eq!(sel.required_floor(Counter, KnownPeer), Plain);
    assert_eq!(sel.required_floor(Chat, KnownPeer), MeshWide);
    assert_eq!(sel.required_floor(SensitiveChat, TrustedLocal), PeerE2ee);
    let sel_adaptive = adaptive(Level::Selective);
    assert_eq!(sel_adaptive.required_floor(Chat, UntrustedRelay), Plain);
    assert_eq!(sel_adaptive.required_floor(Emergency, KnownPeer), MeshWide);
    let none = Policy::new(Level::None);
    assert_eq!(none.required_floor(Emergency, KnownPeer), MeshWide);
    assert_eq!(none.required_floor(Counter, UntrustedRelay), PeerE2ee);
    let never = Policy::new(Level::MeshWide).with_adaptive(0, f64::INFINITY);
    assert_eq!(never.required_floor(Location, KnownPeer), MeshWide);
}
