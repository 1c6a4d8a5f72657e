//! `wireseal peat policy`: the protection the encryption policy chooses for
//! one message, with its trail. Names, ranges and the record's fields come
//! from `wireseal::peat::policy`; this file parses and prints.

use crate::util::output;
use anyhow::{Context, Result};
use clap::builder::{PossibleValue, TypedValueParser};
use serde_json::{json, Value};
use wireseal::peat::policy::{self, Adaptive, Conditions, DataType, Field, Level, Link, Policy};

/// Inputs of `wireseal peat policy`.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    /// The policy level.
    #[arg(long, default_value_t = Level::Selective,
          value_parser = named(Level::ALL, Level::as_str))]
    level: Level,
    /// The data type (counter, heartbeat, location, chat, emergency,
    /// sensitive-chat, or app:N).
    #[arg(long, default_value_t = DataType::Chat, value_parser = parse_data_type)]
    data: DataType,
    /// The link to the peer.
    #[arg(long, default_value_t = Link::KnownPeer,
          value_parser = named(Link::ALL, Link::as_str))]
    link: Link,
    /// Battery charge, percent (0 to 100).
    #[arg(long, default_value_t = Conditions::FULL_POWER.battery_percent)]
    battery: u8,
    /// Update rate of this data type, Hz (a finite number, 0 or more).
    #[arg(long, default_value_t = Conditions::FULL_POWER.update_rate_hz)]
    rate: f64,
    /// Enable the adaptive rule: plain below this battery percentage.
    #[arg(long, value_name = "PERCENT")]
    adaptive_battery: Option<u8>,
    /// Enable the adaptive rule: plain above this update rate (Hz).
    #[arg(long, value_name = "HZ")]
    adaptive_rate: Option<f64>,
    /// Replace the always-encrypt list (repeatable; default: emergency,
    /// sensitive-chat). Use `--always-encrypt none` for an empty list.
    #[arg(long, value_name = "TYPE")]
    always_encrypt: Vec<String>,
}

/// A clap parser for one of the library's named enums: `--help` and
/// completions list the library's names, and a value is parsed by the
/// library (its error says what is accepted).
#[derive(Clone)]
struct Named<T: 'static> {
    all: &'static [T],
    name: fn(T) -> &'static str,
}

fn named<T>(all: &'static [T], name: fn(T) -> &'static str) -> Named<T> {
    Named { all, name }
}

impl<T> TypedValueParser for Named<T>
where
    T: Copy + Send + Sync + 'static + std::str::FromStr<Err = wireseal::peat::Error>,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<T, clap::Error> {
        // The library parses; clap's own error keeps the library's error as
        // its source (the kind `--json` reports).
        (|s: &str| s.parse::<T>()).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.all.iter().map(|v| PossibleValue::new((self.name)(*v))),
        ))
    }
}

/// A data type by the library's name (clap value parser).
fn parse_data_type(s: &str) -> std::result::Result<DataType, wireseal::peat::Error> {
    s.parse()
}

/// The record's value as JSON.
fn json_value(f: &Field) -> Value {
    match f {
        Field::Name(s) => json!(s),
        Field::Names(v) => json!(v),
        Field::Int(n) => json!(n),
        Field::Float(x) => json!(x),
        Field::Record(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), json_value(v)))
                .collect(),
        ),
        _ => Value::Null,
    }
}

/// Runs `wireseal peat policy`.
///
/// # Errors
///
/// A condition or threshold out of range, or an unknown data type in
/// `--always-encrypt`.
pub fn run(a: PolicyArgs) -> Result<()> {
    let mut p = Policy::new(a.level);
    if a.adaptive_battery.is_some() || a.adaptive_rate.is_some() {
        p.adaptive = Some(
            Adaptive::new(a.adaptive_battery, a.adaptive_rate)
                .context("--adaptive-battery / --adaptive-rate")?,
        );
    }
    if !a.always_encrypt.is_empty() {
        p.always_encrypt.clear();
        for t in a.always_encrypt.iter().filter(|t| *t != "none") {
            p.always_encrypt
                .push(t.parse().context("--always-encrypt")?);
        }
    }
    let c = Conditions::new(a.battery, a.rate).context("--battery / --rate")?;
    let e = policy::explain(&p, a.data, a.link, c);
    if output::json() {
        let fields: Vec<(&str, Value)> = e
            .fields()
            .iter()
            .map(|(k, v)| (*k, json_value(v)))
            .collect();
        output::fields(&fields);
        return Ok(());
    }
    let d = e.decision;
    println!("protection: {}", d.protection);
    println!("decided by: {}", d.decided_by);
    println!("  1. level {}, data {} -> {}", e.level, e.data, d.base);
    println!("  2. link {} -> {}", e.link, d.after_link);
    println!(
        "  3. adaptive ({}) -> {}",
        match &e.adaptive {
            Some(r) => format!(
                "battery {}% < {}% or rate {} Hz > {} Hz",
                c.battery_percent, r.battery_below_percent, c.update_rate_hz, r.rate_above_hz
            ),
            None => "off".into(),
        },
        d.after_adaptive
    );
    let always: Vec<String> = e.always_encrypt.iter().map(ToString::to_string).collect();
    println!(
        "  4. always-encrypt {} -> {}",
        if always.is_empty() {
            "none".to_owned()
        } else {
            always.join(",")
        },
        d.protection
    );
    if d.protection > d.base {
        println!(
            "note: the level sets only the base ({}); the link rule and the always-encrypt \
             floor override it at every level, none included. A node without the keys for \
             {} must not send this message plain.",
            d.base, d.protection
        );
    }
    Ok(())
}
