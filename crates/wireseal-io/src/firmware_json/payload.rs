//! The `type` and `payload` of the firmware's object, per port, as
//! `MeshPacketSerializer.cpp` (2.7) fills them. A payload that does not
//! decode keeps its `type` and has no `payload` (remote hardware: neither);
//! a string longer than the firmware's nanopb field holds fails its decode
//! the same way.

use super::format::{c_string, Value};
use super::Names;
use std::collections::BTreeMap;
use wireseal::meshtastic::decoder::Decoded;
use wireseal::meshtastic::envelope::{
    self as env, AirQualityMetrics, Data, DeviceMetrics, EnvironmentMetrics, HardwareMessage,
    NeighborInfo, Paxcount, Position, PowerMetrics, RouteDiscovery, Telemetry, TelemetryVariant,
    User, Waypoint,
};

type Obj = BTreeMap<String, Value>;

fn put(m: &mut Obj, k: &str, v: Value) {
    m.insert(k.to_owned(), v);
}

fn put_float(m: &mut Obj, k: &str, v: Option<f32>) {
    if let Some(v) = v {
        put(m, k, Value::float(v));
    }
}

fn put_uint(m: &mut Obj, k: &str, v: Option<u32>) {
    if let Some(v) = v {
        put(m, k, Value::int(v));
    }
}

/// A nanopb string field holds `max - 1` bytes; a longer one fails the decode.
fn fits(s: &str, max: usize) -> bool {
    s.len() < max
}

/// `(type, payload)` of `data`.
pub(super) fn build(d: &Decoded, data: &Data, names: &Names) -> (&'static str, Option<Value>) {
    let p = &data.payload;
    match data.portnum {
        env::TEXT_MESSAGE_APP => ("text", Some(text(p))),
        env::TELEMETRY_APP => (
            "telemetry",
            env::decode_payload::<Telemetry>(p, "Telemetry")
                .ok()
                .map(|t| Value::Obj(telemetry(&t))),
        ),
        env::NODEINFO_APP => ("nodeinfo", nodeinfo(p)),
        env::POSITION_APP => (
            "position",
            env::decode_payload::<Position>(p, "Position")
                .ok()
                .map(|x| Value::Obj(position(&x))),
        ),
        env::WAYPOINT_APP => ("waypoint", waypoint(p)),
        env::NEIGHBORINFO_APP => ("neighborinfo", neighborinfo(p)),
        env::TRACEROUTE_APP if data.request_id != 0 => ("traceroute", traceroute(d, p, names)),
        env::DETECTION_SENSOR_APP => {
            let mut m = Obj::new();
            put(&mut m, "text", Value::str(c_string(p)));
            ("detection", Some(Value::Obj(m)))
        }
        env::PAXCOUNTER_APP => (
            "paxcounter",
            env::decode_payload::<Paxcount>(p, "Paxcount")
                .ok()
                .map(|x| {
                    let mut m = Obj::new();
                    put(&mut m, "wifi_count", Value::int(x.wifi));
                    put(&mut m, "ble_count", Value::int(x.ble));
                    put(&mut m, "uptime", Value::int(x.uptime));
                    Value::Obj(m)
                }),
        ),
        env::REMOTE_HARDWARE_APP => hardware(p),
        _ => ("", None),
    }
}

/// A text message: its JSON value when the text is JSON, else `{"text": …}`.
fn text(p: &[u8]) -> Value {
    let s = c_string(p);
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&s) {
        return Value::from_json(v);
    }
    let mut m = Obj::new();
    put(&mut m, "text", Value::Str(s));
    Value::Obj(m)
}

fn telemetry(t: &Telemetry) -> Obj {
    let mut m = Obj::new();
    match &t.variant {
        Some(TelemetryVariant::DeviceMetrics(x)) => device(&mut m, x),
        Some(TelemetryVariant::EnvironmentMetrics(x)) => environment(&mut m, x),
        Some(TelemetryVariant::AirQualityMetrics(x)) => air_quality(&mut m, x),
        Some(TelemetryVariant::PowerMetrics(x)) => power(&mut m, x),
        _ => {}
    }
    m
}

fn device(m: &mut Obj, x: &DeviceMetrics) {
    put_uint(m, "battery_level", x.battery_level);
    put(m, "voltage", Value::float(x.voltage.unwrap_or(0.0)));
    put(
        m,
        "channel_utilization",
        Value::float(x.channel_utilization.unwrap_or(0.0)),
    );
    put(m, "air_util_tx", Value::float(x.air_util_tx.unwrap_or(0.0)));
    put(
        m,
        "uptime_seconds",
        Value::int(x.uptime_seconds.unwrap_or(0)),
    );
}

fn environment(m: &mut Obj, x: &EnvironmentMetrics) {
    put_float(m, "temperature", x.temperature);
    put_float(m, "relative_humidity", x.relative_humidity);
    put_float(m, "barometric_pressure", x.barometric_pressure);
    put_float(m, "gas_resistance", x.gas_resistance);
    put_float(m, "voltage", x.voltage);
    put_float(m, "current", x.current);
    put_float(m, "lux", x.lux);
    put_float(m, "white_lux", x.white_lux);
    put_uint(m, "iaq", x.iaq);
    put_float(m, "distance", x.distance);
    put_float(m, "wind_speed", x.wind_speed);
    put_uint(m, "wind_direction", x.wind_direction);
    put_float(m, "wind_gust", x.wind_gust);
    put_float(m, "wind_lull", x.wind_lull);
    put_float(m, "radiation", x.radiation);
    put_float(m, "ir_lux", x.ir_lux);
    put_float(m, "uv_lux", x.uv_lux);
    put_float(m, "weight", x.weight);
    put_float(m, "rainfall_1h", x.rainfall_1h);
    put_float(m, "rainfall_24h", x.rainfall_24h);
    put_uint(m, "soil_moisture", x.soil_moisture);
    put_float(m, "soil_temperature", x.soil_temperature);
}

fn air_quality(m: &mut Obj, x: &AirQualityMetrics) {
    put_uint(m, "pm10", x.pm10_standard);
    put_uint(m, "pm25", x.pm25_standard);
    put_uint(m, "pm100", x.pm100_standard);
    put_uint(m, "co2", x.co2);
    put_float(m, "co2_temperature", x.co2_temperature);
    put_float(m, "co2_humidity", x.co2_humidity);
    put_float(m, "form_formaldehyde", x.form_formaldehyde);
    put_float(m, "form_temperature", x.form_temperature);
    put_float(m, "form_humidity", x.form_humidity);
}

fn power(m: &mut Obj, x: &PowerMetrics) {
    put_float(m, "voltage_ch1", x.ch1_voltage);
    put_float(m, "current_ch1", x.ch1_current);
    put_float(m, "voltage_ch2", x.ch2_voltage);
    put_float(m, "current_ch2", x.ch2_current);
    put_float(m, "voltage_ch3", x.ch3_voltage);
    put_float(m, "current_ch3", x.ch3_current);
}

fn nodeinfo(p: &[u8]) -> Option<Value> {
    let u: User = env::decode_payload(p, "User").ok()?;
    if !(fits(&u.id, 16) && fits(&u.long_name, 40) && fits(&u.short_name, 5)) {
        return None;
    }
    let mut m = Obj::new();
    put(&mut m, "id", Value::Str(u.id));
    put(&mut m, "longname", Value::Str(u.long_name));
    put(&mut m, "shortname", Value::Str(u.short_name));
    put(&mut m, "hardware", Value::int(u.hw_model));
    put(&mut m, "role", Value::int(u.role));
    Some(Value::Obj(m))
}

fn position(x: &Position) -> Obj {
    let mut m = Obj::new();
    let nz = |m: &mut Obj, k: &str, v: i64| {
        // The firmware tests `(int)v != 0`.
        if v as i32 != 0 {
            put(m, k, Value::int(v));
        }
    };
    nz(&mut m, "time", i64::from(x.time));
    nz(&mut m, "timestamp", i64::from(x.timestamp));
    put(&mut m, "latitude_i", Value::int(x.latitude_i.unwrap_or(0)));
    put(
        &mut m,
        "longitude_i",
        Value::int(x.longitude_i.unwrap_or(0)),
    );
    nz(&mut m, "altitude", i64::from(x.altitude.unwrap_or(0)));
    nz(
        &mut m,
        "ground_speed",
        i64::from(x.ground_speed.unwrap_or(0)),
    );
    nz(
        &mut m,
        "ground_track",
        i64::from(x.ground_track.unwrap_or(0)),
    );
    nz(&mut m, "sats_in_view", i64::from(x.sats_in_view));
    nz(&mut m, "PDOP", i64::from(x.pdop as i32));
    nz(&mut m, "HDOP", i64::from(x.hdop as i32));
    nz(&mut m, "VDOP", i64::from(x.vdop as i32));
    nz(&mut m, "precision_bits", i64::from(x.precision_bits as i32));
    m
}

fn waypoint(p: &[u8]) -> Option<Value> {
    let w: Waypoint = env::decode_payload(p, "Waypoint").ok()?;
    if !(fits(&w.name, 30) && fits(&w.description, 100)) {
        return None;
    }
    let mut m = Obj::new();
    put(&mut m, "id", Value::int(w.id));
    put(&mut m, "name", Value::Str(w.name));
    put(&mut m, "description", Value::Str(w.description));
    put(&mut m, "expire", Value::int(w.expire));
    put(&mut m, "locked_to", Value::int(w.locked_to));
    put(&mut m, "latitude_i", Value::int(w.latitude_i.unwrap_or(0)));
    put(
        &mut m,
        "longitude_i",
        Value::int(w.longitude_i.unwrap_or(0)),
    );
    Some(Value::Obj(m))
}

fn neighborinfo(p: &[u8]) -> Option<Value> {
    let n: NeighborInfo = env::decode_payload(p, "NeighborInfo").ok()?;
    if n.neighbors.len() > 10 {
        return None;
    }
    let mut m = Obj::new();
    put(&mut m, "node_id", Value::int(n.node_id));
    put(
        &mut m,
        "node_broadcast_interval_secs",
        Value::int(n.node_broadcast_interval_secs),
    );
    put(&mut m, "last_sent_by_id", Value::int(n.last_sent_by_id));
    put(
        &mut m,
        "neighbors_count",
        Value::int(n.neighbors.len() as u32),
    );
    let list = n
        .neighbors
        .iter()
        .map(|x| {
            let mut o = Obj::new();
            put(&mut o, "node_id", Value::int(x.node_id));
            // `(int)snr`: truncated toward zero (a NaN is 0 here).
            let snr = if x.snr.is_finite() {
                x.snr.trunc() as i64
            } else {
                0
            };
            put(&mut o, "snr", Value::int(snr));
            Value::Obj(o)
        })
        .collect();
    put(&mut m, "neighbors", Value::Arr(list));
    Some(Value::Obj(m))
}

fn traceroute(d: &Decoded, p: &[u8], names: &Names) -> Option<Value> {
    let r: RouteDiscovery = env::decode_payload(p, "RouteDiscovery").ok()?;
    if [
        r.route.len(),
        r.route_back.len(),
        r.snr_towards.len(),
        r.snr_back.len(),
    ]
    .iter()
    .any(|&n| n > 8)
    {
        return None;
    }
    let name = |n: u32| Value::str(names.of(n));
    let mut route = vec![name(d.to)];
    route.extend(r.route.iter().map(|&n| name(n)));
    route.push(name(d.from));
    let mut back = vec![name(d.from)];
    back.extend(r.route_back.iter().map(|&n| name(n)));
    back.push(name(d.to));
    let quarter = |v: &[i32]| Value::Arr(v.iter().map(|&s| Value::float(s as f32 / 4.0)).collect());
    let mut m = Obj::new();
    put(&mut m, "route", Value::Arr(route));
    put(&mut m, "route_back", Value::Arr(back));
    put(&mut m, "snr_back", quarter(&r.snr_back));
    put(&mut m, "snr_towards", quarter(&r.snr_towards));
    Some(Value::Obj(m))
}

fn hardware(p: &[u8]) -> (&'static str, Option<Value>) {
    let Ok(h) = env::decode_payload::<HardwareMessage>(p, "HardwareMessage") else {
        return ("", None);
    };
    // `(unsigned int)` of a 64-bit field: its low 32 bits.
    let low = |v: u64| Value::int(v as u32);
    let mut m = Obj::new();
    match h.kind {
        3 => {
            put(&mut m, "gpio_value", low(h.gpio_value));
            ("gpios_changed", Some(Value::Obj(m)))
        }
        5 => {
            put(&mut m, "gpio_value", low(h.gpio_value));
            put(&mut m, "gpio_mask", low(h.gpio_mask));
            ("gpios_read_reply", Some(Value::Obj(m)))
        }
        _ => ("", None),
    }
}
