// Runs in headless Chromium against the package's browser entry (the wasm
// fetched from beside it, no bundler) and posts what it found to /result.
const results = [];
const check = (name, ok, detail = '') => results.push({ name, ok: Boolean(ok), detail: String(detail) });

try {
  const { meshtastic, WiresealError, version } = await import('/pkg/browser/index.js');
  check('version', typeof version() === 'string', version());

  const alice = new meshtastic.PkcEngine(meshtastic.generatePrivateKey());
  const bob = new meshtastic.PkcEngine(meshtastic.generatePrivateKey());
  const text = new TextEncoder().encode('hello from the browser');
  const sealed = alice.seal(Date.now(), bob.publicKey, 0x929, 7, text);
  const opened = bob.open(Date.now(), alice.publicKey, 0x929, 7, sealed);
  check('pkc round trip', new TextDecoder().decode(opened) === 'hello from the browser');

  // Channel packets against WebCrypto's AES-CTR (the firmware's nonce and
  // its 32-bit big-endian block counter).
  const key = new meshtastic.ChannelKey('AQ==');
  const plaintext = crypto.getRandomValues(new Uint8Array(100));
  const ours = key.encrypt(0x12345678, 99, plaintext);
  const nonce = new Uint8Array(16);
  new DataView(nonce.buffer).setUint32(0, 99, true);
  new DataView(nonce.buffer).setUint32(8, 0x12345678, true);
  const raw = Uint8Array.from([0xd4, 0xf1, 0xbb, 0x3a, 0x20, 0x29, 0x07, 0x59,
    0xf0, 0xbc, 0xff, 0xab, 0xcf, 0x4e, 0x69, 0x01]);
  const webKey = await crypto.subtle.importKey('raw', raw, 'AES-CTR', false, ['encrypt']);
  const theirs = new Uint8Array(await crypto.subtle.encrypt(
    { name: 'AES-CTR', counter: nonce, length: 32 }, webKey, plaintext));
  check('channel AES-CTR = WebCrypto', ours.every((b, i) => b === theirs[i]) && ours.length === theirs.length);

  let kind = null;
  try {
    bob.open(Date.now(), alice.publicKey, 0x929, 8, sealed);
  } catch (e) {
    kind = e instanceof WiresealError ? e.kind : `not a WiresealError: ${e}`;
  }
  check('tampered → WiresealError auth', kind === 'auth', kind);

  kind = null;
  try {
    bob.open(Date.now(), alice.publicKey, 0x929, 8, 'not bytes');
  } catch (e) {
    kind = e instanceof WiresealError ? e.kind : `not a WiresealError: ${e}`;
  }
  check('wrong type → invalid_input', kind === 'invalid_input', kind);
  alice.free();
  bob.free();
  await aescryptChecks();
} catch (e) {
  check('load and run', false, e && e.stack ? e.stack : e);
}

/**
 * AES Crypt version 3 through the asynchronous readers: the key stretched
 * by WebCrypto (its deriveBits counted), the plaintext right, a wrong
 * password `auth`; and the time of one file's stretch both ways, reported.
 */
async function aescryptChecks() {
  const { aescrypt, WiresealError } = await import('/pkg/browser/index.js');
  const subtle = crypto.subtle;
  const derive = subtle.deriveBits.bind(subtle);
  let derived = 0;
  subtle.deriveBits = (...a) => {
    derived++;
    return derive(...a);
  };
  const text = new TextEncoder().encode('a file opened in the browser');
  const ct = aescrypt.encrypt('browser pw', text, { version: 3, iterations: 20000 });
  // Read by hand: a Response over the stream would replace its error with its own.
  const read = async (stream) => {
    const parts = [];
    const reader = stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
    return out;
  };
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const viaStream = await read(new Blob([ct]).stream().pipeThrough(aescrypt.decryptStream('browser pw')));
  check('v3 decryptStream, key stretched by WebCrypto', same(viaStream, text) && derived === 1, `deriveBits calls: ${derived}`);
  const viaBlob = await read(aescrypt.decryptBlob('browser pw', new Blob([ct])));
  check('v3 decryptBlob, key stretched by WebCrypto', same(viaBlob, text) && derived === 2, `deriveBits calls: ${derived}`);
  let kind = null;
  try {
    await read(new Blob([ct]).stream().pipeThrough(aescrypt.decryptStream('browser PW')));
  } catch (e) {
    kind = e instanceof WiresealError ? e.kind : `not a WiresealError: ${e}`;
  }
  check('v3 wrong password → auth', kind === 'auth' && derived === 3, `${kind}, deriveBits calls: ${derived}`);

  // One file at AES Crypt 4's default rounds: the module's own stretch
  // (the synchronous decrypt) against WebCrypto's (decryptStream).
  const big = aescrypt.encrypt('browser pw', text, { version: 3 });
  const ms = { module: [], webcrypto: [] };
  for (let i = 0; i < 2; i++) {
    let t = performance.now();
    aescrypt.decrypt('browser pw', big);
    ms.module.push(performance.now() - t);
    t = performance.now();
    await read(new Blob([big]).stream().pipeThrough(aescrypt.decryptStream('browser pw')));
    ms.webcrypto.push(performance.now() - t);
  }
  const best = (xs) => Math.min(...xs).toFixed(0);
  check('v3 300,000 rounds: the time to open a file', true,
    `module ${best(ms.module)} ms, WebCrypto ${best(ms.webcrypto)} ms (best of 2; encrypting it took the module's stretch too)`);
}

await fetch('/result', { method: 'POST', body: JSON.stringify(results) });
