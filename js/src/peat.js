// `wireseal/peat` is all WebAssembly exports; this file only carries the
// policy's TypeScript types (peat.d.ts) into the module.
export {};
