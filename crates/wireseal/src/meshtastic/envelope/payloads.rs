//! Application payloads beyond text, position and node info, declared from
//! the public schema's field numbers (`telemetry.proto`, `mesh.proto`,
//! `paxcount.proto`, `remote_hardware.proto`, `mqtt.proto`): what a gateway
//! needs to show them. Fields this crate does not model are skipped.

use alloc::{string::String, vec::Vec};

/// `Telemetry`: the payload of `TELEMETRY_APP` (67).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Telemetry {
    /// When the values were taken, seconds since the Unix epoch.
    #[prost(fixed32, tag = "1")]
    pub time: u32,
    /// Which metrics it carries.
    #[prost(oneof = "TelemetryVariant", tags = "2, 3, 4, 5, 6, 7, 8")]
    pub variant: Option<TelemetryVariant>,
}

/// The metrics a [`Telemetry`] carries. Variants this crate does not model
/// are kept as present but empty.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum TelemetryVariant {
    /// Battery, voltage, air time.
    #[prost(message, tag = "2")]
    DeviceMetrics(DeviceMetrics),
    /// Weather and environment sensors.
    #[prost(message, tag = "3")]
    EnvironmentMetrics(EnvironmentMetrics),
    /// Particulates, CO2, formaldehyde.
    #[prost(message, tag = "4")]
    AirQualityMetrics(AirQualityMetrics),
    /// Voltage and current per channel.
    #[prost(message, tag = "5")]
    PowerMetrics(PowerMetrics),
    /// The node's own traffic statistics (not modelled).
    #[prost(message, tag = "6")]
    LocalStats(Unmodelled),
    /// Health sensors (not modelled).
    #[prost(message, tag = "7")]
    HealthMetrics(Unmodelled),
    /// Host statistics (not modelled).
    #[prost(message, tag = "8")]
    HostMetrics(Unmodelled),
}

/// A message whose fields are skipped.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Unmodelled {}

/// `DeviceMetrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeviceMetrics {
    /// Battery level, percent (101: powered).
    #[prost(uint32, optional, tag = "1")]
    pub battery_level: Option<u32>,
    /// Battery voltage.
    #[prost(float, optional, tag = "2")]
    pub voltage: Option<f32>,
    /// Channel utilisation, percent.
    #[prost(float, optional, tag = "3")]
    pub channel_utilization: Option<f32>,
    /// Transmit air time in the last hour, percent.
    #[prost(float, optional, tag = "4")]
    pub air_util_tx: Option<f32>,
    /// Seconds since boot.
    #[prost(uint32, optional, tag = "5")]
    pub uptime_seconds: Option<u32>,
}

/// `EnvironmentMetrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EnvironmentMetrics {
    /// °C.
    #[prost(float, optional, tag = "1")]
    pub temperature: Option<f32>,
    /// Percent.
    #[prost(float, optional, tag = "2")]
    pub relative_humidity: Option<f32>,
    /// hPa.
    #[prost(float, optional, tag = "3")]
    pub barometric_pressure: Option<f32>,
    /// MΩ.
    #[prost(float, optional, tag = "4")]
    pub gas_resistance: Option<f32>,
    /// V.
    #[prost(float, optional, tag = "5")]
    pub voltage: Option<f32>,
    /// mA.
    #[prost(float, optional, tag = "6")]
    pub current: Option<f32>,
    /// Indoor air quality index.
    #[prost(uint32, optional, tag = "7")]
    pub iaq: Option<u32>,
    /// mm.
    #[prost(float, optional, tag = "8")]
    pub distance: Option<f32>,
    /// Lux.
    #[prost(float, optional, tag = "9")]
    pub lux: Option<f32>,
    /// Lux.
    #[prost(float, optional, tag = "10")]
    pub white_lux: Option<f32>,
    /// Lux.
    #[prost(float, optional, tag = "11")]
    pub ir_lux: Option<f32>,
    /// Lux.
    #[prost(float, optional, tag = "12")]
    pub uv_lux: Option<f32>,
    /// Degrees.
    #[prost(uint32, optional, tag = "13")]
    pub wind_direction: Option<u32>,
    /// m/s.
    #[prost(float, optional, tag = "14")]
    pub wind_speed: Option<f32>,
    /// kg.
    #[prost(float, optional, tag = "15")]
    pub weight: Option<f32>,
    /// m/s.
    #[prost(float, optional, tag = "16")]
    pub wind_gust: Option<f32>,
    /// m/s.
    #[prost(float, optional, tag = "17")]
    pub wind_lull: Option<f32>,
    /// µR/h.
    #[prost(float, optional, tag = "18")]
    pub radiation: Option<f32>,
    /// mm.
    #[prost(float, optional, tag = "19")]
    pub rainfall_1h: Option<f32>,
    /// mm.
    #[prost(float, optional, tag = "20")]
    pub rainfall_24h: Option<f32>,
    /// Percent.
    #[prost(uint32, optional, tag = "21")]
    pub soil_moisture: Option<u32>,
    /// °C.
    #[prost(float, optional, tag = "22")]
    pub soil_temperature: Option<f32>,
}

/// `AirQualityMetrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AirQualityMetrics {
    /// PM1.0, µg/m³ (standard).
    #[prost(uint32, optional, tag = "1")]
    pub pm10_standard: Option<u32>,
    /// PM2.5, µg/m³ (standard).
    #[prost(uint32, optional, tag = "2")]
    pub pm25_standard: Option<u32>,
    /// PM10.0, µg/m³ (standard).
    #[prost(uint32, optional, tag = "3")]
    pub pm100_standard: Option<u32>,
    /// CO2, ppm.
    #[prost(uint32, optional, tag = "13")]
    pub co2: Option<u32>,
    /// °C at the CO2 sensor.
    #[prost(float, optional, tag = "14")]
    pub co2_temperature: Option<f32>,
    /// Percent at the CO2 sensor.
    #[prost(float, optional, tag = "15")]
    pub co2_humidity: Option<f32>,
    /// Formaldehyde, ppb.
    #[prost(float, optional, tag = "16")]
    pub form_formaldehyde: Option<f32>,
    /// Percent at the formaldehyde sensor.
    #[prost(float, optional, tag = "17")]
    pub form_humidity: Option<f32>,
    /// °C at the formaldehyde sensor.
    #[prost(float, optional, tag = "18")]
    pub form_temperature: Option<f32>,
}

/// `PowerMetrics` (channels 1 to 3).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PowerMetrics {
    /// V.
    #[prost(float, optional, tag = "1")]
    pub ch1_voltage: Option<f32>,
    /// mA.
    #[prost(float, optional, tag = "2")]
    pub ch1_current: Option<f32>,
    /// V.
    #[prost(float, optional, tag = "3")]
    pub ch2_voltage: Option<f32>,
    /// mA.
    #[prost(float, optional, tag = "4")]
    pub ch2_current: Option<f32>,
    /// V.
    #[prost(float, optional, tag = "5")]
    pub ch3_voltage: Option<f32>,
    /// mA.
    #[prost(float, optional, tag = "6")]
    pub ch3_current: Option<f32>,
}

/// `Waypoint`: the payload of `WAYPOINT_APP` (8).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Waypoint {
    /// Id, unique per node.
    #[prost(uint32, tag = "1")]
    pub id: u32,
    /// Latitude in 1e-7 degrees.
    #[prost(sfixed32, optional, tag = "2")]
    pub latitude_i: Option<i32>,
    /// Longitude in 1e-7 degrees.
    #[prost(sfixed32, optional, tag = "3")]
    pub longitude_i: Option<i32>,
    /// Expiry, seconds since the Unix epoch (0: never).
    #[prost(uint32, tag = "4")]
    pub expire: u32,
    /// The node allowed to change it (0: anyone).
    #[prost(uint32, tag = "5")]
    pub locked_to: u32,
    /// Name.
    #[prost(string, tag = "6")]
    pub name: String,
    /// Description.
    #[prost(string, tag = "7")]
    pub description: String,
}

/// `NeighborInfo`: the payload of `NEIGHBORINFO_APP` (71).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NeighborInfo {
    /// The reporting node.
    #[prost(uint32, tag = "1")]
    pub node_id: u32,
    /// The node that last sent this report.
    #[prost(uint32, tag = "2")]
    pub last_sent_by_id: u32,
    /// How often the node reports, seconds.
    #[prost(uint32, tag = "3")]
    pub node_broadcast_interval_secs: u32,
    /// The neighbours heard.
    #[prost(message, repeated, tag = "4")]
    pub neighbors: Vec<Neighbor>,
}

/// One neighbour of a [`NeighborInfo`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct Neighbor {
    /// Its node number.
    #[prost(uint32, tag = "1")]
    pub node_id: u32,
    /// SNR of its last packet, dB.
    #[prost(float, tag = "2")]
    pub snr: f32,
}

/// `RouteDiscovery`: the payload of `TRACEROUTE_APP` (70).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RouteDiscovery {
    /// Nodes on the way there.
    #[prost(fixed32, repeated, tag = "1")]
    pub route: Vec<u32>,
    /// SNR at each hop there, in quarter dB.
    #[prost(int32, repeated, tag = "2")]
    pub snr_towards: Vec<i32>,
    /// Nodes on the way back.
    #[prost(fixed32, repeated, tag = "3")]
    pub route_back: Vec<u32>,
    /// SNR at each hop back, in quarter dB.
    #[prost(int32, repeated, tag = "4")]
    pub snr_back: Vec<i32>,
}

/// `Paxcount`: the payload of `PAXCOUNTER_APP` (34).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Paxcount {
    /// Wi-Fi devices seen.
    #[prost(uint32, tag = "1")]
    pub wifi: u32,
    /// Bluetooth devices seen.
    #[prost(uint32, tag = "2")]
    pub ble: u32,
    /// Seconds since boot.
    #[prost(uint32, tag = "3")]
    pub uptime: u32,
}

/// `HardwareMessage`: the payload of `REMOTE_HARDWARE_APP` (2).
#[derive(Clone, PartialEq, prost::Message)]
pub struct HardwareMessage {
    /// `HardwareMessage.Type`: 3 `GPIOS_CHANGED`, 5 `READ_GPIOS_REPLY`, ...
    #[prost(int32, tag = "1")]
    pub kind: i32,
    /// The pins concerned.
    #[prost(uint64, tag = "2")]
    pub gpio_mask: u64,
    /// Their values.
    #[prost(uint64, tag = "3")]
    pub gpio_value: u64,
}

/// `MapReport`: the payload of `MAP_REPORT_APP` (73), published on
/// `<root>/2/map/`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MapReport {
    /// Long name.
    #[prost(string, tag = "1")]
    pub long_name: String,
    /// Short name.
    #[prost(string, tag = "2")]
    pub short_name: String,
    /// Device role.
    #[prost(int32, tag = "3")]
    pub role: i32,
    /// Hardware model.
    #[prost(int32, tag = "4")]
    pub hw_model: i32,
    /// Firmware version.
    #[prost(string, tag = "5")]
    pub firmware_version: String,
    /// LoRa region.
    #[prost(int32, tag = "6")]
    pub region: i32,
    /// Modem preset.
    #[prost(int32, tag = "7")]
    pub modem_preset: i32,
    /// Whether the default channel is configured.
    #[prost(bool, tag = "8")]
    pub has_default_channel: bool,
    /// Latitude in 1e-7 degrees.
    #[prost(sfixed32, tag = "9")]
    pub latitude_i: i32,
    /// Longitude in 1e-7 degrees.
    #[prost(sfixed32, tag = "10")]
    pub longitude_i: i32,
    /// Altitude, metres.
    #[prost(int32, tag = "11")]
    pub altitude: i32,
    /// Bits of position precision.
    #[prost(uint32, tag = "12")]
    pub position_precision: u32,
    /// Nodes heard in the last two hours.
    #[prost(uint32, tag = "13")]
    pub num_online_local_nodes: u32,
}
