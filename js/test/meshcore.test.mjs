// wireseal/meshcore against the published MeshCore vectors
// (vectors/meshcore/: every real packet field by field, the firmware's
// builders byte for byte, every malformed packet with the firmware's reason,
// every 2-byte MAC collision left undecrypted), the driver table the library,
// the command line and Python share (the very record `wireseal meshcore
// decode --json` prints), and two independent peers: the npm decoder
// @michaelhart/meshcore-decoder 0.3.0 (group texts, adverts, orlp Ed25519)
// and @noble/curves (RFC 8032 Ed25519).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ed25519 } from '@noble/curves/ed25519.js';
import { WiresealError, meshcore as mcIndex } from 'wireseal';
import * as mc from 'wireseal/meshcore';

const require = createRequire(import.meta.url);
const { MeshCorePacketDecoder, Utils: PeerUtils } = require('@michaelhart/meshcore-decoder');

const load = (name) =>
  JSON.parse(readFileSync(new URL(`../../vectors/meshcore/${name}`, import.meta.url), 'utf8'));
const V = load('vectors.json');
const M = load('malformed.json');
const C = load('mac_collisions.json');
const T = load('driver_cases.json');

const hx = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const hex = (b) => Buffer.from(b).toString('hex');
const utf8 = (s) => new TextEncoder().encode(s);

const isErr = (kind, reason) => (e) => {
  assert.ok(e instanceof WiresealError, `not a WiresealError: ${e}`);
  assert.equal(e.kind, kind, e.message);
  if (reason !== undefined) assert.equal(e.reason, reason, e.message);
  return true;
};
const invalidInput = isErr('invalid_input');

// The library's kind for each of the firmware's drop reasons
// (crates/wireseal/src/meshcore/error.rs).
const KIND_OF_REASON = {
  version: 'unsupported',
  reserved_hash_size: 'malformed',
  path_too_long: 'too_long',
  payload_too_long: 'too_long',
  truncated: 'truncated',
  payload_too_short: 'truncated',
  too_long: 'too_long',
};
const NODE_TYPES = ['none', 'chat', 'repeater', 'room', 'sensor'];

const TEST_CLIENT_PRV = T.test_client.private_hex;
const TEST_CLIENT_PUB = T.test_client.public_hex;
const RFC8032_SEED = T.rfc8032_seed.seed_hex;
const RFC8032_PUB = T.rfc8032_seed.public_hex;

const channelOf = (name) => mc.ChannelKey.fromBytes(hx(V.keys.channels[name].key));
const nodeOf = (name) => mc.LocalIdentity.fromHex(V.keys.nodes[name].prv);

// ---------------------------------------------------------------- keys

test('the module is reachable from the index and the constants are the firmware\'s', () => {
  assert.equal(mcIndex.Decoder, mc.Decoder);
  assert.equal(Buffer.from(mc.PUBLIC_CHANNEL_KEY).toString('base64'), V.keys.channels.public.base64);
  assert.equal(mc.ChannelKey.fromBytes(mc.PUBLIC_CHANNEL_KEY).hash, V.keys.channels.public.hash);
  assert.equal(mc.MAX_TRANS_UNIT, 255);
  assert.equal(mc.MAX_PACKET_PAYLOAD, 184);
  assert.equal(mc.MAX_PATH_SIZE, 64);
  assert.equal(mc.MAX_TEXT_LEN, 160);
  // The limits as the library enforces them.
  const ch = mc.ChannelKey.public();
  const at = 'A: ' + 'x'.repeat(mc.MAX_TEXT_LEN - 3);
  assert.equal(new mc.Decoder({ channels: [ch] }).decode(mc.encryptGroup(ch, 1, at)).grp_txt.text, at);
  assert.throws(() => mc.encryptGroup(ch, 1, at + 'x'), isErr('invalid_input', 'invalid_input'));
  const payload = new Uint8Array(mc.MAX_PACKET_PAYLOAD).fill(0x11);
  assert.equal(mc.parse(Uint8Array.of(0x15, 0x00, ...payload)).payload.length, mc.MAX_PACKET_PAYLOAD);
  assert.throws(() => mc.parse(Uint8Array.of(0x15, 0x00, ...payload, 0x11)),
    isErr('too_long', 'payload_too_long'));
  // 32 hops of 2 bytes: the whole 64-byte path; 33 are too many.
  const path = (hops) => Uint8Array.of(0x15, 0x40 | hops, ...new Uint8Array(2 * hops).fill(0xab), ...payload.slice(0, 21));
  assert.equal(mc.parse(path(32)).path.length, 32);
  assert.throws(() => mc.parse(path(33)), isErr('too_long', 'path_too_long'));
});

test('channel keys: public, hashtag, 16 and 32 bytes, base64', () => {
  const pub = mc.ChannelKey.public();
  assert.equal(pub.hash, 0x11);
  assert.equal(pub.keyLen, 16);
  assert.equal(mc.ChannelKey.fromBase64('izOH6cXN6mrJ5e26oRXNcg==').hash, 0x11);
  assert.equal(mc.ChannelKey.fromBase64('izOH6cXN6mrJ5e26oRXNcg').hash, 0x11);
  for (const [name, c] of Object.entries(V.keys.channels)) {
    assert.equal(channelOf(name).hash, c.hash, name);
    if (name.startsWith('#')) {
      assert.equal(mc.ChannelKey.hashtag(name).hash, c.hash, name);
      assert.equal(mc.ChannelKey.hashtag(name.slice(1)).hash, c.hash, name);
    }
  }
  const k32 = mc.ChannelKey.fromBytes(new Uint8Array(32));
  assert.equal(k32.keyLen, 32);
  for (const n of [0, 15, 17, 31, 33]) {
    assert.throws(() => mc.ChannelKey.fromBytes(new Uint8Array(n)), isErr('invalid_key', 'invalid_key'));
  }
  assert.throws(() => mc.ChannelKey.fromBase64('secret!!'), (e) => {
    isErr('invalid_key', 'invalid_key')(e);
    assert.ok(!e.message.includes('secret'));
    return true;
  });
  for (const bad of ['', 'a b', '#', 'tab\there']) {
    assert.throws(() => mc.ChannelKey.hashtag(bad), isErr('invalid_input', 'invalid_input'), bad);
  }
  assert.equal(String(pub), 'ChannelKey(hash=0x11, <secret>)');
});

test('identities: the firmware\'s test client, RFC 8032 seeds, signatures against two peers', async () => {
  const tc = mc.LocalIdentity.fromHex(TEST_CLIENT_PRV);
  assert.equal(hex(tc.publicKey), TEST_CLIENT_PUB);
  assert.equal(hex(tc.privateKey()), TEST_CLIENT_PRV);
  assert.equal(hex(mc.LocalIdentity.fromPrivateKey(hx(TEST_CLIENT_PRV)).publicKey), TEST_CLIENT_PUB);
  for (const [name, n] of Object.entries(V.keys.nodes)) {
    assert.equal(hex(nodeOf(name).publicKey), n.pub, name);
    // The npm peer's orlp Ed25519 derives the same key.
    assert.equal((await PeerUtils.derivePublicKey(n.prv)).toLowerCase(), n.pub, name);
  }
  const seed = mc.LocalIdentity.fromSeed(hx(RFC8032_SEED));
  assert.equal(hex(seed.publicKey), RFC8032_PUB);
  assert.equal(hex(mc.LocalIdentity.fromHex(RFC8032_SEED).publicKey), RFC8032_PUB);
  // RFC 8032 test 1: the signature of the empty message.
  assert.equal(
    hex(seed.sign(new Uint8Array(0))),
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155'
      + '5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  );
  // Against @noble/curves (seeds) and the npm peer's orlp signing (64-byte keys).
  for (const msg of [new Uint8Array(0), utf8('hello'), new Uint8Array(200).fill(7)]) {
    assert.deepEqual(seed.sign(msg), ed25519.sign(msg, hx(RFC8032_SEED)));
    const sig = tc.sign(msg);
    assert.equal(hex(sig), (await PeerUtils.sign(hex(msg), TEST_CLIENT_PRV, TEST_CLIENT_PUB)).toLowerCase());
    assert.ok(ed25519.verify(sig, msg, tc.publicKey));
  }
  assert.deepEqual(mc.LocalIdentity.fromPrivateKey(seed.privateKey()).sign(utf8('x')), seed.sign(utf8('x')));
  const fresh = mc.LocalIdentity.generate();
  assert.equal(fresh.publicKey.length, 32);
  assert.ok(fresh.publicKey[0] !== 0 && fresh.publicKey[0] !== 0xff);
  assert.equal(fresh.privateKey().length, 64);
  assert.ok(ed25519.verify(fresh.sign(utf8('m')), utf8('m'), fresh.publicKey));
  assert.notDeepEqual(mc.LocalIdentity.generate().publicKey, fresh.publicKey);
  assert.equal(String(tc), `LocalIdentity(publicKey=${TEST_CLIENT_PUB})`);
  assert.ok(!String(tc).includes(TEST_CLIENT_PRV.slice(0, 16)));

  const unclamped = hx(TEST_CLIENT_PRV);
  unclamped[0] |= 1;
  assert.throws(() => mc.LocalIdentity.fromPrivateKey(unclamped), (e) => {
    isErr('invalid_key', 'invalid_key')(e);
    assert.match(e.message, /not clamped/);
    return true;
  });
  for (const bad of ['', '00', 'zz'.repeat(32), '0'.repeat(100)]) {
    assert.throws(() => mc.LocalIdentity.fromHex(bad), isErr('invalid_key', 'invalid_key'), bad);
  }
  for (const n of [0, 31, 33, 64]) {
    assert.throws(() => mc.LocalIdentity.fromSeed(new Uint8Array(n)), isErr('invalid_key', 'invalid_key'));
  }
  for (const n of [0, 32, 63, 65]) {
    assert.throws(() => mc.LocalIdentity.fromPrivateKey(new Uint8Array(n)), isErr('invalid_key', 'invalid_key'));
  }
});

// ------------------------------------------------------ vectors.json

/** A decoder with every channel and node of vectors.json, each node both ours and a known peer. */
function vectorsDecoder() {
  const names = Object.keys(V.keys.channels);
  const nodes = Object.keys(V.keys.nodes).map(nodeOf);
  const d = new mc.Decoder({
    channels: names.map(channelOf),
    identities: nodes,
    peers: nodes.map((n) => n.publicKey),
  });
  return { d, names };
}

test('every published packet decodes to its expected fields', () => {
  const { d, names } = vectorsDecoder();
  let opened = 0;
  for (const p of V.packets) {
    const e = p.expect;
    const raw = hx(p.hex);
    const r = d.decode(raw);
    const what = p.name;
    assert.equal(r.route_type, e.route.toLowerCase(), what);
    assert.equal(r.payload_type, e.type.toLowerCase(), what);
    assert.equal(r.hash, e.packet_hash, what);
    assert.equal(hex(mc.packetHash(raw)), e.packet_hash, what);
    assert.equal(r.payload_len, e.payload_len, what);
    assert.deepEqual(r.path, e.path, what);
    assert.deepEqual(r.transport_codes, e.transport_codes, what);
    const h = mc.parse(raw);
    assert.equal(h.pathHashSize, e.path_hash_size, what);
    assert.equal(h.path.length, e.path_hops, what);
    assert.equal(hex(h.payload), e.payload, what);
    assert.equal(h.routeType, r.route_type, what);
    assert.equal(h.payloadType, r.payload_type, what);
    if (e.advert) {
      const a = r.advert;
      assert.equal(a.public_key, e.advert.pub, what);
      assert.equal(a.timestamp, e.advert.timestamp, what);
      assert.equal(a.signature, e.advert.signature_valid ? 'valid' : 'invalid', what);
      assert.equal(a.node_type, NODE_TYPES[e.advert.node_type] ?? 'other', what);
      assert.equal(a.name, e.advert.name ?? null, what);
      assert.equal(a.lat, e.advert.lat_e6 === undefined ? null : e.advert.lat_e6 / 1e6, what);
      assert.equal(a.lon, e.advert.lon_e6 === undefined ? null : e.advert.lon_e6 / 1e6, what);
    }
    if (e.group) {
      const g = r.grp_txt;
      assert.equal(parseInt(g.channel_hash, 16), e.group.channel_hash, what);
      assert.equal(g.decrypted, e.group.decrypted !== undefined, what);
      if (e.group.decrypted) {
        assert.equal(names[g.channel], e.group.channel, what);
        assert.equal(g.timestamp, e.group.decrypted.timestamp, what);
        assert.equal(g.text, e.group.decrypted.text, what);
        opened += 1;
      } else {
        assert.equal(g.text, null, what);
      }
    }
    if (e.peer) {
      const key = { txt_msg: 'txt_msg', req: 'req', response: 'response', path: 'returned_path' }[r.payload_type];
      const m = r[key];
      assert.equal(parseInt(m.dst_hash, 16), e.peer.dest_hash, what);
      assert.equal(parseInt(m.src_hash, 16), e.peer.src_hash, what);
      assert.equal(m.decrypted, e.peer.decrypted !== undefined, what);
      if (e.peer.decrypted) {
        assert.equal(m.from, V.keys.nodes[e.peer.sender].pub, what);
        assert.equal(m.to, V.keys.nodes[e.peer.receiver].pub, what);
        assert.equal(m.timestamp, e.peer.decrypted.timestamp, what);
        assert.equal(m.text, e.peer.decrypted.text, what);
        opened += 1;
      }
    }
    if (e.ack) assert.equal(r.ack.checksum, Buffer.from(e.ack.crc, 'hex').readUInt32LE(0), what);
    if (e.anon) {
      assert.equal(parseInt(r.anon_req.dst_hash, 16), e.anon.dest_hash, what);
      assert.equal(r.anon_req.sender, e.anon.sender_pub, what);
    }
    if (!e.advert && !e.group && !e.peer && !e.ack && !e.anon) assert.equal(r.payload, e.payload, what);
  }
  assert.equal(opened, 5, 'four group texts and the real direct message');
});

test('the builders make the firmware\'s packets byte for byte', () => {
  const packets = V.derived_not_from_sources.packets;
  assert.equal(packets.length, 5);
  for (const p of packets) {
    const i = p.inputs;
    let got;
    if (p.name.startsWith('built-advert')) {
      assert.equal(i.node_type, 1, 'the builder makes chat adverts');
      got = mc.advert(nodeOf(i.key), i.name, i.timestamp, { lat: i.lat, lon: i.lon });
    } else if (p.name.startsWith('built-grp')) {
      got = mc.encryptGroup(channelOf(i.channel), i.timestamp, `${i.sender}: ${i.text}`);
    } else {
      got = mc.textMessage(nodeOf(i.sender), nodeOf(i.receiver).publicKey, i.timestamp, i.text, i.attempt);
    }
    assert.equal(hex(got), p.hex, p.name);
  }
});

// ---------------------------------------------------- malformed.json

test('every packet the firmware drops throws its kind and reason; the boundaries parse', () => {
  const d = new mc.Decoder({ channels: [mc.ChannelKey.public()] });
  assert.ok(M.packets.length >= 40);
  for (const p of M.packets) {
    const raw = hx(p.hex);
    const want = isErr(KIND_OF_REASON[p.error], p.error);
    assert.ok(KIND_OF_REASON[p.error], p.error);
    assert.throws(() => d.decode(raw), want, p.name);
    assert.throws(() => d.decodeJson(raw), want, p.name);
    assert.throws(() => mc.parse(raw), want, p.name);
    assert.throws(() => mc.packetHash(raw), want, p.name);
  }
  for (const p of M.valid_boundaries) {
    const raw = hx(p.hex);
    const f = p.firmware;
    const h = mc.parse(raw);
    assert.equal(h.payloadType, f.type.toLowerCase(), p.name);
    assert.equal(h.path.length, f.path_hops, p.name);
    assert.equal(h.payload.length, f.payload_len, p.name);
    assert.equal(hex(h.hash), f.packet_hash, p.name);
    assert.equal(d.decode(raw).hash, f.packet_hash, p.name);
  }
});

test('the Python package\'s malformed table: the same kind and reason', () => {
  const table = [
    ['55' + '00' + '11'.repeat(21), 'unsupported', 'version'],
    ['15c0' + '11'.repeat(21), 'malformed', 'reserved_hash_size'],
    ['1561' + 'ab'.repeat(66) + '11'.repeat(21), 'too_long', 'path_too_long'],
    ['1505aabbcc', 'truncated', 'truncated'],
    ['1500' + '11'.repeat(185), 'too_long', 'payload_too_long'],
    ['1100' + '22'.repeat(99), 'truncated', 'payload_too_short'],
    ['1500112233', 'truncated', 'payload_too_short'],
    ['', 'truncated', 'truncated'],
    ['1500' + '11'.repeat(254), 'too_long', 'too_long'],
  ];
  for (const [packet, kind, reason] of table) {
    const raw = hx(packet);
    for (const call of [() => new mc.Decoder().decode(raw), () => mc.parse(raw), () => mc.packetHash(raw)]) {
      assert.throws(call, isErr(kind, reason), reason);
    }
  }
});

// ----------------------------------------------- mac_collisions.json

test('no 2-byte MAC collision is reported decrypted, whatever the key order', () => {
  const bKey = (name) => channelOf(name);
  const aKey = (name) => mc.ChannelKey.fromBytes(hx(C.keys.channels[name].key));
  let checked = 0;
  for (const set of C.group) {
    for (const p of set.packets) {
      const raw = hx(p.hex);
      const orders = p.key_a === undefined
        ? [[bKey(set.key_b)]]
        : [[bKey(set.key_b), aKey(p.key_a)], [aKey(p.key_a), bKey(set.key_b)]];
      for (const keys of orders) {
        const g = new mc.Decoder({ channels: keys }).decode(raw).grp_txt;
        if (p.text_under_a === undefined) {
          assert.equal(g.decrypted, false, p.hex);
          assert.equal(g.text, null, p.hex);
        } else {
          assert.equal(g.decrypted, true, p.hex);
          assert.equal(g.text, p.text_under_a, p.hex);
          assert.equal(keys[g.channel].hash, raw[2]);
        }
        checked += 1;
      }
      // Under B alone nothing opens.
      if (p.key_a !== undefined) {
        assert.equal(new mc.Decoder({ channels: [bKey(set.key_b)] }).decode(raw).grp_txt.decrypted, false);
      }
    }
  }
  for (const p of C.txt_msg) {
    const raw = hx(p.hex);
    const wrong = V.keys.nodes[p.wrong_sender]
      ? nodeOf(p.wrong_sender)
      : mc.LocalIdentity.fromHex(C.keys.nodes[p.wrong_sender].prv);
    const real = nodeOf(p.sender).publicKey;
    for (const peers of [[wrong.publicKey, real], [real, wrong.publicKey]]) {
      const d = new mc.Decoder({ identities: [nodeOf(p.receiver)], peers });
      const t = d.decode(raw).txt_msg;
      assert.equal(t.decrypted, true, p.hex);
      assert.equal(t.from, hex(real));
      assert.equal(t.text, p.text);
      assert.equal(t.timestamp, p.timestamp);
      checked += 1;
    }
    // The wrong sender alone opens nothing.
    const alone = new mc.Decoder({ identities: [nodeOf(p.receiver)], peers: [wrong.publicKey] });
    assert.equal(alone.decode(raw).txt_msg.decrypted, false, p.hex);
  }
  assert.ok(checked >= 200, String(checked));
});

// ------------------------------------------------- driver_cases.json

/** A decoder with a case's keys, channels in the table's order. */
function caseDecoder(c) {
  const channels = (c.channels ?? []).map((ch) =>
    ch.base64 !== undefined ? mc.ChannelKey.fromBase64(ch.base64) : mc.ChannelKey.hashtag(ch.hashtag));
  const identities = c.identity !== undefined ? [mc.LocalIdentity.fromHex(c.identity)] : [];
  const peers = (c.peers ?? []).map(hx);
  return new mc.Decoder({ channels, identities, peers });
}

const tableError = (c) => (e) => {
  isErr(c.error.kind, c.error.reason)(e);
  assert.equal(e.message, c.error.message);
  return true;
};

test('every driver case gives the command line\'s record', () => {
  assert.ok(T.packets.length >= 8);
  for (const c of T.packets) {
    const raw = hx(c.packet_hex);
    assert.deepEqual(caseDecoder(c).decode(raw), c.record, c.what);
    const line = caseDecoder(c).decodeJson(raw, 0);
    assert.ok(!line.includes('\n'));
    assert.deepEqual(JSON.parse(line), c.record, c.what);
  }
});

test('decodeBatch gives the table\'s records and errors in input order', () => {
  const bad = T.malformed;
  T.packets.forEach((c, i) => {
    const raw = hx(c.packet_hex);
    const worse = bad[i % bad.length];
    const out = caseDecoder(c).decodeBatch([raw, hx(worse.packet_hex), raw], 0);
    assert.equal(out.length, 3);
    assert.deepEqual(out[0], c.record, c.what);
    assert.deepEqual(out[2], c.record, c.what);
    tableError(worse)(out[1]);
  });
  const d = new mc.Decoder();
  assert.deepEqual(d.decodeBatch([]), []);
  assert.throws(() => d.decodeBatch('x'), invalidInput);
  assert.throws(() => d.decodeBatch([new Uint8Array(2), 5]), invalidInput);
  assert.throws(() => d.decodeBatch([], -1), invalidInput);
});

test('every malformed driver case and bad key gives the table\'s error', () => {
  const d = new mc.Decoder({ channels: [mc.ChannelKey.public()] });
  for (const c of T.malformed) {
    const raw = hx(c.packet_hex);
    assert.throws(() => d.decode(raw), tableError(c), c.what);
    assert.throws(() => mc.parse(raw), tableError(c), c.what);
  }
  for (const c of T.key_errors) {
    let call;
    if (c.channel_base64 !== undefined) call = () => mc.ChannelKey.fromBase64(c.channel_base64);
    else if (c.identity_hex !== undefined) call = () => mc.LocalIdentity.fromHex(c.identity_hex);
    else call = () => new mc.Decoder({ peers: [hx(c.peer_hex)] });
    assert.throws(call, tableError(c), c.what);
  }
});

test('the builders make the driver table\'s packets', () => {
  const b = T.builders;
  const packet = (k) => T.packets[b[k].case].packet_hex;
  const g = b.group_text;
  assert.equal(hex(mc.encryptGroup(mc.ChannelKey.fromBase64(g.channel_base64), g.timestamp, g.text)), packet('group_text'));
  const client = mc.LocalIdentity.fromHex(TEST_CLIENT_PRV);
  const to = mc.LocalIdentity.fromHex(RFC8032_SEED);
  const dm = b.direct_text;
  assert.equal(hex(mc.textMessage(client, to.publicKey, dm.timestamp, dm.text, dm.attempt)), packet('direct_text'));
  assert.equal(hex(mc.textMessage(client, to.publicKey, dm.timestamp, dm.text)), packet('direct_text'));
  for (const k of ['advert', 'advert_long_name']) {
    const a = b[k];
    const opts = a.lat === undefined ? undefined : { lat: a.lat, lon: a.lon };
    assert.equal(hex(mc.advert(client, a.name, a.timestamp, opts)), packet(k), k);
  }
});

// ------------------------------------------------------ round trips

test('group texts: round trip, only the keys given, tampering', () => {
  const ch = mc.ChannelKey.hashtag('#test');
  const packet = mc.encryptGroup(ch, 1_700_000_000, 'Alice: hi ☁️');
  const r = new mc.Decoder({ channels: [mc.ChannelKey.public(), ch] }).decode(packet);
  assert.equal(r.payload_type, 'grp_txt');
  assert.equal(r.route_type, 'flood');
  assert.deepEqual(
    [r.grp_txt.decrypted, r.grp_txt.channel, r.grp_txt.timestamp, r.grp_txt.text],
    [true, 1, 1_700_000_000, 'Alice: hi ☁️'],
  );
  assert.equal(r.grp_txt.channel_hash, ch.hash.toString(16).padStart(2, '0'));
  assert.equal(r.hash, hex(mc.packetHash(packet)));
  // No channel is implied.
  const none = new mc.Decoder().decode(packet).grp_txt;
  assert.equal(none.decrypted, false);
  assert.equal(none.text, null);
  // Any flipped ciphertext or MAC bit: not decrypted (or, once in 65,536, refused by the plaintext checks).
  for (let i = 3; i < packet.length; i++) {
    const bad = packet.slice();
    bad[i] ^= 0x01;
    assert.equal(new mc.Decoder({ channels: [ch] }).decode(bad).grp_txt.decrypted, false, String(i));
  }
  // Truncated: a ciphertext cut by one byte is not a whole block.
  const cut = new mc.Decoder({ channels: [ch] }).decode(packet.slice(0, -1)).grp_txt;
  assert.equal(cut.decrypted, false);
});

test('adverts: signed, verified, names cut at a whole character, tampering', () => {
  const tc = mc.LocalIdentity.fromHex(TEST_CLIENT_PRV);
  const packet = mc.advert(tc, 'Test Client', 1_700_000_000, { lat: 52.370216, lon: -4.895168 });
  const a = new mc.Decoder().decode(packet).advert;
  assert.equal(a.public_key, TEST_CLIENT_PUB);
  assert.deepEqual([a.signature, a.node_type, a.name], ['valid', 'chat', 'Test Client']);
  assert.equal(a.lat, Math.trunc(52.370216e6) / 1e6);
  assert.equal(a.lon, Math.trunc(-4.895168e6) / 1e6);
  const long = new mc.Decoder().decode(mc.advert(tc, 'n'.repeat(30) + '🌲tail', 1)).advert;
  assert.equal(long.name, 'n'.repeat(30));
  assert.equal(long.signature, 'valid');
  assert.equal(long.lat, null);
  for (const i of [2, 20, 40, 80, packet.length - 1]) {
    const bad = packet.slice();
    bad[i] ^= 1;
    assert.equal(new mc.Decoder().decode(bad).advert.signature, 'invalid', String(i));
  }
  assert.throws(() => mc.advert(tc, 'x', 1, { lat: 5 }), invalidInput);
  assert.throws(() => mc.advert(tc, 'x', 1, { lon: 5 }), invalidInput);
  assert.throws(() => mc.advert(tc, 'x', 1, { lat: 91, lon: 0 }), (e) => {
    isErr('invalid_input', 'invalid_input')(e);
    assert.match(e.message, /latitude/);
    return true;
  });
  assert.throws(() => mc.advert(tc, 'x', 1, { lat: 0, lon: 180.5 }), invalidInput);
  assert.throws(() => mc.advert(tc, 'x', 1, { lat: NaN, lon: 0 }), invalidInput);
});

test('direct messages: round trip, attempts, our identities and peers only', () => {
  const tc = mc.LocalIdentity.fromHex(TEST_CLIENT_PRV);
  const us = mc.LocalIdentity.generate();
  let packet;
  for (const attempt of [0, 3, 5]) {
    packet = mc.textMessage(tc, us.publicKey, 1_700_000_100, 'Hello there', attempt);
    const t = new mc.Decoder({ identities: [us], peers: [tc.publicKey] }).decode(packet).txt_msg;
    assert.equal(t.decrypted, true);
    assert.deepEqual([t.from, t.to], [hex(tc.publicKey), hex(us.publicKey)]);
    assert.deepEqual([t.text, t.attempt, t.text_type], ['Hello there', attempt, 'plain']);
    assert.equal(new mc.Decoder({ identities: [us] }).decode(packet).txt_msg.decrypted, false);
    assert.equal(new mc.Decoder({ peers: [tc.publicKey] }).decode(packet).txt_msg.decrypted, false);
  }
  const d = new mc.Decoder();
  d.addIdentity(us);
  assert.equal(d.addPeer(tc.publicKey), true);
  assert.equal(d.addPeer(tc.publicKey), false);
  assert.equal(d.decode(packet, 1000).txt_msg.decrypted, true);
  assert.equal(d.decode(packet, 2000).txt_msg.decrypted, true);
  assert.equal(d.addChannel(mc.ChannelKey.public()), 0);
  assert.equal(d.addChannel(mc.ChannelKey.hashtag('#test')), 1);
  assert.throws(() => mc.textMessage(tc, new Uint8Array(31), 1, 'x'), isErr('invalid_key', 'invalid_key'));
  assert.throws(() => mc.textMessage(tc, hx('02' + '00'.repeat(31)), 1, 'x'), isErr('invalid_key', 'invalid_key'));
  assert.throws(() => mc.textMessage(tc, us.publicKey, 1, 'x'.repeat(161)), isErr('invalid_input', 'invalid_input'));
});

test('parse gives the header fields of a relayed packet', () => {
  const ch = mc.ChannelKey.public();
  const packet = mc.encryptGroup(ch, 1, 'a: b');
  const relayed = Uint8Array.of(packet[0], 0x42, 0xa1, 0xb2, 0xc3, 0xd4, ...packet.slice(2));
  const p = mc.parse(relayed);
  assert.equal(p.routeType, 'flood');
  assert.equal(p.payloadType, 'grp_txt');
  assert.equal(p.transportCodes, null);
  assert.equal(p.pathHashSize, 2);
  assert.deepEqual(p.path, [hx('a1b2'), hx('c3d4')]);
  assert.deepEqual(p.payload, packet.slice(2));
  assert.deepEqual(p.hash, mc.packetHash(packet));
  const r = new mc.Decoder({ channels: [ch] }).decode(relayed);
  assert.deepEqual(r.path, ['a1b2', 'c3d4']);
  assert.equal(r.grp_txt.text, 'a: b');
  const transported = V.packets.find((q) => q.expect.transport_codes !== null);
  assert.deepEqual(mc.parse(hx(transported.hex)).transportCodes, transported.expect.transport_codes);
});

// ------------------------------------------------- the npm peer

function peerDecode(hexPacket, channelKeys) {
  const keyStore = MeshCorePacketDecoder.createKeyStore({ channelSecrets: channelKeys, nodeKeys: {} });
  return MeshCorePacketDecoder.decode(hexPacket, { keyStore });
}

function peerText(p) {
  const d = p.payload?.decoded?.decrypted;
  if (!d) return null;
  return d.sender !== undefined ? `${d.sender}: ${d.message}` : d.message;
}

test('the npm decoder: every group text it decrypts gives our text', () => {
  const sixteen = Object.values(V.keys.channels).filter((c) => c.key.length === 32).map((c) => c.key);
  const { d } = vectorsDecoder();
  let compared = 0;
  const packets = [
    ...V.packets.map((p) => p.hex),
    ...V.derived_not_from_sources.packets.map((p) => p.hex),
    ...T.packets.map((c) => c.packet_hex),
  ];
  for (const h of packets) {
    const r = d.decode(hx(h));
    if (r.payload_type !== 'grp_txt') continue;
    const text = peerText(peerDecode(h, sixteen));
    if (text === null) continue;
    assert.equal(r.grp_txt.text, text, h);
    compared += 1;
  }
  assert.ok(compared >= 6, String(compared));

  // Ours built, the peer decrypts: public, hashtags and random 16-byte keys, texts up to the limit.
  const texts = ['a: b', 'Alice: hello', 'Bob: ☁️ über 🌲', 'x: ' + 'y'.repeat(157), 'Zoë: 12345678901'];
  const keys = [mc.PUBLIC_CHANNEL_KEY, hx(V.keys.channels['#test'].key)];
  for (let i = 0; i < 6; i++) keys.push(crypto.getRandomValues(new Uint8Array(16)));
  for (const key of keys) {
    for (const [j, text] of texts.entries()) {
      const ts = 1_700_000_000 + j;
      const packet = mc.encryptGroup(mc.ChannelKey.fromBytes(key), ts, text);
      const p = peerDecode(hex(packet), [hex(key)]);
      assert.equal(peerText(p), text);
      assert.equal(p.payload.decoded.decrypted.timestamp, ts);
      compared += 1;
    }
  }
});

test('the npm decoder verifies our adverts and reads their fields', async () => {
  const ids = [mc.LocalIdentity.fromHex(TEST_CLIENT_PRV), mc.LocalIdentity.generate(), mc.LocalIdentity.fromSeed(hx(RFC8032_SEED))];
  for (const id of ids) {
    for (const [name, opts] of [['Test Client', { lat: 52.370216, lon: -4.895168 }], ['node', undefined], ['Zoë 🌲', { lat: -33.5, lon: 151.25 }]]) {
      const packet = mc.advert(id, name, 1_700_000_000, opts);
      const p = await MeshCorePacketDecoder.decodeWithVerification(hex(packet));
      const a = p.payload.decoded;
      assert.equal(a.signatureValid, true);
      assert.equal(a.publicKey.toLowerCase(), hex(id.publicKey));
      assert.equal(a.timestamp, 1_700_000_000);
      assert.equal(a.appData.name, name);
      if (opts) {
        assert.ok(Math.abs(a.appData.location.latitude - opts.lat) < 1e-6);
        assert.ok(Math.abs(a.appData.location.longitude - opts.lon) < 1e-6);
      }
      const ours = new mc.Decoder().decode(packet).advert;
      assert.equal(ours.signature, 'valid');
      assert.equal(ours.name, name);
    }
  }
});

// --------------------------------------------- arguments and robustness

test('wrong argument types are invalid_input, never a trap', () => {
  const ch = mc.ChannelKey.public();
  const id = mc.LocalIdentity.fromHex(TEST_CLIENT_PRV);
  const d = new mc.Decoder({ channels: [ch] });
  const notBytes = ['abc', 42, [1, 2, 3], undefined, null, {}, new Uint16Array(4), Buffer.from('x').buffer];
  for (const bad of notBytes) {
    for (const call of [
      () => mc.ChannelKey.fromBytes(bad),
      () => mc.LocalIdentity.fromSeed(bad),
      () => mc.LocalIdentity.fromPrivateKey(bad),
      () => id.sign(bad),
      () => d.addPeer(bad),
      () => d.decode(bad),
      () => d.decodeJson(bad),
      () => mc.parse(bad),
      () => mc.packetHash(bad),
      () => mc.textMessage(id, bad, 1, 'x'),
      () => new mc.Decoder({ peers: [bad] }),
    ]) {
      assert.throws(call, invalidInput, String(call));
    }
  }
  const notStrings = [42, undefined, null, utf8('x'), ['a'], {}];
  for (const bad of notStrings) {
    for (const call of [
      () => mc.ChannelKey.fromBase64(bad),
      () => mc.ChannelKey.hashtag(bad),
      () => mc.LocalIdentity.fromHex(bad),
      () => mc.encryptGroup(ch, 1, bad),
      () => mc.advert(id, bad, 1),
      () => mc.textMessage(id, id.publicKey, 1, bad),
    ]) {
      assert.throws(call, invalidInput, String(call));
    }
  }
  // Keys where keys are expected: not strings, bytes, plain objects, the other class, a freed key.
  const freed = mc.ChannelKey.public();
  freed.free();
  const freedId = mc.LocalIdentity.generate();
  freedId.free();
  for (const bad of ['k', 1, undefined, null, {}, utf8('k'), [ch], id, freed, { _wiresealChannelHandle: () => 1 }]) {
    assert.throws(() => mc.encryptGroup(bad, 1, 'a: b'), invalidInput);
    assert.throws(() => d.addChannel(bad), invalidInput);
    assert.throws(() => new mc.Decoder({ channels: [bad] }), invalidInput);
  }
  for (const bad of ['k', 1, undefined, null, {}, utf8('k'), [id], ch, freedId, { _wiresealIdentityHandle: () => ch }]) {
    assert.throws(() => mc.advert(bad, 'x', 1), invalidInput);
    assert.throws(() => mc.textMessage(bad, id.publicKey, 1, 'x'), invalidInput);
    assert.throws(() => d.addIdentity(bad), invalidInput);
    assert.throws(() => new mc.Decoder({ identities: [bad] }), invalidInput);
  }
  // The keys handed over stay whole: still usable by their owner.
  assert.equal(ch.hash, 0x11);
  assert.equal(hex(id.publicKey), TEST_CLIENT_PUB);
  // Options and numbers.
  for (const bad of ['x', 5, true]) assert.throws(() => new mc.Decoder(bad), invalidInput);
  for (const bad of ['x', 5, {}, ch]) {
    assert.throws(() => new mc.Decoder({ channels: bad }), invalidInput);
    assert.throws(() => new mc.Decoder({ identities: bad }), invalidInput);
    assert.throws(() => new mc.Decoder({ peers: bad }), invalidInput);
  }
  const packet = mc.encryptGroup(ch, 1, 'a: b');
  for (const bad of ['1', -1, 1.5, NaN, Infinity, 2 ** 53 + 2, {}, [1]]) {
    assert.throws(() => d.decode(packet, bad), invalidInput, String(bad));
  }
  assert.equal(d.decode(packet, null).grp_txt.text, 'a: b');
  assert.equal(d.decode(packet, undefined).grp_txt.text, 'a: b');
  for (const bad of [-1, 2 ** 32, 1.5, NaN, Infinity, 'x']) {
    assert.throws(() => mc.encryptGroup(ch, bad, 'a: b'), invalidInput, String(bad));
    assert.throws(() => mc.advert(id, 'x', bad), invalidInput, String(bad));
    assert.throws(() => mc.textMessage(id, id.publicKey, bad, 'x'), invalidInput, String(bad));
  }
  for (const bad of [-1, 256, 1.5, '1', {}]) {
    assert.throws(() => mc.textMessage(id, id.publicKey, 1, 'x', bad), invalidInput, String(bad));
  }
  for (const bad of ['x', 5]) assert.throws(() => mc.advert(id, 'x', 1, bad), invalidInput);
  for (const bad of ['52', null, {}, Infinity]) {
    assert.throws(() => mc.advert(id, 'x', 1, { lat: bad, lon: 0 }), invalidInput, String(bad));
  }
});

test('random packets either decode or throw a WiresealError, never a trap', () => {
  const { d } = vectorsDecoder();
  const seeds = [...V.packets.map((p) => hx(p.hex)), ...M.packets.map((p) => hx(p.hex))];
  let decoded = 0;
  for (let i = 0; i < 3000; i++) {
    let raw;
    if (i % 2 === 0) {
      raw = crypto.getRandomValues(new Uint8Array(Math.floor(Math.random() * 300)));
    } else {
      raw = seeds[i % seeds.length].slice();
      const cut = Math.floor(Math.random() * (raw.length + 1));
      raw = raw.slice(0, i % 3 === 0 ? cut : raw.length);
      if (raw.length) raw[Math.floor(Math.random() * raw.length)] ^= 1 << (i % 8);
    }
    for (const call of [() => d.decode(raw), () => mc.parse(raw), () => mc.packetHash(raw)]) {
      try {
        call();
        decoded += 1;
      } catch (e) {
        assert.ok(e instanceof WiresealError, `${hex(raw)}: ${e}`);
        assert.ok(e.kind && e.reason, `${hex(raw)}: ${e.kind}/${e.reason}`);
      }
    }
  }
  assert.ok(decoded > 0);
});
