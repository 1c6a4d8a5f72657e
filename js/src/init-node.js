// Node: the module's bytes read from the package folder, compiled once,
// synchronously, when the package is first imported; then Node's native
// primitives (node:crypto, OpenSSL with AES-NI and the SHA extensions)
// registered under the library's bulk operations: AES-256-CBC, HMAC-SHA256,
// ChaCha20-Poly1305, PBKDF2-HMAC-SHA512 and the AES blocks of channel
// packets' CTR keystream (under a key held in an AES-ECB context, made once
// per key) on inputs large enough for them to win, and X25519 (under a
// private key held in a KeyObject, made on the key's first agreement) (the
// thresholds and every format rule stay in the library: see
// docs/javascript.md, "Native primitives in Node"). The browser entry
// registers nothing and runs everything in WebAssembly.
//
// Each function receives views of the WebAssembly memory, valid for the
// call only (nothing here calls back into the module, so its memory cannot
// grow under them): it reads its inputs, and writes its outputs into the
// output views last, once everything that can throw has run, so a function
// that throws leaves the module's buffers as they were (the library then
// runs its own code).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, setHostCrypto } from '../wireseal.js';

initSync({ module: readFileSync(new URL('../wasm/wireseal_wasm_bg.wasm', import.meta.url)) });

// node:crypto loaded on the first bulk operation, not at import: loading it
// starts OpenSSL, a few milliseconds the package's load would otherwise pay.
let nodeCrypto;
const nc = () => (nodeCrypto ??= createRequire(import.meta.url)('node:crypto'));

/** HMAC-SHA256 streams by handle: the inner and outer SHA-256 states. */
const macs = new Map();
/** AES keys by handle: an AES-ECB Cipheriv without padding (stateless for
 * whole blocks, so one context serves every call and every clone). */
const aesKeys = new Map();
/** X25519 private keys by handle: KeyObjects. */
const x25519Keys = new Map();
let lastHandle = 0;
function newHandle() {
  do lastHandle = lastHandle >= 0xffffffff ? 1 : lastHandle + 1;
  while (macs.has(lastHandle) || aesKeys.has(lastHandle) || x25519Keys.has(lastHandle));
  return lastHandle;
}

/** PKCS #8 DER of an X25519 private key, before its 32 bytes (RFC 8410). */
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** The AES key `handle` names, or a throw. */
function aesKey(handle) {
  const c = aesKeys.get(handle);
  if (c === undefined) throw new Error(`no AES key ${handle}`);
  return c;
}

/** Where a stream is, or a throw (the library never passes a stale one). */
function mac(handle) {
  const m = macs.get(handle);
  if (m === undefined) throw new Error(`no HMAC stream ${handle}`);
  return m;
}

/** `out.set(bytes)` after checking the length. */
function put(out, bytes) {
  if (bytes.length !== out.length) throw new Error(`host produced ${bytes.length} bytes, not ${out.length}`);
  out.set(bytes);
}

/**
 * `put`, then wipes `bytes` (a Buffer OpenSSL wrote a plaintext or a key
 * into, outside the module: its best effort, as for any JavaScript array).
 */
function putSecret(out, bytes) {
  try {
    put(out, bytes);
  } finally {
    bytes.fill(0);
  }
}

setHostCrypto({
  cbcEncrypt(key, iv, buf) {
    const c = nc().createCipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
    const head = c.update(buf);
    const tail = c.final();
    put(buf, tail.length === 0 ? head : Buffer.concat([head, tail]));
  },
  cbcDecrypt(key, iv, input, output) {
    const d = nc().createDecipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
    const head = d.update(input);
    const tail = d.final();
    putSecret(output, tail.length === 0 ? head : Buffer.concat([head, tail]));
  },
  // HMAC (RFC 2104) over two SHA-256 states, which Hash#copy() can clone
  // (an Hmac object cannot be copied, and the library clones keyed streams).
  hmacNew(key) {
    const block = Buffer.alloc(64);
    if (key.length > 64) {
      const digest = nc().createHash('sha256').update(key).digest();
      block.set(digest);
      digest.fill(0);
    } else {
      block.set(key);
    }
    for (let i = 0; i < 64; i++) block[i] ^= 0x36;
    const inner = nc().createHash('sha256').update(block);
    for (let i = 0; i < 64; i++) block[i] ^= 0x36 ^ 0x5c;
    const outer = nc().createHash('sha256').update(block);
    block.fill(0);
    const handle = newHandle();
    macs.set(handle, { inner, outer });
    return handle;
  },
  hmacUpdate(handle, data) {
    mac(handle).inner.update(data);
  },
  hmacClone(handle) {
    const m = mac(handle);
    const copy = { inner: m.inner.copy(), outer: m.outer.copy() };
    const h = newHandle();
    macs.set(h, copy);
    return h;
  },
  hmacFinish(handle, tag) {
    const m = mac(handle);
    macs.delete(handle);
    const innerDigest = m.inner.digest();
    const t = m.outer.update(innerDigest).digest();
    innerDigest.fill(0);
    put(tag, t);
  },
  hmacFree(handle) {
    macs.delete(handle);
  },
  aeadSeal(key, nonce, aad, buf, tag) {
    const c = nc().createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    c.setAAD(aad, { plaintextLength: buf.length });
    const head = c.update(buf);
    const tail = c.final();
    const t = c.getAuthTag();
    const ct = tail.length === 0 ? head : Buffer.concat([head, tail]);
    if (ct.length !== buf.length || t.length !== tag.length) throw new Error('host produced the wrong lengths');
    tag.set(t);
    put(buf, ct);
  },
  aeadOpen(key, nonce, aad, buf, tag) {
    const d = nc().createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    d.setAAD(aad, { plaintextLength: buf.length });
    d.setAuthTag(tag);
    const pt = d.update(buf);
    try {
      d.final();
    } catch {
      // The tag did not verify: nothing is released (the library wipes).
      pt.fill(0);
      return false;
    }
    putSecret(buf, pt);
    return true;
  },
  pbkdf2(password, salt, iterations, out) {
    putSecret(out, nc().pbkdf2Sync(password, salt, iterations, out.length, 'sha512'));
  },
  aesNew(key) {
    const name = key.length === 16 ? 'aes-128-ecb' : key.length === 32 ? 'aes-256-ecb' : null;
    if (name === null) throw new Error(`an AES key is 16 or 32 bytes, not ${key.length}`);
    const c = nc().createCipheriv(name, key, null).setAutoPadding(false);
    const handle = newHandle();
    aesKeys.set(handle, c);
    return handle;
  },
  // The blocks are counter blocks (not secret); their encryption is the
  // keystream, which the library XORs and wipes.
  aesEncryptBlocks(handle, buf) {
    if (buf.length % 16 !== 0) throw new Error('AES blocks are 16 bytes');
    putSecret(buf, aesKey(handle).update(buf));
  },
  aesClone(handle) {
    const c = aesKey(handle);
    const h = newHandle();
    aesKeys.set(h, c);
    return h;
  },
  aesFree(handle) {
    aesKeys.delete(handle);
  },
  // The private key is imported once, from DER (about 75 µs); each peer's
  // public key from JWK, which Node decodes itself (about 5 µs, against
  // about 75 µs for OpenSSL 3's DER decoder).
  x25519New(scalar) {
    const der = Buffer.concat([X25519_PKCS8, scalar]);
    try {
      const key = nc().createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      const handle = newHandle();
      x25519Keys.set(handle, key);
      return handle;
    } finally {
      der.fill(0);
    }
  },
  // OpenSSL refuses a low-order peer (an all-zero result): this throws and
  // the library computes the result itself, and rejects it.
  x25519(handle, peer, shared) {
    const privateKey = x25519Keys.get(handle);
    if (privateKey === undefined) throw new Error(`no X25519 key ${handle}`);
    const x = Buffer.from(peer.buffer, peer.byteOffset, peer.length).toString('base64url');
    const publicKey = nc().createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
    putSecret(shared, nc().diffieHellman({ privateKey, publicKey }));
  },
  x25519Free(handle) {
    x25519Keys.delete(handle);
  },
});
