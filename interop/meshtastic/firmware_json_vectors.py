#!/usr/bin/env python3
"""Vectors for the gateway's `--firmware-json`: MQTT envelopes built with the
`meshtastic` PyPI protobufs (channel packets encrypted with `cryptography`,
a PKC direct message as feed.py builds it), each with the JSON text the 2.7
firmware's serializer (src/serialization/MeshPacketSerializer.cpp at
v2.7.26, on its SimpleJSON library) published for it, written here from that
code's rules: keys in byte order, no spaces, numbers as %.15g of a double
(floats widened), '/' escaped, control characters as \\u00xx, a key present
only where the serializer sets it. Nothing here comes from wireseal.

  firmware_json_vectors.py > vectors/meshtastic/firmware-json.json

Each vector: {what, topic, envelope (hex), json_topic (null: nothing is
published), json (the firmware's text), extra (the fields wireseal adds
under names the firmware never used, appended after the firmware's)}.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from feed import ctr, chash, pkc, pub  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey  # noqa: E402
from meshtastic.protobuf import mesh_pb2, mqtt_pb2, paxcount_pb2, remote_hardware_pb2, telemetry_pb2  # noqa: E402

GW = "!12345678"
ROOT = "msh/US"
OPS_PSK = bytes(range(3, 19))
BROADCAST = 0xFFFFFFFF


def g15(x):
    """A protobuf float widened to double, printed with %.15g."""
    return "%.15g" % struct.unpack("f", struct.pack("f", x))[0]


def envelope(p, channel_id="LongFast", gw=GW):
    e = mqtt_pb2.ServiceEnvelope()
    e.packet.CopyFrom(p)
    e.channel_id, e.gateway_id = channel_id, gw
    return e.SerializeToString()


def packet(frm, to, pid, port, payload, rx_time=1700000000, snr=0.0, rssi=0, hop_start=0, hop_limit=0, channel=0, **data):
    p = mesh_pb2.MeshPacket()
    setattr(p, "from", frm)
    p.to, p.id, p.rx_time, p.rx_snr, p.rx_rssi = to, pid, rx_time, snr, rssi
    p.hop_start, p.hop_limit, p.channel = hop_start, hop_limit, channel
    p.decoded.portnum = port
    p.decoded.payload = payload
    for k, v in data.items():
        setattr(p.decoded, k, v)
    return p


def encrypted(name, psk, frm, pid, port, payload, **kw):
    """A channel packet encrypted under (name, psk)."""
    d = mesh_pb2.Data()
    d.portnum, d.payload = port, payload
    p = mesh_pb2.MeshPacket()
    setattr(p, "from", frm)
    p.to, p.id, p.rx_time = BROADCAST, pid, kw.get("rx_time", 1700000000)
    p.hop_start, p.hop_limit = kw.get("hop_start", 3), kw.get("hop_limit", 1)
    p.rx_snr, p.rx_rssi = kw.get("snr", 0.0), kw.get("rssi", 0)
    p.channel = chash(name, psk)
    p.encrypted = ctr(psk, frm, pid, d.SerializeToString())
    return p


VECTORS = []


def add(what, env, topic, json_topic, text, extra):
    VECTORS.append({"what": what, "topic": topic, "envelope": env.hex(), "json_topic": json_topic,
                    "json": text, "extra": extra})


def jt(channel="LongFast"):
    return f"{ROOT}/2/json/{channel}/{GW}"


ET = "msh/US/2/e/LongFast/" + GW
PLAIN = {"wireseal_decryption": "plain", "wireseal_signature": "absent"}
CHAN = {"wireseal_decryption": "channel", "wireseal_signature": "absent"}


def main():
    our = X25519PrivateKey.generate()
    raw = bytearray(our.private_bytes_raw())
    raw[0] &= 248
    raw[31] &= 127
    raw[31] |= 64
    our = X25519PrivateKey.from_private_bytes(bytes(raw))
    our_node = 0x0A0B0C0D

    # The unit tests' fixture (test_helpers.h): text with rssi, snr and hops.
    p = packet(0x11223344, 0x55667788, 0x9999, 1, b"Hello Meshtastic!", rx_time=1609459200, snr=10.5, rssi=-85, hop_start=3, hop_limit=3)
    add("text, the firmware's unit-test fixture", envelope(p), ET, jt(),
        '{"channel":0,"from":287454020,"hop_start":3,"hops_away":0,"id":39321,"payload":{"text":"Hello Meshtastic!"},"rssi":-85,"sender":"!12345678","snr":10.5,"timestamp":1609459200,"to":1432778632,"type":"text"}', PLAIN)
    p = packet(0x1001, BROADCAST, 2, 1, b'{"b":1,"a":[true,null,"x/y"],"c":2.5}')
    add("text that is JSON: the value itself, keys sorted", envelope(p), ET, jt(),
        '{"channel":0,"from":4097,"id":2,"payload":{"a":[true,null,"x\\/y"],"b":1,"c":2.5},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"text"}', PLAIN)
    p = packet(0x1001, BROADCAST, 3, 1, 'say "hi"/\\ \n\tGrüße 👋\x01\x7f'.encode() + b"\0after nul")
    add("text with quotes, slashes, controls, UTF-8 and a NUL", envelope(p), ET, jt(),
        '{"channel":0,"from":4097,"id":3,"payload":{"text":"say \\"hi\\"\\/\\\\ \\n\\tGrüße 👋\\u0001\\u007f"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"text"}', PLAIN)
    pos = mesh_pb2.Position()
    pos.latitude_i, pos.longitude_i, pos.altitude, pos.time = 523456789, -43210987, 12, 1700000001
    pos.sats_in_view, pos.PDOP, pos.precision_bits, pos.timestamp = 7, 150, 32, 0
    p = packet(0x1002, BROADCAST, 4, 3, pos.SerializeToString(), hop_start=5, hop_limit=2)
    add("position: lat/lon always, the rest only when not 0", envelope(p), ET, jt(),
        '{"channel":0,"from":4098,"hop_start":5,"hops_away":3,"id":4,"payload":{"PDOP":150,"altitude":12,"latitude_i":523456789,"longitude_i":-43210987,"precision_bits":32,"sats_in_view":7,"time":1700000001},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"position"}', PLAIN)
    u = mesh_pb2.User()
    u.id, u.long_name, u.short_name, u.hw_model, u.role = "!aabbccdd", "Base Camp", "BC", 9, 2
    u.public_key = b"\x07" * 32
    p = packet(0xAABBCCDD, BROADCAST, 5, 4, u.SerializeToString())
    add("nodeinfo", envelope(p), ET, jt(),
        '{"channel":0,"from":2864434397,"id":5,"payload":{"hardware":9,"id":"!aabbccdd","longname":"Base Camp","role":2,"shortname":"BC"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"nodeinfo"}',
        dict(PLAIN, wireseal_identity="legacy"))
    u = mesh_pb2.User()
    u.id, u.long_name, u.short_name = "!00001003", "L" * 40, "LONG"
    p = packet(0x1003, BROADCAST, 6, 4, u.SerializeToString())
    add("nodeinfo whose long name overflows the firmware's field: no payload", envelope(p), ET, jt(),
        '{"channel":0,"from":4099,"id":6,"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"nodeinfo"}',
        dict(PLAIN, wireseal_identity="legacy"))
    t = telemetry_pb2.Telemetry()
    t.time = 1700000002
    dm = t.device_metrics
    dm.battery_level, dm.voltage, dm.channel_utilization, dm.air_util_tx, dm.uptime_seconds = 87, 3.72, 15.56, 8.23, 3600
    p = packet(0x1004, BROADCAST, 7, 67, t.SerializeToString())
    add("telemetry, device metrics", envelope(p), ET, jt(),
        '{"channel":0,"from":4100,"id":7,"payload":{"air_util_tx":%s,"battery_level":87,"channel_utilization":%s,"uptime_seconds":3600,"voltage":%s},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}'
        % (g15(8.23), g15(15.56), g15(3.72)), PLAIN)
    t = telemetry_pb2.Telemetry()
    t.device_metrics.uptime_seconds = 5
    p = packet(0x1004, BROADCAST, 8, 67, t.SerializeToString())
    add("telemetry, device metrics without a battery: voltage and the rest still written", envelope(p), ET, jt(),
        '{"channel":0,"from":4100,"id":8,"payload":{"air_util_tx":0,"channel_utilization":0,"uptime_seconds":5,"voltage":0},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}', PLAIN)
    t = telemetry_pb2.Telemetry()
    em = t.environment_metrics
    em.temperature, em.relative_humidity, em.barometric_pressure, em.iaq = 23.56, 45.0, 1013.27, 51
    p = packet(0x1005, BROADCAST, 9, 67, t.SerializeToString())
    add("telemetry, environment metrics: only the fields set", envelope(p), ET, jt(),
        '{"channel":0,"from":4101,"id":9,"payload":{"barometric_pressure":%s,"iaq":51,"relative_humidity":45,"temperature":%s},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}'
        % (g15(1013.27), g15(23.56)), PLAIN)
    t = telemetry_pb2.Telemetry()
    aq = t.air_quality_metrics
    aq.pm25_standard, aq.co2, aq.pm10_environmental = 12, 415, 3
    p = packet(0x1005, BROADCAST, 10, 67, t.SerializeToString())
    add("telemetry, air quality (2.7.20 keys: no *_e)", envelope(p), ET, jt(),
        '{"channel":0,"from":4101,"id":10,"payload":{"co2":415,"pm25":12},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}', PLAIN)
    t = telemetry_pb2.Telemetry()
    pm = t.power_metrics
    pm.ch1_voltage, pm.ch1_current, pm.ch4_voltage = 5.8, 100.0, 1.0
    p = packet(0x1005, BROADCAST, 11, 67, t.SerializeToString())
    add("telemetry, power metrics: channels 1 to 3", envelope(p), ET, jt(),
        '{"channel":0,"from":4101,"id":11,"payload":{"current_ch1":100,"voltage_ch1":%s},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}' % g15(5.8), PLAIN)
    t = telemetry_pb2.Telemetry()
    t.local_stats.uptime_seconds = 9
    p = packet(0x1005, BROADCAST, 12, 67, t.SerializeToString())
    add("telemetry, another variant: an empty payload", envelope(p), ET, jt(),
        '{"channel":0,"from":4101,"id":12,"payload":{},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}', PLAIN)
    p = packet(0x1005, BROADCAST, 13, 67, b"\xff\xff\xff")
    add("telemetry that does not decode: no payload", envelope(p), ET, jt(),
        '{"channel":0,"from":4101,"id":13,"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"telemetry"}', PLAIN)
    w = mesh_pb2.Waypoint()
    w.id, w.name, w.description, w.latitude_i, w.longitude_i, w.icon = 7, "Camp", "Tents/food", 1, -2, 0x1F3D5
    p = packet(0x1006, BROADCAST, 14, 8, w.SerializeToString())
    add("waypoint: every key, no icon", envelope(p), ET, jt(),
        '{"channel":0,"from":4102,"id":14,"payload":{"description":"Tents\\/food","expire":0,"id":7,"latitude_i":1,"locked_to":0,"longitude_i":-2,"name":"Camp"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"waypoint"}', PLAIN)
    n = mesh_pb2.NeighborInfo()
    n.node_id, n.last_sent_by_id, n.node_broadcast_interval_secs = 0x1007, 0x1008, 900
    for nid, snr in [(1, 7.75), (2, -3.5)]:
        x = n.neighbors.add()
        x.node_id, x.snr = nid, snr
    p = packet(0x1007, BROADCAST, 15, 71, n.SerializeToString())
    add("neighborinfo: neighbour snr truncated to an int", envelope(p), ET, jt(),
        '{"channel":0,"from":4103,"id":15,"payload":{"last_sent_by_id":4104,"neighbors":[{"node_id":1,"snr":7},{"node_id":2,"snr":-3}],"neighbors_count":2,"node_broadcast_interval_secs":900,"node_id":4103},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"neighborinfo"}', PLAIN)
    r = mesh_pb2.RouteDiscovery()
    r.route.append(0xAABBCCDD)
    r.snr_towards.extend([-9, 24])
    r.snr_back.append(10)
    p = packet(0x1008, 0x1009, 16, 70, r.SerializeToString(), request_id=77)
    add("traceroute response: names from the nodeinfo seen (Unknown otherwise)", envelope(p), ET, jt(),
        '{"channel":0,"from":4104,"id":16,"payload":{"route":["Unknown","Base Camp","Unknown"],"route_back":["Unknown","Unknown"],"snr_back":[2.5],"snr_towards":[-2.25,6]},"sender":"!12345678","timestamp":1700000000,"to":4105,"type":"traceroute"}', PLAIN)
    p = packet(0x1008, 0x1009, 17, 70, r.SerializeToString())
    add("traceroute request: no type, no payload", envelope(p), ET, jt(),
        '{"channel":0,"from":4104,"id":17,"sender":"!12345678","timestamp":1700000000,"to":4105,"type":""}', PLAIN)
    p = packet(0x100A, BROADCAST, 18, 10, b"Motion\0junk")
    add("detection sensor: a C string", envelope(p), ET, jt(),
        '{"channel":0,"from":4106,"id":18,"payload":{"text":"Motion"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"detection"}', PLAIN)
    px = paxcount_pb2.Paxcount()
    px.wifi, px.ble, px.uptime = 3, 9, 100
    p = packet(0x100B, BROADCAST, 19, 34, px.SerializeToString())
    add("paxcounter (the ESP32 builds' case)", envelope(p), ET, jt(),
        '{"channel":0,"from":4107,"id":19,"payload":{"ble_count":9,"uptime":100,"wifi_count":3},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"paxcounter"}', PLAIN)
    h = remote_hardware_pb2.HardwareMessage()
    h.type, h.gpio_value, h.gpio_mask = 3, (1 << 32) + 5, 0xFF
    p = packet(0x100C, BROADCAST, 20, 2, h.SerializeToString())
    add("remote hardware, gpios changed: the value's low 32 bits", envelope(p), ET, jt(),
        '{"channel":0,"from":4108,"id":20,"payload":{"gpio_value":5},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"gpios_changed"}', PLAIN)
    h.type = 5
    p = packet(0x100C, BROADCAST, 21, 2, h.SerializeToString())
    add("remote hardware, read reply", envelope(p), ET, jt(),
        '{"channel":0,"from":4108,"id":21,"payload":{"gpio_mask":255,"gpio_value":5},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"gpios_read_reply"}', PLAIN)
    h.type = 4
    p = packet(0x100C, BROADCAST, 22, 2, h.SerializeToString())
    add("remote hardware, another type: no type", envelope(p), ET, jt(),
        '{"channel":0,"from":4108,"id":22,"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":""}', PLAIN)
    p = packet(0x100D, BROADCAST, 23, 5, b"\x18\x00")
    add("routing: a port the serializer does not handle", envelope(p), ET, jt(),
        '{"channel":0,"from":4109,"id":23,"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":""}', PLAIN)
    p = packet(0x100D, BROADCAST, 24, 1, b"hop limit above start", hop_start=2, hop_limit=3)
    add("hops: a hop limit above the start omits both", envelope(p), ET, jt(),
        '{"channel":0,"from":4109,"id":24,"payload":{"text":"hop limit above start"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"text"}', PLAIN)
    p = packet(0x100D, BROADCAST, 25, 1, b"bitfield", bitfield=1)
    add("hops: no hop start but a bitfield gives 0 and 0 (2.7.17)", envelope(p), ET, jt(),
        '{"channel":0,"from":4109,"hop_start":0,"hops_away":0,"id":25,"payload":{"text":"bitfield"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"text"}', PLAIN)
    p = encrypted("LongFast", b"\x01", 0x100E, 26, 1, b"on the default channel", snr=-7.25, rssi=-101)
    add("channel packet decrypted with the first channel: index 0", envelope(p), ET, jt(),
        '{"channel":0,"from":4110,"hop_start":3,"hops_away":2,"id":26,"payload":{"text":"on the default channel"},"rssi":-101,"sender":"!12345678","snr":-7.25,"timestamp":1700000000,"to":4294967295,"type":"text"}', CHAN)
    p = encrypted("Ops", OPS_PSK, 0x100E, 27, 1, b"on ops")
    add("channel packet decrypted with the second channel: index 1", envelope(p, "Ops"), "msh/US/2/e/Ops/" + GW, jt("Ops"),
        '{"channel":1,"from":4110,"hop_start":3,"hops_away":2,"id":27,"payload":{"text":"on ops"},"sender":"!12345678","timestamp":1700000000,"to":4294967295,"type":"text"}', CHAN)
    sender = X25519PrivateKey.generate()
    d = mesh_pb2.Data()
    d.portnum, d.payload = 1, b"a direct message"
    p = mesh_pb2.MeshPacket()
    setattr(p, "from", 0x100F)
    p.to, p.id, p.channel, p.pki_encrypted, p.rx_time = our_node, 28, 0, True, 1700000000
    p.public_key = pub(sender)
    p.encrypted = pkc(sender, pub(our), 0x100F, 28, d.SerializeToString())
    add("PKC direct message we decrypt: channel 0, on the PKI topic", envelope(p, "PKI"), "msh/US/2/e/PKI/" + GW, jt("PKI"),
        '{"channel":0,"from":4111,"id":28,"payload":{"text":"a direct message"},"sender":"!12345678","timestamp":1700000000,"to":168496141,"type":"text"}',
        {"wireseal_decryption": "pkc", "wireseal_our_node": "!0a0b0c0d", "wireseal_signature": "absent"})
    p = encrypted("Secret", b"\x07" * 16, 0x1010, 29, 1, b"nobody here has this key")
    add("channel packet we cannot decrypt: nothing published", envelope(p, "Secret"), "msh/US/2/e/Secret/" + GW, None, None, None)
    p = packet(0x1011, BROADCAST, 30, 1, b"came from MQTT")
    p.via_mqtt = True
    add("a packet that came through MQTT: nothing published", envelope(p), ET, None, None, None)
    print(json.dumps({
        "source": "interop/meshtastic/firmware_json_vectors.py; meshtastic/firmware v2.7.26 MeshPacketSerializer.cpp",
        "gateway": GW,
        "root": ROOT,
        "channels": ["LongFast=AQ==", "Ops=hex:" + OPS_PSK.hex()],
        "our_node": our_node,
        "our_private_hex": bytes(raw).hex(),
        "vectors": VECTORS,
    }, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
