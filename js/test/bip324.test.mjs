// wireseal/bip324 against the BIP's packet-encoding vectors and an
// independent reference of the packet layer on @noble/hashes (HKDF-SHA256)
// and @noble/ciphers (ChaCha20, ChaCha20-Poly1305), both ways; the sans-IO
// Connection end to end between two JS peers; negative cases by kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chacha20, chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { WiresealError } from 'wireseal';
import {
  Connection,
  KeyPool,
  PacketCipher,
  REKEY_INTERVAL,
  MAX_GARBAGE_LEN,
  NETWORKS,
} from 'wireseal/bip324';

const REKEY = 224; // BIP324's rekey interval, for the reference
const MAINNET = hexToBytes('f9beb4d9');
const hex = (b) => bytesToHex(b);
const kind = (k) => (e) => {
  assert.ok(e instanceof WiresealError, `not a WiresealError: ${e}`);
  assert.equal(e.kind, k, e.message);
  return true;
};

// A deterministic byte source (xorshift32), for sizes and contents.
function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return {
    int: (n) => next() % n,
    bytes: (n) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}

function loadVectors() {
  const text = readFileSync(
    new URL('../../vectors/bip324/packet_encoding_test_vectors.csv', import.meta.url),
    'utf8',
  );
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
}

// ---- the reference, on noble (the BIP's reference.py, transcribed) ----

function refKeys(shared, magic = MAINNET) {
  const salt = concatBytes(utf8ToBytes('bitcoin_v2_shared_secret'), magic);
  const expand = (info) => hkdf(sha256, shared, salt, utf8ToBytes(info), 32);
  const gt = expand('garbage_terminators');
  return {
    initiator_L: expand('initiator_L'),
    initiator_P: expand('initiator_P'),
    responder_L: expand('responder_L'),
    responder_P: expand('responder_P'),
    terminators: [gt.slice(0, 16), gt.slice(16)],
    session_id: expand('session_id'),
  };
}

const le = (n, len) => {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    out[i] = Number((BigInt(n) >> BigInt(8 * i)) & 0xffn);
  }
  return out;
};

/** FSChaCha20: one keystream per rekey epoch, the next key from it. */
class RefFSChaCha20 {
  constructor(key) {
    this.key = key;
    this.block = 0;
    this.chunk = 0;
    this.ks = new Uint8Array(0);
  }
  take(n) {
    while (this.ks.length < n) {
      const nonce = concatBytes(le(0, 4), le(Math.floor(this.chunk / REKEY), 8));
      this.ks = concatBytes(this.ks, chacha20(this.key, nonce, new Uint8Array(64), undefined, this.block));
      this.block += 1;
    }
    const out = this.ks.slice(0, n);
    this.ks = this.ks.slice(n);
    return out;
  }
  crypt(chunk) {
    const ks = this.take(chunk.length);
    const out = chunk.map((b, i) => b ^ ks[i]);
    if ((this.chunk + 1) % REKEY === 0) {
      this.key = this.take(32);
      this.block = 0;
      this.ks = new Uint8Array(0);
    }
    this.chunk += 1;
    return out;
  }
}

/** FSChaCha20Poly1305: nonce = LE32(n mod 224) | LE64(n / 224), rekeyed every 224. */
class RefFSAead {
  constructor(key) {
    this.key = key;
    this.n = 0;
  }
  crypt(aad, data, decrypt) {
    const epoch = Math.floor(this.n / REKEY);
    const nonce = concatBytes(le(this.n % REKEY, 4), le(epoch, 8));
    const c = chacha20poly1305(this.key, nonce, aad);
    const out = decrypt ? c.decrypt(data) : c.encrypt(data);
    if ((this.n + 1) % REKEY === 0) {
      const rekeyNonce = concatBytes(new Uint8Array(4).fill(0xff), le(epoch, 8));
      this.key = chacha20poly1305(this.key, rekeyNonce, new Uint8Array(0))
        .encrypt(new Uint8Array(32))
        .slice(0, 32);
    }
    this.n += 1;
    return out;
  }
}

class RefCipher {
  constructor(shared, role) {
    const k = refKeys(shared);
    const [send, recv] = role === 'initiator' ? ['initiator', 'responder'] : ['responder', 'initiator'];
    this.sendL = new RefFSChaCha20(k[`${send}_L`]);
    this.sendP = new RefFSAead(k[`${send}_P`]);
    this.recvL = new RefFSChaCha20(k[`${recv}_L`]);
    this.recvP = new RefFSAead(k[`${recv}_P`]);
  }
  seal(contents, decoy = false, aad = new Uint8Array(0)) {
    const header = Uint8Array.of(decoy ? 0x80 : 0);
    return concatBytes(
      this.sendL.crypt(le(contents.length, 3)),
      this.sendP.crypt(aad, concatBytes(header, contents), false),
    );
  }
  open(packet, aad = new Uint8Array(0)) {
    const l = this.recvL.crypt(packet.slice(0, 3));
    const n = l[0] | (l[1] << 8) | (l[2] << 16);
    const pt = this.recvP.crypt(aad, packet.slice(3, 3 + 1 + n + 16), true);
    return [pt.slice(1), (pt[0] & 0x80) !== 0];
  }
}

// ---- the BIP's vectors ----

const VECTORS = loadVectors();

test('the vectors file has its seven rows', () => {
  assert.equal(VECTORS.length, 7);
});

for (const v of VECTORS) {
  test(`packet_encoding_test_vectors.csv row in_idx=${v.in_idx}`, () => {
    const shared = hexToBytes(v.mid_shared_secret);
    const role = v.in_initiating === '1' ? 'initiator' : 'responder';
    const other = role === 'initiator' ? 'responder' : 'initiator';

    // The noble reference reproduces the vector's key schedule.
    const ref = refKeys(shared);
    assert.equal(hex(ref.initiator_L), v.mid_initiator_l);
    assert.equal(hex(ref.initiator_P), v.mid_initiator_p);
    assert.equal(hex(ref.responder_L), v.mid_responder_l);
    assert.equal(hex(ref.responder_P), v.mid_responder_p);
    assert.equal(hex(ref.session_id), v.out_session_id);

    const ours = new PacketCipher(shared, role);
    const peer = new PacketCipher(shared, other, { maxContents: 2 ** 24 });
    const refPeer = new RefCipher(shared, other);
    assert.equal(hex(ours.sessionId), v.out_session_id);
    const [send, recv] = ours.garbageTerminators;
    assert.equal(hex(send), v.mid_send_garbage_terminator);
    assert.equal(hex(recv), v.mid_recv_garbage_terminator);

    const earlier = [];
    for (let i = 0; i < Number(v.in_idx); i++) {
      const p = ours.seal(new Uint8Array(0));
      earlier.push(p);
      const [contents, decoy, used] = peer.open(p);
      assert.deepEqual([contents.length, decoy, used], [0, false, 20]);
      const [rc, rd] = refPeer.open(p);
      assert.deepEqual([rc.length, rd], [0, false]);
    }

    const unit = hexToBytes(v.in_contents);
    const times = Number(v.in_multiply);
    const contents = new Uint8Array(unit.length * times);
    for (let i = 0; i < times; i++) contents.set(unit, i * unit.length);
    const aad = hexToBytes(v.in_aad);
    const decoy = v.in_ignore === '1';
    const ct = ours.seal(contents, { decoy, aad });
    if (v.out_ciphertext) {
      assert.equal(hex(ct), v.out_ciphertext);
    } else {
      const tail = v.out_ciphertext_endswith;
      assert.ok(tail.length > 0);
      assert.equal(hex(ct.slice(ct.length - tail.length / 2)), tail);
    }

    // Over Bitcoin Core's receive limit (1 + 12 + 4,000,000 bytes of
    // contents; the last row's 2^24 - 1): refused by default, then poisoned.
    if (contents.length > 1 + 12 + 4_000_000) {
      const strict = new PacketCipher(shared, other);
      for (const p of earlier) strict.open(p);
      assert.throws(() => strict.open(ct, { aad }), kind('too_long'));
      assert.throws(() => strict.open(ct, { aad }), kind('poisoned'));
    }

    const [got, gotDecoy, used] = peer.open(ct, { aad });
    assert.equal(gotDecoy, decoy);
    assert.equal(used, ct.length);
    assert.ok(Buffer.from(got).equals(Buffer.from(contents)));
    // The independent reference opens the vector's packet too.
    const [rc, rd] = refPeer.open(ct, aad);
    assert.equal(rd, decoy);
    assert.ok(Buffer.from(rc).equals(Buffer.from(contents)));
  });
}

test('one packet is ChaCha20 over the length and ChaCha20-Poly1305 over header and contents (noble)', () => {
  const shared = new Uint8Array(32).fill(7);
  const k = refKeys(shared);
  const c = new PacketCipher(shared, 'initiator');
  const aad = utf8ToBytes('garbage');
  const packet = c.seal(utf8ToBytes('hello'), { aad });
  const zeroNonce = new Uint8Array(12);
  // Length field: the first 3 bytes of the length cipher's keystream.
  assert.deepEqual(chacha20(k.initiator_L, zeroNonce, packet.slice(0, 3)), Uint8Array.of(5, 0, 0));
  // Header and contents: ChaCha20-Poly1305, first nonce, the garbage as AAD.
  const opened = chacha20poly1305(k.initiator_P, zeroNonce, aad).decrypt(packet.slice(3));
  assert.deepEqual(opened, concatBytes(Uint8Array.of(0), utf8ToBytes('hello')));
});

test('both ways against the reference, across rekeys', () => {
  for (const seed of [1, 2, 3]) {
    const r = rng(seed);
    const shared = r.bytes(32);
    const oursI = new PacketCipher(shared, 'initiator');
    const refR = new RefCipher(shared, 'responder');
    const refI = new RefCipher(shared, 'initiator');
    const oursR = new PacketCipher(shared, 'responder');
    const count = REKEY * 2 + 17;
    for (let i = 0; i < count; i++) {
      const msg = r.bytes([0, 1, 17, 300][r.int(4)]);
      const decoy = r.int(10) === 0;
      const [got, gotDecoy] = refR.open(oursI.seal(msg, { decoy }));
      assert.deepEqual([hex(got), gotDecoy], [hex(msg), decoy]);
      const [c, d, used] = oursR.open(refI.seal(msg, decoy));
      assert.deepEqual([hex(c), d, used], [hex(msg), decoy, msg.length + 20]);
    }
  }
});

test('REKEY_INTERVAL, MAX_GARBAGE_LEN and NETWORKS are the BIP and the library', () => {
  assert.equal(REKEY_INTERVAL, 224);
  assert.equal(MAX_GARBAGE_LEN, 4095);
  assert.deepEqual([...NETWORKS], ['mainnet', 'testnet', 'testnet4', 'signet', 'regtest']);
  for (const n of NETWORKS) {
    assert.equal(new Connection('initiator', { network: n }).network, n);
  }
  assert.equal(new Connection('initiator', { network: MAINNET }).network, 'mainnet');
  assert.equal(new Connection('initiator', { network: '0a03cf40' }).network, 'signet');
  assert.equal(new Connection('initiator', { network: Uint8Array.of(1, 2, 3, 4) }).network, '01020304');
  new Connection('initiator', { garbage: new Uint8Array(MAX_GARBAGE_LEN) });
  assert.throws(
    () => new Connection('initiator', { garbage: new Uint8Array(MAX_GARBAGE_LEN + 1) }),
    kind('too_long'),
  );
});

test('decryptLength and openBody: the packet in two halves', () => {
  const shared = new Uint8Array(32).fill(9);
  const a = new PacketCipher(shared, 'initiator');
  const b = new PacketCipher(shared, 'responder');
  const packet = a.seal(utf8ToBytes('two halves'), { decoy: true });
  const n = b.decryptLength(packet.slice(0, 3));
  assert.equal(n, 10);
  const [contents, decoy] = b.openBody(packet.slice(3));
  assert.deepEqual([Buffer.from(contents).toString(), decoy], ['two halves', true]);
  assert.throws(() => b.openBody(packet.slice(3)), kind('state'));
  assert.throws(() => b.decryptLength(Uint8Array.of(1, 2)), kind('truncated'));
  assert.throws(() => b.decryptLength(Uint8Array.of(1, 2, 3, 4)), kind('too_long'));
});

// ---- Connection ----

function pump(a, b, rounds = 4) {
  const got = [[], []];
  for (let i = 0; i < rounds; i++) {
    got[1].push(...b.receiveData(a.dataToSend()));
    got[0].push(...a.receiveData(b.dataToSend()));
  }
  return got;
}

test('a full handshake between two JS connections, packets both ways, decoys dropped', () => {
  const pool = new KeyPool(4);
  assert.deepEqual(pool.stats(), { ready: 4, capacity: 4, generated: 4, taken: 0, misses: 0 });
  const r = rng(42);
  const a = new Connection('initiator', {
    pool,
    garbage: r.bytes(MAX_GARBAGE_LEN),
    decoys: [new Uint8Array(0), utf8ToBytes('decoy')],
  });
  const b = new Connection('responder', { pool, garbage: r.bytes(100), decoys: [r.bytes(10)] });
  assert.equal(pool.length, 2);
  assert.deepEqual(pool.stats(), { ready: 2, capacity: 4, generated: 4, taken: 2, misses: 0 });
  assert.equal(a.established, false);
  assert.equal(a.sessionId, undefined);
  assert.throws(() => a.send(utf8ToBytes('too early')), kind('state'));
  const [early0, early1] = pump(a, b);
  assert.deepEqual([early0.length, early1.length], [0, 0]);
  assert.ok(a.established && b.established);
  assert.equal(hex(a.sessionId), hex(b.sessionId));
  assert.equal(a.sessionId.length, 32);

  const msgs = [0, 1, 1000, 70000].flatMap((n) => Array.from({ length: 5 }, () => r.bytes(n)));
  for (const m of msgs) a.send(m);
  a.send(utf8ToBytes('ignored'), { decoy: true });
  const wire = a.dataToSend();
  assert.equal(a.dataToSend().length, 0);
  const got = [];
  for (let i = 0; i < wire.length; i += 999) got.push(...b.receiveData(wire.slice(i, i + 999)));
  assert.deepEqual(got.map(hex), msgs.map(hex));

  b.send(utf8ToBytes('pong'));
  b.send(utf8ToBytes('decoy'), { decoy: true });
  b.send(utf8ToBytes('pong 2'));
  assert.deepEqual(
    a.receiveData(b.dataToSend()).map((c) => Buffer.from(c).toString()),
    ['pong', 'pong 2'],
  );
  pool.fill();
  assert.equal(pool.length, 4);
});

test('an empty pool still serves (a miss), and a freed or foreign pool is refused', () => {
  const pool = new KeyPool(1);
  new Connection('initiator', { pool });
  new Connection('initiator', { pool });
  assert.deepEqual(pool.stats(), { ready: 0, capacity: 1, generated: 1, taken: 2, misses: 1 });
  assert.throws(() => new KeyPool(65537), kind('limit'));
  for (const bad of ['5', -1, 1.5]) assert.throws(() => new KeyPool(bad), kind('invalid_input'));
  assert.throws(() => new Connection('initiator', { pool: {} }), kind('invalid_input'));
  pool.free();
  assert.throws(() => new Connection('initiator', { pool }), kind('invalid_input'));
});

test('a chosen secret key makes a working connection; a bad one is refused', () => {
  const key = new Uint8Array(32).fill(1);
  const a = new Connection('initiator', { secretKey: key });
  const b = new Connection('responder', { secretKey: key });
  pump(a, b);
  assert.ok(a.established && b.established);
  assert.throws(() => new Connection('initiator', { secretKey: new Uint8Array(32) }), kind('invalid_key'));
  assert.throws(() => new Connection('initiator', { secretKey: new Uint8Array(31) }), kind('invalid_key'));
});

test('a tampered packet fails with auth and poisons the connection', () => {
  const a = new Connection('initiator');
  const b = new Connection('responder');
  pump(a, b);
  a.send(utf8ToBytes('hello'));
  const wire = a.dataToSend();
  wire[wire.length - 1] ^= 1;
  assert.throws(() => b.receiveData(wire), kind('auth'));
  assert.throws(() => b.receiveData(new Uint8Array(0)), kind('poisoned'));
});

test('a truncated packet waits for more; bytes after it complete it', () => {
  const a = new Connection('initiator');
  const b = new Connection('responder');
  pump(a, b);
  a.send(utf8ToBytes('split'));
  const wire = a.dataToSend();
  assert.deepEqual(b.receiveData(wire.slice(0, wire.length - 1)), []);
  const got = b.receiveData(wire.slice(wire.length - 1));
  assert.deepEqual(got.map((c) => Buffer.from(c).toString()), ['split']);
});

test('an oversized packet is refused before it arrives (too_long)', () => {
  const a = new Connection('initiator');
  const b = new Connection('responder', { maxContents: 100 });
  pump(a, b);
  a.send(new Uint8Array(101));
  assert.throws(() => b.receiveData(a.dataToSend().slice(0, 3)), kind('too_long'));
  // And the packet cipher, with its own limit.
  const shared = new Uint8Array(32).fill(3);
  const s = new PacketCipher(shared, 'initiator');
  const rx = new PacketCipher(shared, 'responder', { maxContents: 10 });
  assert.throws(() => rx.open(s.seal(new Uint8Array(11))), kind('too_long'));
  assert.throws(() => rx.open(s.seal(new Uint8Array(1))), kind('poisoned'));
});

test('the packet cipher: tampered → auth, short → undefined, truncated body → truncated', () => {
  const shared = new Uint8Array(32).fill(5);
  const s = new PacketCipher(shared, 'initiator');
  const packet = s.seal(utf8ToBytes('contents'), { aad: utf8ToBytes('g') });
  assert.equal(new PacketCipher(shared, 'responder').open(packet.slice(0, 2)), undefined);
  assert.equal(new PacketCipher(shared, 'responder').open(packet.slice(0, packet.length - 1)), undefined);
  // Header, contents and tag are authenticated.
  for (const i of [3, 4, 10, packet.length - 1]) {
    const bad = packet.slice();
    bad[i] ^= 1;
    const rx = new PacketCipher(shared, 'responder');
    assert.throws(() => rx.open(bad, { aad: utf8ToBytes('g') }), kind('auth'));
  }
  // A length field changed to announce less: the body then fails its tag
  // (to announce more, the receiver waits for bytes).
  const shorter = packet.slice();
  shorter[0] ^= 0x08; // 8 -> 0
  assert.throws(() => new PacketCipher(shared, 'responder').open(shorter, { aad: utf8ToBytes('g') }), kind('auth'));
  const longer = packet.slice();
  longer[0] ^= 0x01; // 8 -> 9
  assert.equal(new PacketCipher(shared, 'responder').open(longer, { aad: utf8ToBytes('g') }), undefined);
  // The wrong AAD (garbage) fails too.
  assert.throws(() => new PacketCipher(shared, 'responder').open(packet), kind('auth'));
  const rx = new PacketCipher(shared, 'responder');
  rx.decryptLength(packet.slice(0, 3));
  assert.throws(() => rx.openBody(packet.slice(3, packet.length - 1), { aad: utf8ToBytes('g') }), kind('truncated'));
});

test('another network is named as such; a v1 peer is recognised', () => {
  const a = new Connection('initiator', { network: 'signet' });
  const b = new Connection('responder');
  b.receiveData(a.dataToSend());
  assert.throws(
    () => a.receiveData(b.dataToSend()),
    (e) => kind('malformed')(e) && /network mismatch/.test(e.message),
  );
  const r = new Connection('responder');
  const v1 = concatBytes(MAINNET, utf8ToBytes('version'), new Uint8Array(5), new Uint8Array(20));
  assert.equal(r.peerIsV1, false);
  assert.throws(() => r.receiveData(v1), kind('unsupported'));
  assert.equal(r.peerIsV1, true);
  assert.equal(r.dataToSend().length, 0);
});

test('wrong argument types are invalid_input, never a trap', () => {
  const notBytes = ['abc', 5, [1, 2, 3], undefined, null, {}];
  const shared = new Uint8Array(32);
  const a = new Connection('initiator');
  const b = new Connection('responder');
  pump(a, b);
  const c = new PacketCipher(shared, 'initiator');
  for (const v of notBytes) {
    assert.throws(() => a.send(v), kind('invalid_input'));
    assert.throws(() => a.receiveData(v), kind('invalid_input'));
    assert.throws(() => c.seal(v), kind('invalid_input'));
    assert.throws(() => c.open(v), kind('invalid_input'));
    assert.throws(() => c.decryptLength(v), kind('invalid_input'));
    assert.throws(() => c.openBody(v), kind('invalid_input'));
    assert.throws(() => new PacketCipher(v, 'initiator'), kind('invalid_input'));
  }
  for (const v of ['abc', 5, [1, 2], {}]) {
    assert.throws(() => new Connection('initiator', { garbage: v }), kind('invalid_input'));
    assert.throws(() => c.seal(new Uint8Array(1), { aad: v }), kind('invalid_input'));
  }
  assert.throws(() => new PacketCipher(new Uint8Array(31), 'initiator'), kind('invalid_key'));
  for (const role of ['sideways', 5, undefined, 'Initiator ']) {
    assert.throws(() => new Connection(role), kind('invalid_input'));
    assert.throws(() => new PacketCipher(shared, role), kind('invalid_input'));
  }
  for (const network of ['moonnet', 5, [1, 2, 3, 4], Uint8Array.of(1, 2, 3)]) {
    assert.throws(() => new Connection('initiator', { network }), kind('invalid_input'));
  }
  assert.throws(() => new Connection('initiator', 'options'), kind('invalid_input'));
  assert.throws(() => new Connection('initiator', { decoys: new Uint8Array(3) }), kind('invalid_input'));
  assert.throws(() => new Connection('initiator', { decoys: ['x'] }), kind('invalid_input'));
  assert.throws(() => new Connection('initiator', { maxContents: -1 }), kind('invalid_input'));
  assert.throws(() => new Connection('initiator', { maxContents: '100' }), kind('invalid_input'));
  assert.throws(() => a.send(new Uint8Array(1), { decoy: 'yes' }), kind('invalid_input'));
});
