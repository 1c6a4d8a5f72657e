// The record objects `decode` returns (built by the module from a tape, not
// from JSON text) are exactly what `JSON.parse` makes of the record's JSON
// line (`decodeRecord` / `decodeJson`, the gateway's and the command line's
// bytes): the same keys in the same order, the same values, -0 and all,
// for every Meshtastic vector, for envelopes with awkward numbers and text
// built with @meshtastic/protobufs, for damaged envelopes, and for every
// MeshCore vector and damaged packet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { create, toBinary } from '@bufbuild/protobuf';
import { Mesh, Mqtt, Portnums } from '@meshtastic/protobufs';
import { ctr } from '@noble/ciphers/aes.js';
import { WiresealError } from 'wireseal';
import { EnvelopeDecoder } from 'wireseal/meshtastic';
import * as mc from 'wireseal/meshcore';
import { channelNonce, filler, hex } from './support.mjs';

const load = (path) => JSON.parse(readFileSync(new URL(`../../vectors/${path}`, import.meta.url), 'utf8'));
const table = load('meshtastic/firmware-json.json');
const NOW = 1_700_000_000_000;

/** Meshtastic's channel hash: the XOR of the name's and the key's bytes. */
const channelHash = (name, psk) => [...new TextEncoder().encode(name), ...psk].reduce((h, b) => h ^ b, 0);

/** Two decoders set up alike: one gives objects, the other the JSON line. */
function pair() {
  return [0, 1].map(() => {
    const d = new EnvelopeDecoder();
    for (const spec of table.channels) {
      const cut = spec.indexOf('=');
      d.addChannel(spec.slice(0, cut), spec.slice(cut + 1));
    }
    d.setNode(table.our_node, hex(table.our_private_hex));
    return d;
  });
}

/** `got` is `JSON.parse(line)`: values (Object.is: -0 is not 0) and key order. */
function same(got, line, what) {
  const want = JSON.parse(line);
  assert.deepStrictEqual(got, want, what);
  assert.equal(JSON.stringify(got), JSON.stringify(want), what);
}

/** Both calls give a record, or both throw the same WiresealError. */
function agree(object, text, what) {
  let line;
  try {
    line = text();
  } catch (e) {
    assert.ok(e instanceof WiresealError, String(e));
    assert.throws(object, (o) => o instanceof WiresealError && o.kind === e.kind && o.message === e.message, what);
    return 0;
  }
  same(object(), line, what);
  return 1;
}

test('every Meshtastic vector: decode is the JSON line, parsed', () => {
  const [objects, lines] = pair();
  for (const x of table.vectors) {
    const env = hex(x.envelope);
    same(objects.decode(NOW, env), lines.decodeRecord(NOW, env), x.what);
  }
  // And in a batch, from the same state.
  const [batch, lines2] = pair();
  const out = batch.decodeBatch(NOW, table.vectors.map((x) => hex(x.envelope)));
  table.vectors.forEach((x, i) => same(out[i], lines2.decodeRecord(NOW, hex(x.envelope)), x.what));
});

test('awkward numbers and text: the values JSON.parse reads', () => {
  const psk = filler(32, 7);
  const name = 'Ünïcode "chan"\\';
  const [objects, lines] = [0, 1].map(() => {
    const d = new EnvelopeDecoder();
    d.addChannel(name, psk);
    return d;
  });
  const texts = ['\uFEFFleading BOM', 'emoji 🌲 and 日本', 'quote " backslash \\ tab \t nl \n', '\u0000\u001f\u007f', '__proto__', ''];
  const snrs = [0.1, -7.25, 1e-40, 3.4e38, -0, NaN, Infinity, -Infinity, 5.800000190734863];
  let n = 0;
  for (const [i, snr] of snrs.entries()) {
    for (const [j, text] of texts.entries()) {
      const id = 1000 + i * 100 + j;
      const from = 0x11223344 + i;
      const data = toBinary(Mesh.DataSchema, create(Mesh.DataSchema, {
        portnum: Portnums.PortNum.TEXT_MESSAGE_APP,
        payload: new TextEncoder().encode(text),
      }));
      const packet = create(Mesh.MeshPacketSchema, {
        from, to: 0xffffffff, id, channel: channelHash(name, psk), hopLimit: 3, hopStart: 7,
        rxSnr: snr, rxRssi: -(i * 17), rxTime: 0xfffffff0 + j, viaMqtt: j % 2 === 1,
        payloadVariant: { case: 'encrypted', value: ctr(psk, channelNonce(from, id)).encrypt(data) },
      });
      const env = toBinary(Mqtt.ServiceEnvelopeSchema, create(Mqtt.ServiceEnvelopeSchema, {
        packet, channelId: name, gatewayId: `!${text.slice(0, 8)}`,
      }));
      const got = objects.decode(NOW, env);
      same(got, lines.decodeRecord(NOW, env), `snr ${snr}, text ${JSON.stringify(text)}`);
      assert.equal(got.text, text);
      n += 1;
    }
  }
  assert.equal(n, snrs.length * texts.length);
});

test('damaged Meshtastic envelopes: the same record or the same error', () => {
  const [objects, lines] = pair();
  let records = 0;
  let k = 0;
  for (const x of table.vectors) {
    const env = hex(x.envelope);
    for (let at = 0; at < env.length; at += 3) {
      const bad = env.slice();
      bad[at] ^= 1 << (k++ % 8);
      records += agree(() => objects.decode(NOW, bad), () => lines.decodeRecord(NOW, bad), `${x.what} @${at}`);
    }
  }
  assert.ok(records > 100, `${records} damaged envelopes still decoded`);
});

test('every MeshCore vector and damaged packet: decode is the JSON line, parsed', () => {
  const keys = load('meshcore/driver_cases.json');
  let records = 0;
  for (const c of keys.packets) {
    const raw = hex(c.packet_hex);
    const make = () => new mc.Decoder({ channels: [mc.ChannelKey.public()] });
    const [objects, lines] = [make(), make()];
    for (let at = -1; at < raw.length; at++) {
      const bad = raw.slice();
      if (at >= 0) bad[at] ^= 0x5a;
      records += agree(() => objects.decode(bad), () => lines.decodeJson(bad), `${c.what} @${at}`);
    }
  }
  assert.ok(records > 50, `${records} MeshCore packets decoded`);
});
