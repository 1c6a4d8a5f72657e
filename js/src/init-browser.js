// Browsers: the module fetched from beside this file and compiled while it
// streams in; importing the package waits for it (top-level await). Where
// WebCrypto is available (secure contexts), version 3 AES Crypt keys are
// stretched with its PBKDF2 by the asynchronous readers (see stretch.js).
import { init, setPlatformPbkdf2 } from '../wireseal.js';

await init({ module_or_path: new URL('../wasm/wireseal_wasm_bg.wasm', import.meta.url) });

const subtle = globalThis.crypto?.subtle;
if (subtle !== undefined) {
  setPlatformPbkdf2(async (password, salt, iterations) => {
    const k = await subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations }, k, 256);
    return new Uint8Array(bits);
  });
}
