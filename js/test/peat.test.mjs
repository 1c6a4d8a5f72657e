// wireseal/peat against the peat-btle vectors (vectors/peat) and
// independent peers: @noble/hashes (HKDF-SHA256) and @noble/ciphers
// (ChaCha20-Poly1305) for mesh-wide frames both ways, @noble/curves
// (X25519) for per-peer frames; the policy and the case table that the
// library, the command line and Python run too (same bytes, same error
// kind and message); negative cases by kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { peat, WiresealError } from 'wireseal';
import { Genesis, MeshSealer, PeerSessions } from 'wireseal/peat';

const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b) => Buffer.from(b).toString('hex');
const load = (p) => JSON.parse(readFileSync(new URL(`../../vectors/peat/${p}`, import.meta.url)));
const VEC = load('meshwide_vectors.json');
const CASES = load('driver_cases.json');
const isKind = (kind) => (e) => {
  assert.ok(e instanceof WiresealError, `not a WiresealError: ${e}`);
  assert.equal(e.kind, kind, e.message);
  return true;
};
const NOT_BYTES = ['abc', 5, [1, 2, 3], undefined, null, {}];

// ---- the reference (peat-btle's layout: 0xAE 0x00 | nonce(12) | ct | tag(16)) ----

const refMeshKey = (meshId, secret) =>
  hkdf(sha256, secret, utf8ToBytes(meshId), utf8ToBytes('PEAT-BTLE-mesh-encryption-v1'), 32);
const refMeshSeal = (key, nonce, pt) =>
  concatBytes(Uint8Array.of(0xae, 0x00), nonce, chacha20poly1305(key, nonce).encrypt(pt));
function refMeshOpen(key, frame) {
  assert.deepEqual([frame[0], frame[1]], [0xae, 0x00]);
  return chacha20poly1305(key, frame.subarray(2, 14)).decrypt(frame.subarray(14));
}

test('peat-btle mesh-wide vectors: the reference reproduces them, MeshSealer opens them', () => {
  assert.ok(VEC.meshwide_vectors.length >= 9);
  for (const v of VEC.meshwide_vectors) {
    const secret = hex(v.secret_hex);
    const key = refMeshKey(v.mesh_id, secret);
    assert.equal(toHex(key), v.derived_key_hex);
    const frame = hex(v.frame_hex);
    assert.equal(toHex(refMeshSeal(key, hex(v.nonce_hex), hex(v.plaintext_hex))), v.frame_hex);
    assert.equal(toHex(new MeshSealer(v.mesh_id, secret).open(frame)), v.plaintext_hex);
    // Any byte modified fails, opaquely.
    for (const i of [2, 13, 14, frame.length - 1]) {
      const bad = frame.slice();
      bad[i] ^= 1;
      assert.throws(() => new MeshSealer(v.mesh_id, secret).open(bad), isKind('auth'));
    }
  }
});

test('the genesis example: mesh id, secret and mesh key', () => {
  const g = VEC.genesis_example;
  const genesis = new Genesis(g.mesh_name, hex(g.seed_hex));
  assert.equal(genesis.meshId, g.mesh_id);
  assert.equal(toHex(genesis.secret), g.encryption_secret_hex);
  assert.equal(peat.meshId(g.mesh_name, hex(g.seed_hex)), g.mesh_id);
  assert.equal(toHex(refMeshKey(g.mesh_id, genesis.secret)), g.mesh_key_hex);
  // Its sealer's frames open with noble under the vector's mesh key.
  const frame = genesis.sealer().seal(utf8ToBytes('hello mesh'));
  assert.equal(Buffer.from(refMeshOpen(hex(g.mesh_key_hex), frame)).toString(), 'hello mesh');
  assert.equal(
    Buffer.from(new MeshSealer(genesis.meshId, genesis.secret).open(frame)).toString(),
    'hello mesh',
  );
});

test('mesh-wide frames both ways with @noble/ciphers ChaCha20-Poly1305', () => {
  for (const meshId of ['DEMO', 'CBE6FC55', 'A1B2C3D4']) {
    for (const len of [0, 1, 16, 17, 255, 600]) {
      const secret = randomBytes(32);
      const key = refMeshKey(meshId, secret);
      const s = new MeshSealer(meshId, secret);
      const data = randomBytes(len);
      const frame = s.seal(data);
      assert.equal(frame.length, peat.sealedLen(len));
      assert.equal(frame.length, len + 30);
      assert.equal(toHex(refMeshOpen(key, frame)), toHex(data));
      assert.equal(toHex(s.open(refMeshSeal(key, randomBytes(12), data))), toHex(data));
    }
  }
  // Nonces are fresh: the same document twice gives two frames.
  const s = new MeshSealer('DEMO', new Uint8Array(32));
  assert.notEqual(toHex(s.seal(utf8ToBytes('x'))), toHex(s.seal(utf8ToBytes('x'))));
});

test('mesh-wide negative cases: tampered, wrong key, truncated, wrong marker, bad arguments', () => {
  const s = new MeshSealer('DEMO', new Uint8Array(32));
  const frame = s.seal(utf8ToBytes('document'));
  const bad = frame.slice();
  bad[bad.length - 1] ^= 1;
  assert.throws(() => s.open(bad), isKind('auth'));
  assert.throws(() => new MeshSealer('DEMO', new Uint8Array(32).fill(1)).open(frame), isKind('auth'));
  assert.throws(() => new MeshSealer('OTHER', new Uint8Array(32)).open(frame), isKind('auth'));
  assert.throws(() => s.open(concatBytes(Uint8Array.of(0xae, 0x00), new Uint8Array(10))), isKind('truncated'));
  assert.throws(() => s.open(frame.subarray(0, 29)), isKind('truncated'));
  assert.throws(() => s.open(new Uint8Array(0)), isKind('truncated'));
  assert.throws(() => s.open(concatBytes(Uint8Array.of(0xaf, 0x00), new Uint8Array(40))), isKind('malformed'));
  // Oversized: extra bytes after the tag are part of the ciphertext, so the tag fails.
  assert.throws(() => s.open(concatBytes(frame, Uint8Array.of(0))), isKind('auth'));
  assert.throws(() => new MeshSealer('DEMO', new Uint8Array(31)), isKind('invalid_key'));
  assert.throws(() => new MeshSealer('DEMO', new Uint8Array(33)), isKind('invalid_key'));
  for (const v of NOT_BYTES) {
    assert.throws(() => s.open(v), isKind('invalid_input'));
    assert.throws(() => s.seal(v), isKind('invalid_input'));
    assert.throws(() => new MeshSealer('DEMO', v), isKind('invalid_input'));
    assert.throws(() => new Genesis('ALPHA', v ?? 'x'), isKind('invalid_input'));
    assert.throws(() => peat.meshId('ALPHA', v), isKind('invalid_input'));
  }
  for (const v of [5, undefined, null, new Uint8Array(4), ['DEMO']]) {
    assert.throws(() => new MeshSealer(v, new Uint8Array(32)), isKind('invalid_input'));
    assert.throws(() => peat.parseMeshId(v), isKind('invalid_input'));
    assert.throws(() => new Genesis(v, new Uint8Array(32)), isKind('invalid_input'));
  }
  for (const n of [-1, 1.5, 'abc', NaN, undefined, 2 ** 32]) assert.throws(() => peat.sealedLen(n), isKind('invalid_input'));
});

test('genesis: refuses empty names, draws fresh seeds, mesh ids in upper case', () => {
  assert.throws(() => new Genesis('', new Uint8Array(32).fill(0x42)), (e) =>
    isKind('invalid_input')(e) && e.message === 'the mesh name is empty',
  );
  assert.throws(() => peat.meshId('', new Uint8Array(32).fill(0x42)), isKind('invalid_input'));
  assert.throws(() => new Genesis('ALPHA', new Uint8Array(31)), isKind('invalid_key'));
  const a = new Genesis('ALPHA-TEAM');
  const b = new Genesis('ALPHA-TEAM');
  assert.notEqual(toHex(a.secret), toHex(b.secret));
  assert.match(a.meshId, /^[0-9A-F]{8}$/);
});

// ---- per-peer sessions ----

test('per-peer sessions: key exchange, a frame opened by X25519 + HKDF + ChaCha20-Poly1305 (noble)', () => {
  const ka = x25519.utils.randomSecretKey();
  const kb = x25519.utils.randomSecretKey();
  const a = new PeerSessions(0x1111, ka);
  const b = new PeerSessions(0x2222, kb, { maxSessions: 4, ttlMs: 60_000 });
  assert.equal(toHex(a.publicKey), toHex(x25519.getPublicKey(ka)));
  assert.equal(a.state(0x2222), undefined);
  const hello = a.initiate(0, 0x2222);
  assert.equal(a.state(0x2222), 'awaiting-peer-key');
  // Key exchange: 0xB0 0x00 | sender u32 LE | flags | X25519 public key(32).
  assert.deepEqual([hello[0], hello[1]], [0xb0, 0x00]);
  assert.equal(Buffer.from(hello).readUInt32LE(2), 0x1111);
  assert.equal(toHex(hello.subarray(hello.length - 32)), toHex(a.publicKey));
  const [peer, reply] = b.handleKeyExchange(1, hello);
  assert.equal(peer, 0x1111);
  assert.ok(reply instanceof Uint8Array);
  const [peer2] = a.handleKeyExchange(2, reply);
  assert.equal(peer2, 0x2222);
  assert.equal(a.state(0x2222), 'established');
  assert.equal(b.state(0x1111), 'established');
  // A repeated exchange with an established peer is ignored.
  assert.deepEqual(b.handleKeyExchange(3, hello), [0x1111, undefined]);

  const frame = a.seal(3, 0x2222, utf8ToBytes('secret document'));
  const [sender, counter, text] = b.open(4, frame);
  assert.deepEqual([sender, counter, Buffer.from(text).toString()], [0x1111, 0, 'secret document']);

  // The same frame under noble: key = HKDF-SHA256(X25519, salt = LE32(a) | LE32(b)).
  const shared = x25519.getSharedSecret(kb, a.publicKey);
  const salt = Buffer.alloc(8);
  salt.writeUInt32LE(0x1111, 0);
  salt.writeUInt32LE(0x2222, 4);
  const key = hkdf(sha256, shared, salt, utf8ToBytes('PEAT-peer-e2ee-v1'), 32);
  const f = Buffer.from(frame);
  assert.deepEqual([f[0], f[1]], [0xaf, 0x00]);
  assert.deepEqual([f.readUInt32LE(2), f.readUInt32LE(6), f.readBigUInt64LE(10)], [0x2222, 0x1111, 0n]);
  assert.equal(
    Buffer.from(chacha20poly1305(key, frame.subarray(18, 30)).decrypt(frame.subarray(30))).toString(),
    'secret document',
  );
  // And a frame sealed by noble opens in wireseal.
  const nonce = randomBytes(12);
  const header = Buffer.alloc(18);
  header.set([0xaf, 0x00]);
  header.writeUInt32LE(0x1111, 2);
  header.writeUInt32LE(0x2222, 6);
  header.writeBigUInt64LE(7n, 10);
  const theirs = concatBytes(header, nonce, chacha20poly1305(key, nonce).encrypt(utf8ToBytes('from noble')));
  const [s2, c2, t2] = a.open(5, theirs);
  assert.deepEqual([s2, c2, Buffer.from(t2).toString()], [0x2222, 7, 'from noble']);

  // Replay, tamper, no session, closed.
  assert.throws(() => b.open(5, frame), isKind('replay'));
  const bad = a.seal(6, 0x2222, utf8ToBytes('x'));
  bad[bad.length - 1] ^= 1;
  assert.throws(() => b.open(7, bad), isKind('auth'));
  assert.throws(() => b.open(7, bad.subarray(0, 40)), isKind('truncated'));
  assert.throws(() => a.seal(8, 0x3333, utf8ToBytes('no session')), isKind('state'));
  assert.deepEqual(a.cleanupExpired(9), []);
  b.close(0x1111);
  assert.equal(b.state(0x1111), 'closed');
  assert.throws(() => b.open(10, a.seal(10, 0x2222, utf8ToBytes('late'))), (e) => e instanceof WiresealError);
});

test('per-peer sessions expire after ttlMs', () => {
  const a = new PeerSessions(1, x25519.utils.randomSecretKey(), { ttlMs: 1000 });
  a.initiate(0, 2);
  assert.deepEqual(a.cleanupExpired(500), []);
  assert.deepEqual(a.cleanupExpired(5000), [2]);
  assert.equal(a.state(2), undefined);
});

test('per-peer negative cases: malformed key exchanges and bad arguments', () => {
  const k = x25519.utils.randomSecretKey();
  const a = new PeerSessions(1, k);
  const hello = new PeerSessions(2, x25519.utils.randomSecretKey()).initiate(0, 1);
  assert.throws(() => a.handleKeyExchange(0, hello.subarray(0, hello.length - 1)), isKind('truncated'));
  const wrong = hello.slice();
  wrong[0] = 0xae;
  assert.throws(() => a.handleKeyExchange(0, wrong), isKind('malformed'));
  assert.throws(() => a.open(0, new Uint8Array(0)), isKind('truncated'));
  assert.throws(() => new PeerSessions(1, new Uint8Array(31)), isKind('invalid_key'));
  for (const v of NOT_BYTES) {
    assert.throws(() => new PeerSessions(1, v), isKind('invalid_input'));
    assert.throws(() => a.handleKeyExchange(0, v), isKind('invalid_input'));
    assert.throws(() => a.open(0, v), isKind('invalid_input'));
    assert.throws(() => a.seal(0, 2, v), isKind('invalid_input'));
  }
  for (const n of [-1, 1.5, 'abc', NaN, undefined, 2 ** 32]) {
    assert.throws(() => new PeerSessions(n, k), isKind('invalid_input'));
    assert.throws(() => a.initiate(0, n), isKind('invalid_input'));
    assert.throws(() => a.state(n), isKind('invalid_input'));
  }
  for (const now of [-1, 0.5, 'abc', undefined, 2 ** 54]) {
    assert.throws(() => a.initiate(now, 2), isKind('invalid_input'));
    assert.throws(() => a.cleanupExpired(now), isKind('invalid_input'));
  }
  assert.throws(() => new PeerSessions(1, k, { maxSessions: '4' }), isKind('invalid_input'));
  assert.throws(() => new PeerSessions(1, k, 'options'), isKind('invalid_input'));
});

// ---- the policy and the case table ----

test('decide: the record and its field order', () => {
  const d = peat.decide('selective', 'chat', 'known-peer');
  assert.deepEqual(Object.keys(d), [
    'protection', 'decided_by', 'level', 'data', 'link',
    'base', 'after_link', 'after_adaptive', 'adaptive', 'always_encrypt',
  ]);
  assert.equal(peat.decide('none', 'heartbeat', 'trusted-local').protection, 'plain');
  assert.equal(peat.decide('peer-e2ee', 'location', 'known-peer').protection, 'peer-e2ee');
  const low = peat.decide('mesh-wide', 'counter', 'known-peer', { batteryPercent: 5, adaptive: [20, 10.0] });
  assert.equal(low.after_adaptive, 'plain');
  assert.equal(low.decided_by, 'adaptive');
  assert.equal(peat.decide('mesh-wide', 'app:7', 'known-peer').base, 'mesh-wide');
  for (const bad of [
    ['mesh_wide', 'chat', 'known-peer'],
    ['selective', 'chat', 'known_peer'],
    ['selective', 'sensitive_chat', 'known-peer'],
    ['bogus', 'chat', 'known-peer'],
    [5, 'chat', 'known-peer'],
    ['selective', undefined, 'known-peer'],
  ]) {
    assert.throws(() => peat.decide(...bad), isKind('invalid_input'));
  }
  for (const options of [
    'x',
    { adaptive: [20] },
    { adaptive: 'x' },
    { adaptive: ['20', null] },
    { adaptive: [20, '1'] },
    { alwaysEncrypt: 'chat' },
    { alwaysEncrypt: [5] },
    { batteryPercent: '5' },
    { batteryPercent: 256 },
    { updateRateHz: '1' },
    { updateRateHz: NaN },
    { updateRateHz: Infinity },
  ]) {
    assert.throws(() => peat.decide('selective', 'chat', 'known-peer', options), isKind('invalid_input'));
  }
});

const openFrame = (meshId, name) => {
  const f = CASES.mesh_frames[name];
  return new MeshSealer(meshId, hex(f.secret_hex)).open(hex(f.frame_hex));
};

for (const c of CASES.mesh_ids) {
  test(`case table: mesh id ${JSON.stringify(c.given)}`, () => {
    if (c.error) {
      assert.throws(() => peat.parseMeshId(c.given), (e) => isKind(c.error)(e) && e.message === c.message);
      assert.throws(() => new MeshSealer(c.given, new Uint8Array(32)), isKind(c.error));
      return;
    }
    assert.equal(peat.parseMeshId(c.given), c.mesh_id);
    const f = CASES.mesh_frames[c.mesh_id];
    assert.equal(toHex(openFrame(c.given, c.mesh_id)), f.plaintext_hex);
    // Sealed under the id as given, opened by noble under the upper-case id.
    const frame = new MeshSealer(c.given, hex(f.secret_hex)).seal(utf8ToBytes('doc'));
    assert.equal(Buffer.from(refMeshOpen(refMeshKey(c.mesh_id, hex(f.secret_hex)), frame)).toString(), 'doc');
  });
}

for (const c of CASES.genesis) {
  test(`case table: genesis ${JSON.stringify(c.name)}`, () => {
    if (c.error) {
      assert.throws(() => new Genesis(c.name, hex(c.seed_hex)), (e) => isKind(c.error)(e) && e.message === c.message);
      return;
    }
    const g = new Genesis(c.name, hex(c.seed_hex));
    assert.deepEqual([g.meshId, toHex(g.secret)], [c.mesh_id, c.secret_hex]);
  });
}

function decideCase(given) {
  const options = {};
  if ('battery' in given) options.batteryPercent = given.battery;
  if ('rate' in given) options.updateRateHz = given.rate;
  if ('adaptive' in given) options.adaptive = given.adaptive;
  if ('always_encrypt' in given) options.alwaysEncrypt = given.always_encrypt;
  return peat.decide(given.level, given.data, given.link, options);
}

for (const c of CASES.decisions) {
  test(`case table: decide ${JSON.stringify(c.given)}`, () => {
    assert.deepEqual(decideCase(c.given), c.record);
  });
}

for (const c of CASES.decision_errors) {
  test(`case table: decide refuses ${JSON.stringify(c.given)}`, () => {
    assert.throws(() => decideCase(c.given), (e) => isKind(c.error)(e) && e.message === c.message);
  });
}
