// Browsers: the module fetched from beside this file and compiled while it
// streams in; importing the package waits for it (top-level await).
import init from '../wasm/wireseal_wasm.js';

await init({ module_or_path: new URL('../wasm/wireseal_wasm_bg.wasm', import.meta.url) });
