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
} catch (e) {
  check('load and run', false, e && e.stack ? e.stack : e);
}

await fetch('/result', { method: 'POST', body: JSON.stringify(results) });
