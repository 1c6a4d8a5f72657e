// Node: the module's bytes read from the package folder, compiled once,
// synchronously, when the package is first imported.
import { readFileSync } from 'node:fs';
import { initSync } from '../wasm/wireseal_wasm.js';

initSync({ module: readFileSync(new URL('../wasm/wireseal_wasm_bg.wasm', import.meta.url)) });
