// wireseal/sphinx against BOLT #4's vectors (vectors/bolt04), with
// @noble/curves' secp256k1 and @noble/hashes' SHA-256 as independent peers
// for the ephemeral keys and shared secrets, and the negative cases: every
// bad input is a WiresealError of the right kind, never a trap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { WiresealError, sphinx as fromIndex } from 'wireseal';
import * as sphinx from 'wireseal/sphinx';

const vector = (name) => new URL(`../../vectors/${name}`, import.meta.url);
const json = (name) => JSON.parse(readFileSync(vector(name), 'utf8'));
const ONION = json('bolt04/onion-test.json');
const ERROR = json('bolt04/onion-error-test.json');
const ATTR = json('bolt04/attributable-error-test.json');
const PADDING = json('bolt04/fulfillment-payload-padding-test.json');
const BLINDED = json('bolt04/blinded-payment-onion-test.json');
const ROUTE_BLINDING = json('bolt04/route-blinding-test.json');
const MESSAGE = json('bolt04/blinded-onion-message-onion-test.json');
const CASES = json('sphinx/driver_cases.json');

const hx = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const cat = (...parts) => Uint8Array.from(Buffer.concat(parts.map((p) => Buffer.from(p))));
const kind = (k) => (e) => {
  assert.ok(e instanceof WiresealError, `expected a WiresealError, got ${e}`);
  assert.equal(e.kind, k, e.message);
  return true;
};
const flip = (b, at, bit = 1) => {
  const c = Uint8Array.from(b);
  c[at] ^= bit;
  return c;
};
const random = (n) => crypto.getRandomValues(new Uint8Array(n));

// BOLT #1's BigSize, read and written here (not by the package).
function readBigSize(b, at) {
  const f = b[at];
  if (f < 0xfd) return [f, at + 1];
  const n = f === 0xfd ? 2 : f === 0xfe ? 4 : 8;
  let v = 0;
  for (let i = 1; i <= n; i++) v = v * 256 + b[at + i];
  return [v, at + 1 + n];
}
function bigSize(n) {
  if (n < 0xfd) return [n];
  if (n <= 0xffff) return [0xfd, n >> 8, n & 0xff];
  if (n <= 0xffffffff) return [0xfe, ...[24, 16, 8, 0].map((s) => (n >>> s) & 0xff)];
  throw new Error('not needed here');
}
/** A hop payload without its BigSize length prefix. */
function stripBigSize(b) {
  const [n, at] = readBigSize(b, 0);
  assert.equal(b.length, at + n);
  return b.subarray(at);
}
/** A TLV record from BOLT #1. */
const record = (type, value) => Uint8Array.from([...bigSize(type), ...bigSize(value.length), ...value]);
/** A TLV stream's records by type. */
function tlvs(b) {
  const out = new Map();
  let at = 0;
  while (at < b.length) {
    const [t, a1] = readBigSize(b, at);
    const [n, a2] = readBigSize(b, a1);
    out.set(t, b.subarray(a2, a2 + n));
    at = a2 + n;
  }
  return out;
}

// secp256k1 from noble: the BOLT #4 key schedule, computed independently.
const { Point } = secp256k1;
const N = Point.Fn.ORDER;
const scalar = (b) => BigInt(`0x${Buffer.from(b).toString('hex')}`) % N;
/** SHA-256 of the compressed ECDH point: BOLT #4's shared secret. */
const ecdh = (priv, pub) => sha256(secp256k1.getSharedSecret(priv, pub, true));
/** The next hop's ephemeral key: E · SHA-256(E ‖ ss). */
const nextEphemeral = (e, ss) => Point.fromBytes(e).multiply(scalar(sha256(cat(e, ss)))).toBytes(true);

const vectorHops = () => ONION.generate.hops.map((h) => [hx(h.pubkey), stripBigSize(hx(h.payload))]);
const errorSecrets = () => ERROR.generate.hops.map((h) => hx(h.hop_shared_secret));
/** Hold times in path order (the vector lists them as nodes return them). */
const holdMs = () => [...ATTR.htlc_hold_time].reverse().map((t) => t * 100);

test('the index re-exports the module; constants match the behaviour', () => {
  assert.equal(fromIndex.peel, sphinx.peel);
  assert.equal(sphinx.onionLen('payment'), sphinx.PAYMENT_ONION_LEN);
  assert.equal(sphinx.onionLen(sphinx.PAYMENT_AREA), sphinx.PAYMENT_ONION_LEN);
  assert.equal(sphinx.PAYMENT_ONION_LEN, hx(ONION.onion).length);
  assert.equal(sphinx.onionLen('message-large'), 32834);
  assert.equal(sphinx.onionLen(sphinx.MESSAGE_AREA_LARGE), 32834);
  assert.equal(sphinx.ATTRIBUTION_LEN, hx(ATTR.success[0].attribution_data).length);
  const [s] = errorSecrets();
  assert.equal(sphinx.failureWrap(s, new Uint8Array(sphinx.MAX_RETURN_LEN + 5)).packet.length, sphinx.MAX_RETURN_LEN);
  const ok = sphinx.fulfillRelay(s, { payload: new Uint8Array(sphinx.MAX_PAYLOAD_LEN) });
  assert.equal(ok.payload.length, sphinx.MAX_PAYLOAD_LEN);
  assert.throws(() => sphinx.fulfillRelay(s, { payload: new Uint8Array(sphinx.MAX_PAYLOAD_LEN + 1) }), kind('too_long'));
});

test('areas and paddings follow the shared table (vectors/sphinx/driver_cases.json)', () => {
  const key = new Uint8Array(32).fill(0x41);
  const hops = [[sphinx.publicKeyOf(key), Uint8Array.of(1, 2)]];
  for (const c of CASES.areas) {
    if (c.error) {
      assert.throws(() => sphinx.build(hops, new Uint8Array(0), { area: c.text }), (e) => {
        kind(c.error)(e);
        assert.match(e.message, /`payment` \(1300 bytes\) or `message-large` \(32768 bytes\)/);
        return true;
      });
      assert.throws(() => sphinx.onionLen(c.text), kind(c.error));
    } else {
      assert.equal(sphinx.build(hops, new Uint8Array(0), { area: c.text }).onion.length, c.onion_len);
      assert.equal(sphinx.buildWithSessionKey(key, hops, new Uint8Array(0), { area: c.text }).onion.length, c.onion_len);
    }
  }
  for (const c of CASES.paddings) {
    if (c.error) {
      assert.throws(() => sphinx.build(hops, new Uint8Array(0), { padding: c.text }), (e) => {
        kind(c.error)(e);
        assert.match(e.message, /`deterministic` or `random`/);
        return true;
      });
    } else {
      assert.equal(sphinx.build(hops, new Uint8Array(0), { padding: c.text }).onion.length, 1366);
    }
  }
  for (const bad of [1301, 0, -1300, 1300.5, Number.NaN]) assert.throws(() => sphinx.onionLen(bad), kind('invalid_input'));
});

test('build with the vector session key is the onion-test.json onion; secrets are onion-error-test.json\'s', () => {
  const g = ONION.generate;
  const key = hx(g.session_key);
  const built = sphinx.buildWithSessionKey(key, vectorHops(), hx(g.associated_data));
  assert.deepEqual(built.onion, hx(ONION.onion));
  const same = sphinx.buildWithSessionKey(key, vectorHops(), hx(g.associated_data), { padding: 'deterministic', area: 'payment' });
  assert.deepEqual(same.onion, built.onion);
  assert.deepEqual(built.sharedSecrets, errorSecrets());
  // noble: the first ephemeral key is the session key's public key, and the
  // first shared secret its ECDH with the first hop.
  assert.deepEqual(built.onion.subarray(1, 34), secp256k1.getPublicKey(key, true));
  assert.deepEqual(ecdh(key, vectorHops()[0][0]), built.sharedSecrets[0]);
  // Random padding changes the packet, not what the hops read.
  const r = sphinx.buildWithSessionKey(key, vectorHops(), hx(g.associated_data), { padding: 'random' });
  assert.notDeepEqual(r.onion, built.onion);
  assert.deepEqual(sphinx.peel(hx(ONION.decode[0]), r.onion, hx(g.associated_data)).payload, vectorHops()[0][1]);
});

test('peel the vector hop by hop; each ephemeral key and secret checked with noble', () => {
  let onion = hx(ONION.onion);
  const ad = hx(ONION.generate.associated_data);
  const hops = vectorHops();
  ONION.decode.forEach((k, i) => {
    const key = hx(k);
    const p = sphinx.peel(key, onion, ad);
    assert.deepEqual(p.payload, hops[i][1]);
    assert.equal(p.isFinal, i === hops.length - 1);
    const e = onion.subarray(1, 34);
    assert.deepEqual(p.sharedSecret, ecdh(key, e));
    assert.deepEqual(p.sharedSecret, hx(ERROR.generate.hops[i].hop_shared_secret));
    assert.deepEqual(sphinx.hopSharedSecret(key, e), p.sharedSecret);
    if (!p.isFinal) assert.deepEqual(p.nextOnion.subarray(1, 34), nextEphemeral(e, p.sharedSecret));
    onion = p.nextOnion;
  });
  assert.equal(onion, undefined);
});

test('20 hops: build (fresh session key) and peel at every hop, checked with noble', () => {
  const keys = Array.from({ length: 20 }, () => secp256k1.utils.randomSecretKey());
  // 20 frames of 1 + len + 32 bytes fit in 1300: len up to 32.
  const hops = keys.map((k, i) => [secp256k1.getPublicKey(k, true), random(1 + ((i * 7) % 32))]);
  const ad = random(32);
  const { onion, sharedSecrets } = sphinx.build(hops, ad);
  assert.equal(onion.length, 1366);
  assert.equal(onion[0], 0);
  assert.equal(sharedSecrets.length, 20);
  assert.notDeepEqual(sphinx.build(hops, ad).onion.subarray(1, 34), onion.subarray(1, 34), 'a fresh session key each time');
  let o = onion;
  for (let i = 0; i < 20; i++) {
    const e = o.subarray(1, 34);
    assert.ok(secp256k1.utils.isValidPublicKey(e, true));
    const p = sphinx.peel(keys[i], o, ad);
    assert.deepEqual(p.payload, hops[i][1]);
    assert.deepEqual(p.sharedSecret, sharedSecrets[i]);
    assert.deepEqual(p.sharedSecret, ecdh(keys[i], e));
    assert.equal(p.isFinal, i === 19);
    // A hop's onion is for that hop only.
    assert.throws(() => sphinx.peel(keys[(i + 1) % 20], o, ad), kind('auth'));
    if (i < 19) {
      assert.equal(p.nextOnion.length, 1366);
      assert.deepEqual(p.nextOnion.subarray(1, 34), nextEphemeral(e, p.sharedSecret));
    }
    o = p.nextOnion;
  }
  // A 21-frame route of the same frames does not fit... 1300 bytes hold
  // 20 frames of 65: 21 are too long.
  const big = Array.from({ length: 21 }, (_, i) => [hops[i % 20][0], new Uint8Array(32)]);
  assert.throws(() => sphinx.build(big, ad), kind('too_long'));
});

test('onion message (message-large): build and peel', () => {
  const k = secp256k1.utils.randomSecretKey();
  const payload = cat(Uint8Array.of(2, 1, 1), new Uint8Array(2000), Uint8Array.of(1));
  const { onion } = sphinx.build([[sphinx.publicKeyOf(k), payload]], new Uint8Array(0), { area: 'message-large' });
  assert.equal(onion.length, sphinx.onionLen('message-large'));
  assert.throws(() => sphinx.peel(k, onion, new Uint8Array(0)), kind('too_long'));
  const p = sphinx.peel(k, onion, new Uint8Array(0), { message: true });
  assert.ok(p.isFinal);
  assert.deepEqual(p.payload, payload);
});

test('failure vector (onion-error-test.json): create, wrap, unwrap', () => {
  const secrets = errorSecrets();
  // The vector predates attribution data: its nodes act without it.
  const f = sphinx.failureCreate(secrets[4], hx(ERROR.generate.failure_message), { attribution: false });
  assert.equal(f.attributionData, undefined);
  let packet = f.packet;
  for (const s of secrets.slice(0, 4).reverse()) packet = sphinx.failureWrap(s, packet, { attribution: false }).packet;
  assert.deepEqual(packet, hx(ERROR.errorpacket));
  let u = sphinx.failureUnwrap(secrets, packet);
  assert.deepEqual({ ...u }, { hop: 5, message: hx('2002'), holdTimesMs: [], attribution: 'absent', blamedHop: undefined });
  u = sphinx.failureUnwrap(secrets, flip(packet, 40));
  assert.deepEqual([u.hop, u.message, u.attribution, u.blamedHop], [undefined, undefined, 'absent', 1]);
});

test('attributable failure and success vectors (attributable-error-test.json)', () => {
  const secrets = errorSecrets();
  const hold = holdMs();
  assert.deepEqual(ATTR.hops.map((h) => h.pubkey), ERROR.generate.hops.map((h) => h.pubkey));
  const steps = new Map(ATTR.returning.map((s) => [s.node, s]));
  assert.deepEqual(hx(ATTR.create.shared_secret), secrets[4]);
  // The failing node pads its message to 1024 bytes (the library pads to
  // 256): the walk back starts from the packet it sent.
  let packet = hx(steps.get(4).error_packet);
  let attributionData = hx(steps.get(4).attribution_data);
  for (const node of [3, 2, 1, 0]) {
    ({ packet, attributionData } = sphinx.failureWrap(secrets[node], packet, { attributionData, holdTimeMs: hold[node] }));
    assert.deepEqual(packet, hx(steps.get(node).error_packet), `node ${node}`);
    assert.deepEqual(attributionData, hx(steps.get(node).attribution_data), `node ${node}`);
  }
  const u = sphinx.failureUnwrap(secrets, packet, attributionData);
  const payload = hx(ATTR.create.payload);
  const len = (payload[0] << 8) | payload[1];
  assert.equal(u.hop, 5);
  assert.deepEqual(u.message, hx(ATTR.encoded_failure_message).subarray(0, len));
  assert.deepEqual(u.holdTimesMs, [500, 400, 300, 200, 100]);
  assert.deepEqual([u.attribution, u.blamedHop], ['valid', undefined]);
  // Success: each node's fulfill attribution data, then the hold times.
  let data;
  for (const s of ATTR.success) {
    data = sphinx.fulfillWrap(secrets[s.node], { attributionData: data, holdTimeMs: hold[s.node] });
    assert.deepEqual(data, hx(s.attribution_data), `node ${s.node}`);
  }
  const h = sphinx.fulfillUnwrap(secrets, data);
  assert.deepEqual([h.holdTimesMs, h.attribution, h.blamedHop], [[500, 400, 300, 200, 100], 'valid', undefined]);
  assert.equal(h.payloadStatus, 'absent');
  assert.equal(sphinx.fulfillUnwrap(secrets).attribution, 'absent');
  assert.equal(sphinx.fulfillUnwrap(secrets, undefined).attribution, 'absent');
  // A changed byte breaks it at the first hop.
  assert.deepEqual(sphinx.fulfillUnwrap(secrets, flip(data, 3)).attribution, 'broken');
});

test('attribution blames garbling and a hop without attribution support', () => {
  const secrets = Array.from({ length: 6 }, () => random(32));
  let f = sphinx.failureCreate(secrets[5], Uint8Array.of(0x40, 0x0f), { holdTimeMs: 1234 });
  assert.equal(f.attributionData.length, sphinx.ATTRIBUTION_LEN);
  let { packet, attributionData } = f;
  for (const i of [4, 3, 2]) ({ packet, attributionData } = sphinx.failureWrap(secrets[i], packet, { attributionData, holdTimeMs: 100 * i }));
  // Hop 2 (index 1) has no attribution support; hop 1 starts a new block.
  packet = sphinx.failureWrap(secrets[1], packet, { attribution: false }).packet;
  f = sphinx.failureWrap(secrets[0], packet, { holdTimeMs: 99 });
  let u = sphinx.failureUnwrap(secrets, f.packet, f.attributionData);
  assert.deepEqual({ ...u }, { hop: 6, message: Uint8Array.of(0x40, 0x0f), holdTimesMs: [0], attribution: 'broken', blamedHop: 2 });
  // Garbled on the link into hop 1: nothing authenticates, hop 1 is blamed.
  u = sphinx.failureUnwrap(secrets, flip(f.packet, 100, 4), f.attributionData);
  assert.deepEqual([u.hop, u.message, u.attribution, u.blamedHop], [undefined, undefined, 'broken', 1]);
  // Attribution data of the wrong length: a result, blaming hop 1.
  u = sphinx.failureUnwrap(secrets, f.packet, f.attributionData.subarray(0, -1));
  assert.deepEqual([u.hop, u.attribution, u.blamedHop], [6, 'broken', 1]);
  assert.throws(() => sphinx.failureWrap(secrets[0], f.packet, { attributionData: new Uint8Array(919) }), kind('truncated'));
  assert.throws(() => sphinx.failureWrap(secrets[0], f.packet, { attributionData: new Uint8Array(921) }), kind('too_long'));
  assert.throws(() => sphinx.failureWrap(secrets[0], new Uint8Array(35)), kind('truncated'));
  assert.throws(() => sphinx.fulfillWrap(secrets[0], { attributionData: new Uint8Array(919) }), kind('truncated'));
});

test('failureUnwrapBatch equals unwrapping one at a time', () => {
  const items = [];
  for (let i = 0; i < 30; i++) {
    const secrets = Array.from({ length: 1 + (i % 27) }, () => random(32));
    const at = i % secrets.length;
    let { packet, attributionData } = sphinx.failureCreate(secrets[at], Uint8Array.of(i, 1), { holdTimeMs: i * 100 });
    for (const s of secrets.slice(0, at).reverse()) ({ packet, attributionData } = sphinx.failureWrap(s, packet, { attributionData, holdTimeMs: 500 }));
    if (i % 5 === 2) packet = flip(packet, 60);
    items.push([secrets, packet, i % 4 ? attributionData : undefined]);
  }
  items.push([items[0][0], new Uint8Array(10), undefined]);
  const res = sphinx.failureUnwrapBatch(items);
  assert.equal(res.length, items.length);
  items.forEach(([secrets, packet, data], i) => {
    let one;
    try {
      one = sphinx.failureUnwrap(secrets, packet, data);
    } catch (e) {
      kind(e.kind)(res[i]);
      return;
    }
    assert.deepEqual({ ...res[i] }, { ...one });
  });
  assert.ok(res.filter((r) => r.hop !== undefined).length >= 20);
});

test('peelBatch equals peeling one at a time', () => {
  const node = secp256k1.utils.randomSecretKey();
  const pub = sphinx.publicKeyOf(node);
  const items = [];
  for (let i = 0; i < 40; i++) {
    const ad = random(32);
    let { onion } = sphinx.build([[pub, Uint8Array.of(2, 1, i)]], ad);
    if (i % 7 === 3) onion = flip(onion, 100);
    if (i % 11 === 5) onion = onion.subarray(0, -3);
    items.push([onion, ad]);
  }
  const res = sphinx.peelBatch(node, items);
  let ok = 0;
  items.forEach(([o, ad], i) => {
    let one;
    try {
      one = sphinx.peel(node, o, ad);
    } catch (e) {
      kind(e.kind)(res[i]);
      return;
    }
    ok++;
    assert.deepEqual({ ...res[i] }, { ...one });
    assert.deepEqual(res[i].payload, Uint8Array.of(2, 1, i));
  });
  assert.equal(ok, 40 - 6 - 4 + 1);
});

test('publicKeyOf and hopSharedSecret match noble', () => {
  for (let i = 0; i < 20; i++) {
    const k = secp256k1.utils.randomSecretKey();
    assert.deepEqual(sphinx.publicKeyOf(k), secp256k1.getPublicKey(k, true));
    const other = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    assert.deepEqual(sphinx.hopSharedSecret(k, other), ecdh(k, other));
    // An uncompressed ephemeral key is the same point.
    assert.deepEqual(sphinx.hopSharedSecret(k, Point.fromBytes(other).toBytes(false)), ecdh(k, other));
  }
});

test('fulfillment payload padding examples', () => {
  assert.equal(PADDING.tests.length, 8);
  for (const t of PADDING.tests) {
    const records = cat(...t.input_tlvs.map((r) => record(r.type, hx(r.value))));
    assert.deepEqual(sphinx.fulfillmentPadded(records), hx(t.encoded_tlv_stream), t.comment);
  }
  assert.throws(() => sphinx.fulfillmentPadded(record(1, Uint8Array.of(0))), kind('invalid_input'));
  assert.throws(() => sphinx.fulfillmentPadded(Uint8Array.of(5, 9, 1)), kind('malformed'));
});

test('fulfillment payload attribution vectors', () => {
  const secrets = errorSecrets();
  const hold = holdMs();
  const lines = readFileSync(vector('bolt04/fulfillment-payload-attribution-vectors.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l);
  const steps = [];
  for (let i = 0; i < lines.length; i += 4) steps.push([hx(lines[i + 1]), hx(lines[i + 3])]);
  assert.equal(steps.length, 5);
  const records = record(65537, Uint8Array.of(7, 8, 9));
  let f = sphinx.fulfillCreate(secrets[4], { holdTimeMs: hold[4], records });
  assert.equal(f.payload.length, 272);
  assert.deepEqual([f.payload, f.attributionData], steps[0]);
  for (const node of [3, 2, 1, 0]) {
    f = sphinx.fulfillRelay(secrets[node], { payload: f.payload, attributionData: f.attributionData, holdTimeMs: hold[node] });
    assert.deepEqual([f.payload, f.attributionData], steps[4 - node], `node ${node}`);
  }
  let h = sphinx.fulfillUnwrap(secrets, f.attributionData, { payload: f.payload });
  assert.deepEqual({ ...h }, {
    holdTimesMs: [500, 400, 300, 200, 100], attribution: 'valid', blamedHop: undefined,
    payloadStatus: 'valid', payload: records, payloadError: undefined,
  });
  h = sphinx.fulfillUnwrap(secrets, f.attributionData, { payload: flip(f.payload, 7) });
  assert.deepEqual([h.attribution, h.blamedHop, h.payloadStatus, h.payload], ['broken', 1, 'ignored', undefined]);
  assert.match(h.payloadError, /authentication failed/);
  assert.equal(sphinx.fulfillUnwrap(secrets, f.attributionData).payloadStatus, 'absent');
});

/** The blinded payment vector's hop secrets: Carol, Dave and Eve peel with
 * the blinded key their path key gives. */
function blindedRoute() {
  const ad = hx(BLINDED.generate.associated_data);
  const dec = BLINDED.decrypt.hops;
  return dec.map((h, i) => {
    let key = hx(h.node_privkey);
    if (i >= 2) key = sphinx.unblind(key, hx(dec[i - 1].next_path_key)).blindedPrivateKey;
    return sphinx.peel(key, hx(h.onion), ad).sharedSecret;
  });
}

test('blinded payment vector: build, then peel and unblind along the path', () => {
  const g = BLINDED.generate;
  const ad = hx(g.associated_data);
  const hops = g.full_route.hops.map((h) => [hx(h.pubkey), stripBigSize(hx(h.payload))]);
  const built = sphinx.buildWithSessionKey(hx(g.session_key), hops, ad);
  assert.deepEqual(built.onion, hx(g.onion));
  const dec = BLINDED.decrypt.hops;
  assert.deepEqual(built.onion, hx(dec[0].onion));
  let pathKey;
  dec.forEach((h, i) => {
    const node = hx(h.node_privkey);
    let key = node;
    let u;
    if (pathKey) {
      u = sphinx.unblind(node, pathKey);
      key = u.blindedPrivateKey;
      // The blinded node id the sender encrypted to.
      assert.deepEqual(secp256k1.getPublicKey(key, true), hops[i][0]);
    }
    const p = sphinx.peel(key, hx(h.onion), ad);
    assert.deepEqual(p.payload, hops[i][1]);
    assert.deepEqual(p.sharedSecret, built.sharedSecrets[i]);
    const t = tlvs(p.payload);
    if (t.has(12)) {
      // Bob, the introduction node: his path key is in his payload.
      assert.equal(u, undefined);
      u = sphinx.unblind(node, t.get(12));
    }
    if (u) {
      const data = u.decrypt(t.get(10));
      assert.deepEqual(u.nextPathKey(data), hx(h.next_path_key), h.alias);
      assert.throws(() => u.decrypt(flip(t.get(10), 0)), kind('auth'));
      pathKey = hx(h.next_path_key);
      u.free();
    }
    assert.equal(p.isFinal, i === dec.length - 1);
    if (!p.isFinal) assert.deepEqual(p.nextOnion, hx(dec[i + 1].onion));
  });
  assert.deepEqual(blindedRoute(), built.sharedSecrets);
});

test('blinded hops add no attribution data; the origin reads it up to Bob', () => {
  const s = blindedRoute();
  // Dave (inside the blinded path) fails; Carol passes it back; Bob (the
  // introduction node, no path key with his HTLC) and Alice add theirs.
  let f = sphinx.failureCreate(s[3], Uint8Array.of(0x20, 0x02), { holdTimeMs: 900, blinded: true });
  assert.equal(f.attributionData, undefined);
  f = sphinx.failureWrap(s[2], f.packet, { holdTimeMs: 800, blinded: true });
  assert.equal(f.attributionData, undefined);
  f = sphinx.failureWrap(s[1], f.packet, { holdTimeMs: 700 });
  f = sphinx.failureWrap(s[0], f.packet, { attributionData: f.attributionData, holdTimeMs: 600 });
  let u = sphinx.failureUnwrap(s, f.packet, f.attributionData, { blindedHops: 3 });
  assert.deepEqual({ ...u }, { hop: 4, message: Uint8Array.of(0x20, 0x02), holdTimesMs: [600, 700], attribution: 'valid', blamedHop: undefined });
  u = sphinx.failureUnwrap(s, f.packet, f.attributionData);
  assert.deepEqual([u.attribution, u.blamedHop], ['broken', 3]);
  assert.throws(() => sphinx.failureUnwrap(s, f.packet, f.attributionData, { blindedHops: 6 }), kind('invalid_input'));
  // A fulfill with a payload: the blinded hops obfuscate it, add no data.
  let r = sphinx.fulfillCreate(s[4], { holdTimeMs: 1000, records: Uint8Array.of(3, 1, 0x2a), blinded: true });
  assert.equal(r.attributionData, undefined);
  for (const [i, blinded] of [[3, true], [2, true], [1, false], [0, false]]) {
    r = sphinx.fulfillRelay(s[i], { payload: r.payload, attributionData: r.attributionData, holdTimeMs: 100 * (i + 1), blinded });
  }
  const h = sphinx.fulfillUnwrap(s, r.attributionData, { payload: r.payload, blindedHops: 3 });
  assert.deepEqual([h.holdTimesMs, h.attribution, h.blamedHop], [[100, 200], 'valid', undefined]);
  assert.deepEqual([h.payloadStatus, h.payload], ['valid', Uint8Array.of(3, 1, 0x2a)]);
});

test('route-blinding vectors: blind paths (vector session keys) and unblind each hop', () => {
  const gen = ROUTE_BLINDING.generate.hops;
  // Bob made Bob -> Carol, Eve made Dave -> Eve, each with its session key.
  for (const [from, to] of [[0, 2], [2, 4]]) {
    const part = gen.slice(from, to);
    const path = sphinx.blindPathWithSessionKey(hx(part[0].session_key), part.map((h) => [hx(h.node_id), hx(h.encoded_tlvs)]));
    assert.deepEqual(path.firstPathKey, hx(part[0].path_key));
    assert.deepEqual(path.blindedNodeIds, part.map((h) => hx(h.blinded_node_id)));
    assert.deepEqual(path.encryptedData, part.map((h) => hx(h.encrypted_data)));
  }
  ROUTE_BLINDING.unblind.hops.forEach((h, i) => {
    const u = sphinx.unblind(hx(h.node_privkey), hx(h.path_key));
    assert.deepEqual(u.blindedPrivateKey, hx(h.blinded_privkey));
    assert.deepEqual(secp256k1.getPublicKey(u.blindedPrivateKey, true), hx(ROUTE_BLINDING.route.hops[i].blinded_node_id));
    const data = u.decrypt(hx(ROUTE_BLINDING.route.hops[i].encrypted_data));
    assert.deepEqual(data, hx(h.decrypted_data));
    if (h.next_path_key_override) {
      assert.deepEqual(u.nextPathKey(), hx(h.next_path_key));
      assert.deepEqual(u.nextPathKey(data), hx(h.next_path_key_override));
    } else {
      assert.deepEqual(u.nextPathKey(), hx(h.next_path_key));
      assert.deepEqual(u.nextPathKey(data), hx(h.next_path_key));
    }
    assert.throws(() => u.decrypt(new Uint8Array(3)), kind('truncated'));
    assert.throws(() => u.decrypt('abc'), kind('invalid_input'));
    assert.throws(() => u.nextPathKey(Uint8Array.of(8, 33, 1)), kind('malformed'));
    assert.throws(() => u.nextPathKey(cat(Uint8Array.of(8, 33, 5), new Uint8Array(32))), kind('invalid_key'));
  });
});

test('blindPath (fresh session key) round trip', () => {
  const nodes = Array.from({ length: 3 }, () => secp256k1.utils.randomSecretKey());
  const data = [cat(Uint8Array.of(4, 33), new Uint8Array(33).fill(2)), cat(Uint8Array.of(4, 33), new Uint8Array(33).fill(3)), Uint8Array.of(6, 3, 97, 98, 99)];
  const path = sphinx.blindPath(nodes.map((n, i) => [sphinx.publicKeyOf(n), data[i]]));
  let pathKey = path.firstPathKey;
  nodes.forEach((n, i) => {
    const u = sphinx.unblind(n, pathKey);
    assert.deepEqual(sphinx.publicKeyOf(u.blindedPrivateKey), path.blindedNodeIds[i]);
    assert.deepEqual(u.decrypt(path.encryptedData[i]), data[i]);
    assert.throws(() => u.decrypt(flip(path.encryptedData[i], path.encryptedData[i].length - 1)), kind('auth'));
    pathKey = u.nextPathKey(data[i]);
  });
  assert.throws(() => sphinx.blindPath([]), kind('invalid_input'));
});

test('onion message vector (blinded-onion-message-onion-test.json): peel with blinded keys', () => {
  const dec = MESSAGE.decrypt.hops;
  const ids = MESSAGE.route.hops.map((h) => hx(h.blinded_node_id));
  /** onion_message: type 513, path_key, u16 length, onion. */
  const parse = (m) => {
    assert.equal((m[0] << 8) | m[1], 513);
    const len = (m[35] << 8) | m[36];
    assert.equal(m.length, 37 + len);
    return { pathKey: m.subarray(2, 35), onion: m.subarray(37) };
  };
  assert.deepEqual(parse(hx(dec[0].onion_message)).onion, hx(MESSAGE.onionmessage.onion_message_packet));
  dec.forEach((h, i) => {
    const { pathKey, onion } = parse(hx(h.onion_message));
    const u = sphinx.unblind(hx(h.privkey), pathKey);
    assert.deepEqual(sphinx.publicKeyOf(u.blindedPrivateKey), ids[i]);
    const p = sphinx.peel(u.blindedPrivateKey, onion, new Uint8Array(0), { message: true });
    const t = tlvs(p.payload);
    const data = u.decrypt(t.get(4));
    assert.equal(p.isFinal, i === dec.length - 1, h.alias);
    if (p.isFinal) {
      assert.deepEqual(t.get(1), hx(h.tlvs.unknown_tag_1));
      assert.deepEqual(t.get(4), hx(h.tlvs.encrypted_recipient_data));
    } else {
      assert.deepEqual(tlvs(data).get(4), hx(h.next_node_id));
      const next = parse(hx(dec[i + 1].onion_message));
      assert.deepEqual(u.nextPathKey(data), next.pathKey);
      assert.deepEqual(p.nextOnion, next.onion);
    }
  });
});

test('return packets over 32 KiB are truncated', () => {
  const secrets = errorSecrets();
  const long = new Uint8Array(256 * 129).map((_, i) => i & 0xff);
  const f = sphinx.failureWrap(secrets[1], long);
  assert.equal(f.packet.length, sphinx.MAX_RETURN_LEN);
  const same = sphinx.failureWrap(secrets[1], long.subarray(0, 32768));
  assert.deepEqual([f.packet, f.attributionData], [same.packet, same.attributionData]);
  assert.equal(sphinx.failureWrap(secrets[1], long, { attribution: false }).packet.length, 32768);
});

test('malformed: the update_fail_malformed_htlc reply, its hash checked with noble', () => {
  const ad = hx(ONION.generate.associated_data);
  const keys = ONION.decode.map(hx);
  let onion = hx(ONION.onion);
  assert.equal(sphinx.malformed(keys[0], onion, ad), undefined);
  for (const k of keys.slice(0, 4)) onion = sphinx.peel(k, onion, ad).nextOnion;
  assert.equal(sphinx.malformed(keys[4], onion, ad), undefined);
  const changed = flip(onion, 700, 0x80);
  const m = sphinx.malformed(keys[4], changed, ad);
  const digest = sha256(changed);
  assert.deepEqual({ ...m }, { failureCode: 0xc005, failure: 'invalid_onion_hmac', sha256OfOnion: digest, message: cat(Uint8Array.of(0xc0, 0x05), digest) });
  assert.equal(sphinx.malformed(keys[4], cat(Uint8Array.of(1), onion.subarray(1)), ad).failure, 'invalid_onion_version');
  const badKey = cat(onion.subarray(0, 1), Uint8Array.of(5), onion.subarray(2));
  assert.equal(sphinx.malformed(keys[4], badKey, ad).failure, 'invalid_onion_key');
  // The failing hop's message goes into an ordinary failure.
  const secrets = errorSecrets();
  let f = sphinx.failureCreate(secrets[3], m.message);
  for (const s of secrets.slice(0, 3).reverse()) f = sphinx.failureWrap(s, f.packet, { attributionData: f.attributionData });
  const u = sphinx.failureUnwrap(secrets, f.packet, f.attributionData);
  assert.deepEqual([u.hop, u.message, u.attribution], [4, m.message, 'valid']);
  assert.throws(() => sphinx.malformed(keys[4], onion.subarray(0, 100), ad), kind('truncated'));
  // Inside a blinded path: the path key gives the key that peels.
  const dec = BLINDED.decrypt.hops;
  const carol = dec[2];
  const bad = flip(hx(carol.onion), 500);
  const opts = { pathKey: hx(dec[1].next_path_key) };
  assert.equal(sphinx.malformed(hx(carol.node_privkey), hx(carol.onion), hx(BLINDED.generate.associated_data), opts), undefined);
  assert.equal(sphinx.malformed(hx(carol.node_privkey), bad, hx(BLINDED.generate.associated_data), opts).failure, 'invalid_onion_hmac');
  assert.throws(() => sphinx.malformed(hx(carol.node_privkey), bad, new Uint8Array(0), { pathKey: new Uint8Array(33) }), kind('invalid_key'));
});

test('peel: truncated, oversized, wrong version, bad key, tampered → the right kind', () => {
  const onion = hx(ONION.onion);
  const ad = hx(ONION.generate.associated_data);
  const key = hx(ONION.decode[0]);
  assert.throws(() => sphinx.peel(key, onion, flip(ad, 31)), kind('auth'));
  for (const at of [40, 700, 1365]) assert.throws(() => sphinx.peel(key, flip(onion, at, 0x10), ad), kind('auth'));
  assert.throws(() => sphinx.peel(key, onion.subarray(0, -1), ad), kind('truncated'));
  assert.throws(() => sphinx.peel(key, new Uint8Array(0), ad), kind('truncated'));
  assert.throws(() => sphinx.peel(key, cat(onion, Uint8Array.of(0)), ad), kind('too_long'));
  assert.throws(() => sphinx.peel(key, cat(Uint8Array.of(1), onion.subarray(1)), ad), kind('unsupported'));
  assert.throws(() => sphinx.peel(key, cat(onion.subarray(0, 1), Uint8Array.of(5), onion.subarray(2)), ad), kind('invalid_key'));
  assert.throws(() => sphinx.peel(key, onion.subarray(0, 1000), ad, { message: true }), kind('truncated'));
  assert.throws(() => sphinx.peel(key, cat(onion, new Uint8Array(1000)), ad, { message: true }), kind('unsupported'));
  assert.throws(() => sphinx.peel(key, new Uint8Array(40000), ad, { message: true }), kind('too_long'));
  // Node keys: zero, the group order, the wrong length.
  assert.throws(() => sphinx.peel(new Uint8Array(32), onion, ad), kind('invalid_key'));
  assert.throws(() => sphinx.peel(hx('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'), onion, ad), kind('invalid_key'));
  assert.throws(() => sphinx.peel(key.subarray(0, 31), onion, ad), kind('invalid_key'));
  assert.throws(() => sphinx.peel(cat(key, Uint8Array.of(0)), onion, ad), kind('invalid_key'));
});

test('build and blind: bad keys, empty routes and payloads, oversized routes', () => {
  const key = hx(ONION.decode[0]);
  const pub = sphinx.publicKeyOf(key);
  const ad = new Uint8Array(32);
  assert.throws(() => sphinx.build([[cat(Uint8Array.of(5), new Uint8Array(32)), Uint8Array.of(1)]], ad), kind('invalid_key'));
  assert.throws(() => sphinx.build([[pub.subarray(0, 32), Uint8Array.of(1)]], ad), kind('invalid_key'));
  assert.throws(() => sphinx.build([], ad), kind('invalid_input'));
  assert.throws(() => sphinx.build([[pub, Uint8Array.of(1)], [pub, new Uint8Array(0)]], ad), (e) => kind('invalid_input')(e) && /hop 2: empty payload/.test(e.message));
  assert.throws(() => sphinx.build([[pub, new Uint8Array(1300)]], ad), kind('too_long'));
  assert.throws(() => sphinx.buildWithSessionKey(new Uint8Array(32), [[pub, Uint8Array.of(1)]], ad), kind('invalid_key'));
  assert.throws(() => sphinx.buildWithSessionKey(key.subarray(1), [[pub, Uint8Array.of(1)]], ad), kind('invalid_key'));
  assert.throws(() => sphinx.blindPath([[new Uint8Array(33), Uint8Array.of(1)]]), kind('invalid_key'));
  assert.throws(() => sphinx.unblind(key, new Uint8Array(33)), kind('invalid_key'));
  assert.throws(() => sphinx.unblind(new Uint8Array(32), pub), kind('invalid_key'));
  assert.throws(() => sphinx.publicKeyOf(new Uint8Array(32)), kind('invalid_key'));
  assert.throws(() => sphinx.hopSharedSecret(key, new Uint8Array(33)), kind('invalid_key'));
  // Shared secrets must be 32 bytes.
  assert.throws(() => sphinx.failureCreate(new Uint8Array(31), Uint8Array.of(1, 2)), kind('invalid_key'));
  assert.throws(() => sphinx.failureUnwrap([new Uint8Array(32), new Uint8Array(33)], new Uint8Array(300)), kind('invalid_key'));
  assert.throws(() => sphinx.failureUnwrap([], new Uint8Array(300)), kind('invalid_input'));
  assert.throws(() => sphinx.fulfillUnwrap([]), kind('invalid_input'));
  assert.throws(() => sphinx.fulfillCreate(new Uint8Array(32), { records: record(1, Uint8Array.of(0)) }), kind('invalid_input'));
});

test('wrong argument types are invalid_input, never a trap', () => {
  const key = hx(ONION.decode[0]);
  const onion = hx(ONION.onion);
  const ad = hx(ONION.generate.associated_data);
  const pub = sphinx.publicKeyOf(key);
  const ss = new Uint8Array(32);
  const hops = [[pub, Uint8Array.of(1)]];
  const bads = ['abc', 7, [1, 2, 3], undefined, null, {}, new Uint16Array(32)];
  const calls = (b) => [
    () => sphinx.peel(b, onion, ad),
    () => sphinx.peel(key, b, ad),
    () => sphinx.peel(key, onion, b),
    () => sphinx.build(b, ad),
    () => sphinx.build([b], ad),
    () => sphinx.build([[b, Uint8Array.of(1)]], ad),
    () => sphinx.build([[pub, b]], ad),
    () => sphinx.build(hops, b),
    () => sphinx.buildWithSessionKey(b, hops, ad),
    () => sphinx.peelBatch(b, []),
    () => sphinx.peelBatch(key, b),
    () => sphinx.peelBatch(key, [[b, ad]]),
    () => sphinx.hopSharedSecret(b, pub),
    () => sphinx.hopSharedSecret(key, b),
    () => sphinx.failureCreate(b, Uint8Array.of(1)),
    () => sphinx.failureCreate(ss, b),
    () => sphinx.failureWrap(b, new Uint8Array(300)),
    () => sphinx.failureWrap(ss, b),
    () => sphinx.failureUnwrap(b, new Uint8Array(300)),
    () => sphinx.failureUnwrap([b], new Uint8Array(300)),
    () => sphinx.failureUnwrap([ss], b),
    () => sphinx.failureUnwrapBatch(b),
    () => sphinx.failureUnwrapBatch([[[ss], b, undefined]]),
    () => sphinx.malformed(b, onion, ad),
    () => sphinx.malformed(key, b, ad),
    () => sphinx.malformed(key, onion, b),
    () => sphinx.fulfillWrap(b),
    () => sphinx.fulfillCreate(b),
    () => sphinx.fulfillRelay(b),
    () => sphinx.fulfillUnwrap(b),
    () => sphinx.fulfillUnwrap([b]),
    () => sphinx.fulfillmentPadded(b),
    () => sphinx.blindPath(b),
    () => sphinx.blindPathWithSessionKey(b, hops),
    () => sphinx.unblind(b, pub),
    () => sphinx.unblind(key, b),
    () => sphinx.publicKeyOf(b),
  ];
  for (const b of bads) {
    calls(b).forEach((f, i) => assert.throws(f, kind('invalid_input'), `call ${i} with ${String(b)}`));
  }
  // Optional bytes (undefined / null are "absent"): other types are not.
  for (const b of ['abc', 7, [1, 2], {}]) {
    assert.throws(() => sphinx.failureUnwrap([ss], new Uint8Array(300), b), kind('invalid_input'));
    assert.throws(() => sphinx.fulfillUnwrap([ss], b), kind('invalid_input'));
    assert.throws(() => sphinx.failureWrap(ss, new Uint8Array(300), { attributionData: b }), kind('invalid_input'));
    assert.throws(() => sphinx.fulfillWrap(ss, { attributionData: b }), kind('invalid_input'));
    assert.throws(() => sphinx.fulfillCreate(ss, { records: b }), kind('invalid_input'));
    assert.throws(() => sphinx.fulfillRelay(ss, { payload: b }), kind('invalid_input'));
    assert.throws(() => sphinx.fulfillUnwrap([ss], undefined, { payload: b }), kind('invalid_input'));
    assert.throws(() => sphinx.malformed(key, onion, ad, { pathKey: b }), kind('invalid_input'));
  }
  // Options: not an object, or fields of the wrong type or range.
  for (const o of [5, 'x', true]) {
    assert.throws(() => sphinx.peel(key, onion, ad, o), kind('invalid_input'));
    assert.throws(() => sphinx.build(hops, ad, o), kind('invalid_input'));
    assert.throws(() => sphinx.failureCreate(ss, Uint8Array.of(1), o), kind('invalid_input'));
  }
  for (const h of [-1, 1.5, '5', Number.NaN, Infinity, 2 ** 53 + 2]) {
    assert.throws(() => sphinx.failureCreate(ss, Uint8Array.of(1), { holdTimeMs: h }), kind('invalid_input'));
    assert.throws(() => sphinx.fulfillWrap(ss, { holdTimeMs: h }), kind('invalid_input'));
    assert.throws(() => sphinx.failureUnwrap([ss], new Uint8Array(300), undefined, { blindedHops: h }), kind('invalid_input'));
  }
  assert.throws(() => sphinx.build(hops, ad, { area: {} }), kind('invalid_input'));
  assert.throws(() => sphinx.build(hops, ad, { padding: 1 }), kind('invalid_input'));
  assert.throws(() => sphinx.peel(key, onion, ad, { message: 1 }), kind('invalid_input'));
  assert.throws(() => sphinx.failureCreate(ss, Uint8Array.of(1), { attribution: 'no' }), kind('invalid_input'));
  assert.throws(() => sphinx.fulfillCreate(ss, { blinded: 0 }), kind('invalid_input'));
  assert.throws(() => sphinx.onionLen(undefined), kind('invalid_input'));
  assert.throws(() => sphinx.onionLen([1300]), kind('invalid_input'));
  // Hops and batch items of the wrong shape.
  assert.throws(() => sphinx.build([[pub]], ad), kind('invalid_input'));
  assert.throws(() => sphinx.build([[pub, Uint8Array.of(1), Uint8Array.of(1)]], ad), kind('invalid_input'));
  assert.throws(() => sphinx.peelBatch(key, [[onion]]), kind('invalid_input'));
  assert.throws(() => sphinx.failureUnwrapBatch([[[ss], new Uint8Array(300)]]), kind('invalid_input'));
});

test('garbage in: only WiresealErrors or results, never a trap', () => {
  const key = hx(ONION.decode[0]);
  const secrets = errorSecrets();
  for (let i = 0; i < 200; i++) {
    const len = [0, 1, 35, 36, 300, 919, 920, 1365, 1366, 1367, 32834][i % 11];
    const b = random(len);
    if (len >= 1) b[0] = i % 3 === 0 ? 0 : b[0];
    for (const f of [
      () => sphinx.peel(key, b, new Uint8Array(0)),
      () => sphinx.peel(key, b, new Uint8Array(0), { message: true }),
      () => sphinx.malformed(key, b, new Uint8Array(0)),
      () => sphinx.failureUnwrap(secrets, b, b),
      () => sphinx.failureWrap(secrets[0], b, { attributionData: b }),
      () => sphinx.fulfillUnwrap(secrets, b, { payload: b }),
      () => sphinx.fulfillmentPadded(b),
      () => sphinx.unblind(key, b.subarray(0, 33)),
      () => sphinx.hopSharedSecret(key, b.subarray(0, 33)),
    ]) {
      try {
        f();
      } catch (e) {
        assert.ok(e instanceof WiresealError, `${e}`);
      }
    }
  }
});
