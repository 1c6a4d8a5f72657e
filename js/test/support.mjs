// What several test files share: hex, the WiresealError kind check,
// deterministic bytes and Meshtastic's channel nonce (none of it from the
// code under test).
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
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

/** Reads a stream to its end; returns the chunks read and the error it ended with (or null). */
export async function drain(stream) {
  const got = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { got, error: null };
      got.push(value);
    }
  } catch (error) {
    return { got, error };
  }
}

/** Writes `chunks` into a TransformStream and drains it: the chunks read, and the error it ended with (or null). */
export async function throughFailing(ts, chunks) {
  const writer = ts.writable.getWriter();
  (async () => {
    for (const c of chunks) await writer.write(c);
    await writer.close();
  })().catch(() => {});
  return drain(ts.readable);
}

let gcFn;
/** gc(), exposed on first use (node --test passes no flags). */
const gc = () => {
  if (gcFn === undefined) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  }
  gcFn();
};
/** The heap and the array buffers alive, after a collection (V8 frees array buffers' memory a moment after it). */
export const live = async () => {
  gc();
  await new Promise((r) => setTimeout(r, 5));
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
