// What several test files share: hex, the WiresealError kind check,
// deterministic bytes and Meshtastic's channel nonce (none of it from the
// code under test).
import assert from 'node:assert/strict';
import { WiresealError } from 'wireseal';

export const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));

/** An `assert.throws` validator: a WiresealError of `kind`. */
export const kindIs = (kind) => (e) => {
  assert.ok(e instanceof WiresealError, `expected a WiresealError, got ${e}`);
  assert.equal(e.kind, kind, e.message);
  return true;
};

/** The bytes of `parts`, one after another. */
export const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** Splits `data` into chunks whose sizes cycle through `sizes`. */
export const split = (data, sizes) => {
  const out = [];
  for (let at = 0, i = 0; at < data.length; i++) {
    const n = sizes[i % sizes.length];
    out.push(data.subarray(at, at + n));
    at += n;
  }
  return out;
};

/** Deterministic filler bytes (xorshift32 from `seed`). */
export const filler = (n, seed = 1) => {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
};

/** Meshtastic's channel nonce: LE64(id) | LE32(from) | 0 (big-endian block counter). */
export function channelNonce(from, id) {
  const n = new Uint8Array(16);
  const v = new DataView(n.buffer);
  v.setUint32(0, id, true);
  v.setUint32(8, from, true);
  return n;
}
