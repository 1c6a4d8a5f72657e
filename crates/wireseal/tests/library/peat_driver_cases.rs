//! The shared case table `vectors/peat/driver_cases.json` through the
//! library: mesh ids in any case open the same frame, malformed ones fail
//! with the kind and message written there, genesis names, and policy
//! decisions as the record the command line and Python print. The command
//! line (`crates/wireseal-cli/tests/cli/peat_cli_agree.rs`) and Python
//! (`crates/wireseal-py/tests/test_peat.py`) run the same table.

use crate::common;

use serde_json::{json, Value};
use wireseal::peat::policy::{self, Adaptive, Conditions, DataType, Field, Level, Link, Policy};
use wireseal::peat::{Error, Genesis, MeshId, MeshKey};

fn table() -> Value {
    common::load_json("peat/driver_cases.json")
}

fn arr32(v: &Value) -> [u8; 32] {
    hex::decode(v.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

/// An error as the table writes it: kind and message.
fn as_written(e: &Error) -> (String, String) {
    (e.kind().as_str().to_owned(), e.to_string())
}

fn expected_error(case: &Value) -> (String, String) {
    (
        case["error"].as_str().unwrap().to_owned(),
        case["message"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn mesh_ids_in_any_case_give_one_key() {
    let t = table();
    let mut opened = 0;
    for case in t["mesh_ids"].as_array().unwrap() {
        let given = case["given"].as_str().unwrap();
        let parsed = given.parse::<MeshId>();
        if case.get("error").is_some() {
            let e = parsed.expect_err(given);
            assert_eq!(as_written(&e), expected_error(case), "{given:?}");
            continue;
        }
        let id = parsed.unwrap();
        let canonical = case["mesh_id"].as_str().unwrap();
        assert_eq!(id.to_string(), canonical);
        let f = &t["mesh_frames"][canonical];
        let frame = hex::decode(f["frame_hex"].as_str().unwrap()).unwrap();
        let pt = MeshKey::derive(&id, &arr32(&f["secret_hex"]))
            .open_to_vec(&frame)
            .unwrap();
        assert_eq!(hex::encode(pt), f["plaintext_hex"].as_str().unwrap());
        opened += 1;
    }
    assert_eq!(opened, 5);
}

#[test]
fn genesis_names() {
    for case in table()["genesis"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let g = Genesis::derive(name, &arr32(&case["seed_hex"]));
        if case.get("error").is_some() {
            let e = g.expect_err(name);
            assert_eq!(as_written(&e), expected_error(case));
            continue;
        }
        let g = g.unwrap();
        assert_eq!(g.mesh_id().to_string(), case["mesh_id"].as_str().unwrap());
        assert_eq!(
            hex::encode(g.secret().expose()),
            case["secret_hex"].as_str().unwrap()
        );
    }
}

fn to_json(f: &Field) -> Value {
    match f {
        Field::Name(s) => json!(s),
        Field::Names(v) => json!(v),
        Field::Int(n) => json!(n),
        Field::Float(x) => json!(x),
        Field::Record(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), to_json(v)))
                .collect(),
        ),
        _ => Value::Null,
    }
}

/// A table entry's `given` through the library's parsers, in the order the
/// drivers read them.
fn decide(given: &Value) -> Result<Value, Error> {
    let s = |k: &str| given[k].as_str().unwrap();
    let level: Level = s("level").parse()?;
    let data: DataType = s("data").parse()?;
    let link: Link = s("link").parse()?;
    let mut p = Policy::new(level);
    if let Some(a) = given.get("adaptive") {
        let battery = a[0].as_u64().map(|b| u8::try_from(b).unwrap());
        p.adaptive = Some(Adaptive::new(battery, a[1].as_f64())?);
    }
    if let Some(list) = given.get("always_encrypt") {
        p.always_encrypt = list
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().parse())
            .collect::<Result<_, _>>()?;
    }
    let d = Conditions::FULL_POWER;
    let battery = given["battery"]
        .as_u64()
        .map_or(d.battery_percent, |b| u8::try_from(b).unwrap());
    let rate = given["rate"].as_f64().unwrap_or(d.update_rate_hz);
    let c = Conditions::new(battery, rate)?;
    let record = policy::explain(&p, data, link, c).fields();
    Ok(Value::Object(
        record
            .iter()
            .map(|(k, v)| ((*k).to_owned(), to_json(v)))
            .collect(),
    ))
}

#[test]
fn decisions_as_records() {
    let t = table();
    for case in t["decisions"].as_array().unwrap() {
        assert_eq!(
            decide(&case["given"]).unwrap(),
            case["record"],
            "{}",
            case["given"]
        );
    }
    for case in t["decision_errors"].as_array().unwrap() {
        let e = decide(&case["given"]).expect_err("must fail");
        assert_eq!(as_written(&e), expected_error(case), "{}", case["given"]);
    }
}
