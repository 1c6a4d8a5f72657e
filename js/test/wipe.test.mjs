// Plaintext copied into the module's memory is wiped when the module is
// done with it: the module's whole memory is searched for a random marker
// the plaintext repeats. While an Encryptor still holds its input the
// marker is found (the search sees the memory); after free() it is not.
// Received packets are left out: a connection opens them in place in its
// receive buffer, which it reuses (docs/javascript.md, "Secrets").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Connection } from 'wireseal/bip324';
import { Encryptor, decrypt, encrypt } from 'wireseal/aescrypt';
// The module instance the package loaded (same file, same instance):
// `initSync` hands back its exports, memory included.
import { initSync } from './node_modules/wireseal/wireseal.js';

/** Whether the module's memory holds `needle` anywhere. */
const moduleHolds = (needle) =>
  Buffer.from(initSync(undefined).memory.buffer).indexOf(Buffer.from(needle)) !== -1;

/** `n` bytes of a fresh random 32-byte marker, repeated. */
function marked(n) {
  const marker = randomBytes(32);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 32) out.set(marker.subarray(0, Math.min(32, n - i)), i);
  return { marker, plaintext: out };
}

test("an Encryptor's input is in the module until free(), then wiped", () => {
  const { marker, plaintext } = marked(256 * 1024);
  const e = new Encryptor('wipe test', { version: 2 });
  e.update(plaintext);
  assert.ok(moduleHolds(marker), 'the search finds the input the Encryptor holds');
  e.free();
  assert.ok(!moduleHolds(marker), 'nothing of the input is left after free()');
});

test('a whole AES Crypt decrypt leaves no plaintext in the module', () => {
  const { marker, plaintext } = marked(3 * 1024 * 1024 + 77);
  const file = encrypt('wipe test', plaintext, { version: 2 });
  assert.ok(!moduleHolds(marker), 'nothing is left by encrypt');
  const out = decrypt('wipe test', file);
  assert.equal(Buffer.compare(out, plaintext), 0);
  assert.ok(!moduleHolds(marker), 'nothing is left by decrypt');
});

test('BIP324 contents sent leave no plaintext in the module', () => {
  const a = new Connection('initiator');
  const b = new Connection('responder');
  for (let i = 0; i < 10 && !(a.established && b.established); i++) {
    b.receiveData(a.dataToSend());
    a.receiveData(b.dataToSend());
  }
  assert.ok(a.established && b.established);
  for (const size of [300, 64 * 1024]) {
    const { marker, plaintext } = marked(size);
    a.send(plaintext);
    assert.ok(!moduleHolds(marker), `nothing of ${size} bytes sent is left by send`);
    const wire = a.dataToSend();
    assert.deepEqual(b.receiveData(wire), [plaintext]);
  }
  a.free();
  b.free();
});
