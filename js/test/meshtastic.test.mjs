// wireseal/meshtastic against the firmware's own vectors and independent
// peers: @noble/curves (X25519, Ed25519), @noble/ciphers (AES-CTR),
// node:crypto (AES-256-CCM, SHA-256) and @meshtastic/protobufs (envelopes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { x25519, ed25519 } from '@noble/curves/ed25519.js';
import { ctr } from '@noble/ciphers/aes.js';
import { create, toBinary } from '@bufbuild/protobuf';
import { Mesh, Mqtt, Portnums } from '@meshtastic/protobufs';
import { meshtastic, WiresealError } from 'wireseal';
import { channelNonce } from './support.mjs';

const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b) => Buffer.from(b).toString('hex');
const vectors = JSON.parse(
  readFileSync(new URL('../../vectors/meshtastic/vectors.json', import.meta.url)),
);
const vector = (id) => vectors.vectors.find((v) => v.id === id);
const isKind = (kind) => (e) => {
  assert.ok(e instanceof WiresealError, `not a WiresealError: ${e}`);
  assert.equal(e.kind, kind, e.message);
  return true;
};

/** The firmware's default channel key (PSK `AQ==`, expanded). */
const DEFAULT_KEY = hex('d4f1bb3a20290759f0bcffabcf4e6901');

test('the firmware PKC vector opens to its plaintext', () => {
  const v = vector('pkc-decrypt-radio-frame');
  const ours = new meshtastic.PkcEngine(hex(v.our_private_key_hex));
  const frame = hex(v.radio_frame_hex);
  const payload = frame.subarray(v.pkc_payload_offset);
  const text = ours.open(0, hex(v.sender_public_key_hex), v.from_node, v.packet_id, payload);
  assert.equal(toHex(text), v.expected_plaintext_hex);
  // Tampering with any byte fails authentication.
  for (const i of [0, 9, 10, 17, 18, 21]) {
    const bad = payload.slice();
    bad[i] ^= 1;
    assert.throws(
      () => ours.open(0, hex(v.sender_public_key_hex), v.from_node, v.packet_id, bad),
      isKind('auth'),
    );
  }
});

test('public keys and shared secrets agree with @noble/curves', () => {
  for (const v of vectors.vectors.filter((v) => v.kind === 'x25519_raw')) {
    const priv = hex(v.private_key_hex);
    assert.equal(toHex(meshtastic.publicKey(priv)), toHex(x25519.getPublicKey(priv)));
  }
  const priv = meshtastic.generatePrivateKey();
  assert.equal(priv.length, 32);
  assert.equal(toHex(meshtastic.publicKey(priv)), toHex(x25519.getPublicKey(priv)));
});

test('a sealed PKC message is AES-256-CCM under SHA-256(X25519) (node:crypto)', () => {
  const alice = meshtastic.generatePrivateKey();
  const bobPriv = x25519.utils.randomSecretKey();
  const bobPub = x25519.getPublicKey(bobPriv);
  const engine = new meshtastic.PkcEngine(alice);
  const plaintext = new TextEncoder().encode('meet at the ridge at dawn');
  const sealed = engine.seal(0, bobPub, 0x929, 0x13b2d662, plaintext);
  assert.equal(sealed.length, meshtastic.sealedLen(plaintext.length));
  assert.equal(meshtastic.openedLen(sealed.length), plaintext.length);
  // The peer's side, composed by hand: key, nonce, CCM with an 8-byte tag.
  const key = createHash('sha256').update(x25519.getSharedSecret(bobPriv, engine.publicKey)).digest();
  const extra = sealed.subarray(sealed.length - 4);
  const nonce = new Uint8Array(13);
  new DataView(nonce.buffer).setUint32(0, 0x13b2d662, true);
  nonce.set(extra, 4);
  new DataView(nonce.buffer).setUint32(8, 0x929, true);
  const c = createCipheriv('aes-256-ccm', key, nonce, { authTagLength: 8 });
  const ct = c.update(plaintext);
  c.final();
  assert.equal(toHex(sealed), toHex(Buffer.concat([ct, c.getAuthTag(), extra])));
});

test('the cache serves a repeat peer without a second agreement', () => {
  const alice = new meshtastic.PkcEngine(meshtastic.generatePrivateKey());
  const bob = new meshtastic.PkcEngine(meshtastic.generatePrivateKey(), { capacity: 4 });
  for (let id = 1; id <= 5; id++) {
    const sealed = alice.seal(0, bob.publicKey, 7, id, Uint8Array.of(id));
    assert.deepEqual([...bob.open(0, alice.publicKey, 7, id, sealed)], [id]);
  }
  const stats = bob.cacheStats();
  assert.equal(stats.misses, 1);
  assert.equal(stats.hits, 4);
  assert.equal(stats.len, 1);
  assert.equal(bob.invalidatePeer(alice.publicKey), true);
  assert.equal(bob.invalidatePeer(alice.publicKey), false);
});

test('a replay window refuses a repeated (from, id)', () => {
  const alice = new meshtastic.PkcEngine(meshtastic.generatePrivateKey());
  const bob = new meshtastic.PkcEngine(meshtastic.generatePrivateKey(), { replayWindow: [8, 8] });
  const sealed = alice.seal(0, bob.publicKey, 7, 1, Uint8Array.of(1));
  bob.open(0, alice.publicKey, 7, 1, sealed);
  assert.throws(() => bob.open(0, alice.publicKey, 7, 1, sealed), isKind('replay'));
});

test('channel packets are the firmware AES-CTR (@noble/ciphers)', () => {
  const key = new meshtastic.ChannelKey('AQ==');
  assert.equal(key.isEncrypted, true);
  const plaintext = randomBytes(200);
  const sealed = key.encrypt(0x12345678, 0xdeadbeef, plaintext);
  const expected = ctr(DEFAULT_KEY, channelNonce(0x12345678, 0xdeadbeef)).encrypt(plaintext);
  assert.equal(toHex(sealed), toHex(expected));
  assert.equal(toHex(key.decrypt(0x12345678, 0xdeadbeef, sealed)), toHex(plaintext));
  // The same key from bytes and from hex text; `none` leaves packets clear.
  assert.equal(toHex(new meshtastic.ChannelKey(Uint8Array.of(1)).encrypt(1, 2, plaintext)),
    toHex(ctr(DEFAULT_KEY, channelNonce(1, 2)).encrypt(plaintext)));
  assert.equal(new meshtastic.ChannelKey('none').isEncrypted, false);
  // LongFast under the default key hashes to 8 (the firmware's channel 0).
  assert.equal(meshtastic.channelHash('LongFast', 'AQ=='), 8);
  assert.equal(key.hash('LongFast'), 8);
  assert.throws(() => key.encrypt(1, 2, new Uint8Array(300)), isKind('too_long'));
});

/** An X25519 public key's Ed25519 form (sign bit 0), as XEdDSA defines it. */
function edwardsOf(montgomery) {
  const p = 2n ** 255n - 19n;
  const pow = (b, e) => {
    let r = 1n;
    for (b %= p; e > 0n; e >>= 1n, b = (b * b) % p) if (e & 1n) r = (r * b) % p;
    return r;
  };
  let u = 0n;
  for (let i = 31; i >= 0; i--) u = (u << 8n) | BigInt(montgomery[i]);
  u &= (1n << 255n) - 1n;
  let y = ((u - 1n + p) % p) * pow(u + 1n, p - 2n) % p;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, y >>= 8n) out[i] = Number(y & 0xffn);
  return out;
}

test('XEdDSA signatures verify with @noble/curves Ed25519 and back', () => {
  const priv = meshtastic.generatePrivateKey();
  const pub = meshtastic.publicKey(priv);
  const payload = new TextEncoder().encode('signed hello');
  const sig = meshtastic.xeddsaSign(priv, 0x929, 7, 1, payload);
  const message = new Uint8Array(12 + payload.length);
  const view = new DataView(message.buffer);
  view.setUint32(0, 0x929, true);
  view.setUint32(4, 7, true);
  view.setUint32(8, 1, true);
  message.set(payload, 12);
  assert.ok(ed25519.verify(sig, message, edwardsOf(pub)));
  assert.equal(meshtastic.xeddsaVerify(pub, 0x929, 7, 1, payload, sig), true);
  assert.equal(meshtastic.xeddsaVerify(pub, 0x929, 8, 1, payload, sig), false);
  const bad = sig.slice();
  bad[5] ^= 1;
  assert.equal(meshtastic.xeddsaVerify(pub, 0x929, 7, 1, payload, bad), false);
});

test('node numbers are crc32 of the public key (2.8)', () => {
  const v = vector('pkc-decrypt-radio-frame');
  const pub = hex(v.sender_public_key_hex);
  // zlib's CRC-32 (node:zlib has it from Node 20.15).
  const crc = (b) => {
    let c = ~0;
    for (const x of b) {
      c ^= x;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  assert.equal(meshtastic.nodeNumber(pub), crc(pub));
});

function envelope({ from, to, id, channelId, encrypted, decoded, pki = false, publicKey }) {
  const packet = create(Mesh.MeshPacketSchema, {
    from, to, id, channel: pki ? 0 : 8, hopLimit: 3, hopStart: 3, pkiEncrypted: pki,
    payloadVariant: encrypted
      ? { case: 'encrypted', value: encrypted }
      : { case: 'decoded', value: decoded },
    ...(publicKey ? { publicKey } : {}),
  });
  return toBinary(Mqtt.ServiceEnvelopeSchema, create(Mqtt.ServiceEnvelopeSchema, {
    packet, channelId, gatewayId: '!12345678',
  }));
}

test('EnvelopeDecoder decodes channel and PKC envelopes built with @meshtastic/protobufs', () => {
  const decoder = new meshtastic.EnvelopeDecoder();
  assert.equal(decoder.addChannel('LongFast', 'AQ=='), 0);
  const data = toBinary(Mesh.DataSchema, create(Mesh.DataSchema, {
    portnum: Portnums.PortNum.TEXT_MESSAGE_APP,
    payload: new TextEncoder().encode('hello mesh'),
  }));
  const encrypted = ctr(DEFAULT_KEY, channelNonce(0x11223344, 99)).encrypt(data);
  const rec = decoder.decode(1_700_000_000_000, envelope({
    from: 0x11223344, to: 0xffffffff, id: 99, channelId: 'LongFast', encrypted,
  }));
  assert.equal(rec.from, 0x11223344);
  assert.equal(rec.id, 99);
  assert.equal(rec.portnum, 1);
  assert.equal(rec.decryption, 'channel');
  assert.equal(rec.channel_name, 'LongFast');
  assert.equal(rec.payload_hex, toHex(new TextEncoder().encode('hello mesh')));
  // The text form is the same record the gateway writes.
  const again = decoder.decodeRecord(1_700_000_000_001, envelope({
    from: 0x11223344, to: 0xffffffff, id: 100, channelId: 'LongFast',
    encrypted: ctr(DEFAULT_KEY, channelNonce(0x11223344, 100)).encrypt(data),
  }));
  assert.equal(JSON.parse(again).payload_hex, rec.payload_hex);

  // A direct message to our node, sealed by a peer (node:crypto's CCM).
  const ourPriv = meshtastic.generatePrivateKey();
  decoder.setNode(0x0a0b0c0d, ourPriv);
  const peer = new meshtastic.PkcEngine(meshtastic.generatePrivateKey());
  const sealed = peer.seal(0, meshtastic.publicKey(ourPriv), 0x55667788, 5, data);
  const dm = decoder.decode(0, envelope({
    from: 0x55667788, to: 0x0a0b0c0d, id: 5, channelId: 'PKI', encrypted: sealed,
    pki: true, publicKey: peer.publicKey,
  }));
  assert.equal(dm.decryption, 'pkc');
  assert.equal(dm.payload_hex, rec.payload_hex);
});

test('bad envelopes and arguments throw WiresealError, never trap', () => {
  const decoder = new meshtastic.EnvelopeDecoder();
  assert.throws(() => decoder.decode(0, Uint8Array.of(0x0a, 0x50, 1, 2)), (e) => e instanceof WiresealError);
  assert.throws(() => decoder.decode(0, 'not bytes'), isKind('invalid_input'));
  assert.throws(() => decoder.decode(-1, new Uint8Array(0)), isKind('invalid_input'));
  assert.throws(() => decoder.decode(1.5, new Uint8Array(0)), isKind('invalid_input'));
  assert.throws(() => new meshtastic.EnvelopeDecoder({ signaturePolicy: 'lax' }), (e) => e instanceof WiresealError);
  assert.throws(() => new meshtastic.EnvelopeDecoder(5), isKind('invalid_input'));
  assert.throws(() => decoder.addChannel('x', 42), isKind('invalid_input'));
  assert.throws(() => decoder.addChannel('x', new Uint8Array(33)), (e) => e instanceof WiresealError);
  assert.throws(() => decoder.setNode(2 ** 32, meshtastic.generatePrivateKey()), isKind('invalid_input'));
  for (const bad of [undefined, null, 'abc', 123, [1, 2, 3], new Uint8Array(31), new Uint8Array(33)]) {
    assert.throws(() => new meshtastic.PkcEngine(bad), (e) => e instanceof WiresealError, String(bad));
    assert.throws(() => meshtastic.nodeNumber(bad), (e) => e instanceof WiresealError);
  }
  const engine = new meshtastic.PkcEngine(meshtastic.generatePrivateKey());
  const peer = meshtastic.publicKey(meshtastic.generatePrivateKey());
  assert.throws(() => engine.open(0, peer, 1, 2, new Uint8Array(11)), isKind('truncated'));
  assert.throws(() => engine.open(0, peer, 1, 2, new Uint8Array(400)), isKind('too_long'));
  assert.throws(() => engine.seal(0, peer, 1, 2, new Uint8Array(400)), isKind('too_long'));
  assert.throws(() => engine.open(0, peer, 'x', 2, new Uint8Array(20)), isKind('invalid_input'));
  assert.throws(() => engine.open(0, peer, 1, 2, [1, 2, 3]), isKind('invalid_input'));
  assert.throws(() => new meshtastic.PkcEngine(meshtastic.generatePrivateKey(), { capacity: -1 }), isKind('invalid_input'));
  assert.throws(() => new meshtastic.PkcEngine(meshtastic.generatePrivateKey(), { replayWindow: 3 }), isKind('invalid_input'));
  assert.throws(() => meshtastic.openedLen(3), isKind('truncated'));
  // Random bytes as envelopes: an error or a record, never a trap.
  for (let i = 0; i < 2000; i++) {
    try {
      decoder.decode(0, randomBytes(i % 300));
    } catch (e) {
      assert.ok(e instanceof WiresealError, String(e));
    }
  }
});

test('decodeBatch gives decode\'s records and errors in input order', () => {
  const decoder = new meshtastic.EnvelopeDecoder();
  decoder.addChannel('LongFast', 'AQ==');
  const data = toBinary(Mesh.DataSchema, create(Mesh.DataSchema, {
    portnum: Portnums.PortNum.TEXT_MESSAGE_APP,
    payload: new TextEncoder().encode('batch'),
  }));
  const envelopes = [1, 2, 3].map((id) => envelope({
    from: 0x1234, to: 0xffffffff, id, channelId: 'LongFast',
    encrypted: ctr(DEFAULT_KEY, channelNonce(0x1234, id)).encrypt(data),
  }));
  envelopes.splice(1, 0, Uint8Array.of(0x0a, 0x50, 1));
  const out = decoder.decodeBatch(0, envelopes);
  assert.equal(out.length, 4);
  assert.deepEqual(out.filter((r) => !(r instanceof WiresealError)).map((r) => r.id), [1, 2, 3]);
  assert.ok(out[1] instanceof WiresealError);
  assert.equal(out[2].payload_hex, toHex(new TextEncoder().encode('batch')));
  assert.throws(() => decoder.decodeBatch(0, 'x'), isKind('invalid_input'));
  assert.throws(() => decoder.decodeBatch(0, [new Uint8Array(1), 5]), isKind('invalid_input'));
});
