// EnvelopeDecoder.decodeFirmwareJson: the JSON object the 2.7 firmware
// published on MQTT (MeshPacketSerializer), against the table the gateway's
// tests use (vectors/meshtastic/firmware-json.json: envelopes built with
// the `meshtastic` protobufs, each with the text the firmware's serializer
// wrote for it, from that code) and envelopes built here with
// @meshtastic/protobufs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { create, toBinary } from '@bufbuild/protobuf';
import { Mesh, Mqtt, Portnums } from '@meshtastic/protobufs';
import { WiresealError } from 'wireseal';
import { EnvelopeDecoder } from 'wireseal/meshtastic';

const table = JSON.parse(
  readFileSync(new URL('../../vectors/meshtastic/firmware-json.json', import.meta.url), 'utf8'),
);
const hex = (s) => new Uint8Array(Buffer.from(s, 'hex'));
const NOW = 1_700_000_000_000;
const kind = (k) => (e) => e instanceof WiresealError && e.kind === k;

/** A decoder with the table's channels and our node, as the gateway's test sets it up. */
function decoder(options) {
  const d = new EnvelopeDecoder(options);
  for (const spec of table.channels) {
    const cut = spec.indexOf('=');
    d.addChannel(spec.slice(0, cut), spec.slice(cut + 1));
  }
  d.setNode(table.our_node, hex(table.our_private_hex));
  return d;
}

/** The firmware's text with wireseal's own keys after its last key (the gateway test's rule). */
function expected(x) {
  const tail = Object.keys(x.extra)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(x.extra[k])}`);
  return `${x.json.slice(0, -1)},${tail.join(',')}}`;
}

const find = (what) => table.vectors.find((x) => x.what.startsWith(what));

test('every vector, byte for byte, in the order the gateway gets them', () => {
  const d = decoder();
  let published = 0;
  for (const x of table.vectors) {
    const got = d.decodeFirmwareJson(NOW, hex(x.envelope));
    if (x.json === null) {
      assert.equal(got, undefined, x.what);
    } else {
      assert.equal(got, expected(x), x.what);
      published += 1;
    }
  }
  assert.equal(published, 28);
});

test('the text parses to the firmware object plus the wireseal keys', () => {
  const d = decoder();
  for (const x of table.vectors.filter((v) => v.json !== null)) {
    const got = JSON.parse(d.decodeFirmwareJson(NOW, hex(x.envelope)));
    assert.deepEqual(got, { ...JSON.parse(x.json), ...x.extra }, x.what);
  }
});

test('a traceroute names only the nodes this decoder has seen', () => {
  const route = find('traceroute response');
  const fresh = decoder();
  const unknown = JSON.parse(fresh.decodeFirmwareJson(NOW, hex(route.envelope)));
  assert.deepEqual(unknown.payload.route, ['Unknown', 'Unknown', 'Unknown']);
  // Once the NodeInfo of !aabbccdd has been decoded, its long name is used.
  fresh.decodeFirmwareJson(NOW, hex(find('nodeinfo').envelope));
  const named = JSON.parse(fresh.decodeFirmwareJson(NOW, hex(route.envelope)));
  assert.deepEqual(named.payload.route, JSON.parse(route.json).payload.route);
  // `decode` (the record) is another view and leaves the names alone.
  const other = decoder();
  other.decode(NOW, hex(find('nodeinfo').envelope));
  const still = JSON.parse(other.decodeFirmwareJson(NOW, hex(route.envelope)));
  assert.deepEqual(still.payload.route, ['Unknown', 'Unknown', 'Unknown']);
});

/** A ServiceEnvelope built with the Meshtastic protobufs (an independent encoder). */
function envelope(packet, gatewayId = '!0badcafe', channelId = 'LongFast') {
  return toBinary(
    Mqtt.ServiceEnvelopeSchema,
    create(Mqtt.ServiceEnvelopeSchema, {
      packet: create(Mesh.MeshPacketSchema, packet),
      channelId,
      gatewayId,
    }),
  );
}

function textPacket(text, extra = {}) {
  return {
    from: 0x1234,
    to: 0xffffffff,
    id: 99,
    rxTime: 1_700_000_001,
    rxRssi: -90,
    rxSnr: 6.25,
    hopStart: 3,
    hopLimit: 1,
    payloadVariant: {
      case: 'decoded',
      value: create(Mesh.DataSchema, {
        portnum: Portnums.PortNum.TEXT_MESSAGE_APP,
        payload: new TextEncoder().encode(text),
      }),
    },
    ...extra,
  };
}

test('an envelope built with @meshtastic/protobufs: the firmware keys, in byte order', () => {
  const d = decoder();
  const got = d.decodeFirmwareJson(NOW, envelope(textPacket('from the protobufs peer')));
  // Written out from the firmware's rules: every number a double printed
  // with %.15g, keys in byte order, hops_away = hop_start - hop_limit.
  assert.equal(
    got,
    '{"channel":0,"from":4660,"hop_start":3,"hops_away":2,"id":99,' +
      '"payload":{"text":"from the protobufs peer"},"rssi":-90,"sender":"!0badcafe",' +
      '"snr":6.25,"timestamp":1700000001,"to":4294967295,"type":"text",' +
      '"wireseal_decryption":"plain","wireseal_signature":"absent"}',
  );
});

test('a gateway id that is not a node id: the library label as sender', () => {
  const d = decoder();
  const got = JSON.parse(d.decodeFirmwareJson(NOW, envelope(textPacket('x'), 'gateway/../1')));
  assert.equal(got.sender, '_unusable');
});

test('packets the firmware never published: undefined', () => {
  const d = decoder();
  assert.equal(d.decodeFirmwareJson(NOW, envelope(textPacket('relayed', { viaMqtt: true }))), undefined);
  assert.equal(d.decodeFirmwareJson(NOW, hex(find('channel packet we cannot').envelope)), undefined);
});

test('a channel packet whose hash was changed is not decrypted: undefined, and the record says why', () => {
  const x = find('channel packet decrypted with the first channel');
  const bytes = hex(x.envelope);
  // The packet's `channel` (field 3: tag 0x18) is LongFast's hash, 8.
  const at = Buffer.from(bytes).indexOf(Buffer.from([0x18, 0x08, 0x2a]));
  assert.ok(at > 0);
  bytes[at + 1] = 0x09;
  const d = decoder();
  assert.equal(d.decodeFirmwareJson(NOW, bytes), undefined);
  const record = d.decode(NOW, bytes);
  assert.equal(typeof record.error, 'string');
  const clean = decoder().decodeFirmwareJson(NOW, hex(x.envelope));
  assert.equal(JSON.parse(clean).payload.text, 'on the default channel');
});

test('truncated, oversized and malformed envelopes throw with the kind', () => {
  const d = decoder();
  const x = hex(find('text, the firmware').envelope);
  // A protobuf cut short does not parse: the library calls it malformed.
  for (const n of [1, 2, 20, x.length - 1]) {
    assert.throws(() => d.decodeFirmwareJson(NOW, x.subarray(0, n)), kind('malformed'), `${n} bytes`);
  }
  assert.throws(() => d.decodeFirmwareJson(NOW, new Uint8Array(0)), kind('malformed'));
  // An MQTT envelope holds at most 1024 bytes.
  const big = new Uint8Array(1025);
  big.set(x);
  assert.throws(() => d.decodeFirmwareJson(NOW, big), kind('too_long'));
  assert.throws(() => d.decodeFirmwareJson(NOW, new Uint8Array(1 << 20).fill(0x0a)), kind('too_long'));
  assert.throws(() => d.decodeFirmwareJson(NOW, new Uint8Array([0xff, 0xff, 0xff])), kind('malformed'));
});

test('wrong argument types throw invalid_input, never a trap', () => {
  const d = decoder();
  const x = hex(find('text, the firmware').envelope);
  for (const bad of ['0a3f', 42, [10, 63], undefined, null, {}]) {
    assert.throws(() => d.decodeFirmwareJson(NOW, bad), kind('invalid_input'), String(bad));
  }
  for (const now of [-1, 1.5, Number.NaN, 2 ** 54, 'x']) {
    assert.throws(() => d.decodeFirmwareJson(now, x), kind('invalid_input'), String(now));
  }
  // The decoder still works after the errors.
  assert.equal(JSON.parse(d.decodeFirmwareJson(NOW, x)).payload.text, 'Hello Meshtastic!');
});
