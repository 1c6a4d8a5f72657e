//! One decision with the inputs that produced it, as a record of named
//! fields: the command line prints it as JSON (`wireseal peat policy
//! --json`) and Python returns it as a dict (`wireseal.peat.decide`), with
//! the same field names and the same value spellings.

use super::{Adaptive, Conditions, DataType, Decision, Level, Link, Policy};

/// A [`Policy::decide`] call's inputs and result, for showing to a user.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The policy's level.
    pub level: Level,
    /// The message's data type.
    pub data: DataType,
    /// The link the message goes over.
    pub link: Link,
    /// The conditions it was sent under.
    pub conditions: Conditions,
    /// The policy's adaptive rule, if any.
    pub adaptive: Option<Adaptive>,
    /// The policy's always-encrypt list.
    pub always_encrypt: Vec<DataType>,
    /// What [`Policy::decide`] returned.
    pub decision: Decision,
}

/// A value in an [`Explanation`]'s record.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Field {
    /// No value.
    Null,
    /// A name, in its one spelling (`mesh-wide`, `known-peer`, `app:7`).
    Name(String),
    /// A list of names.
    Names(Vec<String>),
    /// A whole number.
    Int(u64),
    /// A number.
    Float(f64),
    /// Named fields, in order.
    Record(Vec<(&'static str, Field)>),
}

/// The names of [`Explanation::fields`], in order.
pub const EXPLANATION_FIELDS: [&str; 10] = [
    "protection",
    "decided_by",
    "level",
    "data",
    "link",
    "base",
    "after_link",
    "after_adaptive",
    "adaptive",
    "always_encrypt",
];

/// Decides the protection of one message ([`Policy::decide`]) and keeps the inputs
/// beside the result.
pub fn explain(policy: &Policy, data: DataType, link: Link, cond: Conditions) -> Explanation {
    Explanation {
        level: policy.level,
        data,
        link,
        conditions: cond,
        adaptive: policy.adaptive,
        always_encrypt: policy.always_encrypt.clone(),
        decision: policy.decide(data, link, cond),
    }
}

impl Explanation {
    /// The record: [`EXPLANATION_FIELDS`] in order, each with its value.
    /// `adaptive` is [`Field::Null`] or a record of `battery_below_percent`
    /// and `rate_above_hz` (null when the rate threshold is not a finite
    /// number, i.e. never fires).
    pub fn fields(&self) -> Vec<(&'static str, Field)> {
        let name = |v: &dyn core::fmt::Display| Field::Name(v.to_string());
        let d = &self.decision;
        let adaptive = self.adaptive.as_ref().map_or(Field::Null, |a| {
            Field::Record(vec![
                (
                    "battery_below_percent",
                    Field::Int(u64::from(a.battery_below_percent)),
                ),
                (
                    "rate_above_hz",
                    if a.rate_above_hz.is_finite() {
                        Field::Float(a.rate_above_hz)
                    } else {
                        Field::Null
                    },
                ),
            ])
        });
        let values = [
            name(&d.protection),
            name(&d.decided_by),
            name(&self.level),
            name(&self.data),
            name(&self.link),
            name(&d.base),
            name(&d.after_link),
            name(&d.after_adaptive),
            adaptive,
            Field::Names(
                self.always_encrypt
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
            ),
        ];
        EXPLANATION_FIELDS.into_iter().zip(values).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peat::policy::Protection;

    #[test]
    fn record_of_a_raised_decision() {
        let p = Policy::new(Level::None).with_adaptive(20, 10.0);
        let e = explain(
            &p,
            DataType::Emergency,
            Link::KnownPeer,
            Conditions::default(),
        );
        assert_eq!(e.decision.protection, Protection::MeshWide);
        let f = e.fields();
        let names: Vec<&str> = f.iter().map(|(k, _)| *k).collect();
        assert_eq!(names, EXPLANATION_FIELDS);
        let text = |i: usize| match &f[i].1 {
            Field::Name(s) => s.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            (0..8).map(text).collect::<Vec<_>>(),
            [
                "mesh-wide",
                "always-encrypt",
                "none",
                "emergency",
                "known-peer",
                "plain",
                "plain",
                "plain"
            ]
        );
        assert_eq!(
            f[8].1,
            Field::Record(vec![
                ("battery_below_percent", Field::Int(20)),
                ("rate_above_hz", Field::Float(10.0)),
            ])
        );
        assert_eq!(
            f[9].1,
            Field::Names(vec!["emergency".into(), "sensitive-chat".into()])
        );
    }
}
