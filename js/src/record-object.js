// Builds the objects the WebAssembly module hands out as records (its
// `record_object.rs`): the module writes a record as a tape of operation
// codes and numbers (a Float64Array over its memory, read during the call
// only) and one string holding every string's text in order; this reads
// them back into the object `JSON.parse` would make of the record's JSON.
// The operation codes are `record_object.rs`'s `op` numbers.

const OBJECT = 0;
const ARRAY = 1;
const END = 2;
const KEY = 3;
const NEW_KEY = 4;
const TEXT_KEY = 5;
const NUMBER = 6;
const STRING = 7;
const TRUE = 8;
const FALSE = 9;
const NULL = 10;
const DECIMAL = 11;

/** Interned keys by number, as the module numbered them. */
const keys = [];

/**
 * Sets `o[key] = v` as `JSON.parse` would: an own property, even for
 * `__proto__` (which plain assignment would take as the prototype).
 */
function put(o, key, v) {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
  } else {
    o[key] = v;
  }
}

/**
 * The object one tape describes.
 * @param {Float64Array} ops
 * @param {string} text
 * @returns {unknown}
 */
export function buildRecord(ops, text) {
  let at = 0;
  let root;
  let container;
  let inArray = false;
  let key = '';
  const outer = [];
  for (let i = 0; i < ops.length;) {
    const code = ops[i++];
    let v;
    switch (code) {
      case KEY:
        key = keys[ops[i++]];
        continue;
      case NEW_KEY: {
        const id = ops[i++];
        const n = ops[i++];
        key = text.slice(at, (at += n));
        keys[id] = key;
        continue;
      }
      case TEXT_KEY: {
        const n = ops[i++];
        key = text.slice(at, (at += n));
        continue;
      }
      case END:
        container = outer.pop();
        inArray = Array.isArray(container);
        continue;
      case OBJECT:
        v = {};
        break;
      case ARRAY:
        v = [];
        break;
      case NUMBER:
        v = ops[i++];
        break;
      case STRING: {
        const n = ops[i++];
        v = text.slice(at, (at += n));
        break;
      }
      case DECIMAL: {
        const n = ops[i++];
        v = Number(text.slice(at, (at += n)));
        break;
      }
      case TRUE:
        v = true;
        break;
      case FALSE:
        v = false;
        break;
      case NULL:
        v = null;
        break;
      default:
        throw new Error(`record tape: unknown operation ${code}`);
    }
    if (container === undefined) root = v;
    else if (inArray) container.push(v);
    else put(container, key, v);
    if (code === OBJECT || code === ARRAY) {
      outer.push(container);
      container = v;
      inArray = code === ARRAY;
    }
  }
  return root;
}
