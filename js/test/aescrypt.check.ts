// Compiled by `tsc` (scripts/js-test), never run: the package's generated
// declarations must describe wireseal/aescrypt (a wrong name or type fails
// the build).
import { aescrypt, WiresealError } from 'wireseal';
import {
  CHUNK,
  DEFAULT_V3_ITERATIONS,
  Decryptor,
  Encryptor,
  decrypt,
  decryptStream,
  encrypt,
  encryptStream,
  type DecryptOptions,
  type EncryptOptions,
} from 'wireseal/aescrypt';

const data: Uint8Array = new TextEncoder().encode('attack at dawn');
const v2: Uint8Array = encrypt('hunter2', data);
const opts: EncryptOptions = {
  version: 3,
  iterations: DEFAULT_V3_ITERATIONS,
  extensions: [{ identifier: 'CREATED_BY', value: 'me' }, { identifier: 'X', value: new Uint8Array(2) }, { container: 128 }],
};
const v3: Uint8Array = aescrypt.encrypt(new TextEncoder().encode('hunter2'), data, opts);
const limits: DecryptOptions = { maxIterations: 1_000_000 };
const back: Uint8Array = decrypt('hunter2', v3, limits);
const same: Uint8Array = decrypt('hunter2', v2);

const e: Encryptor = new Encryptor('hunter2', { version: 2 });
const head: Uint8Array = e.update(data);
const tail: Uint8Array = e.finish();
e.free();
const d: Decryptor = new aescrypt.Decryptor('hunter2');
const nothing: void = d.update(head);
const all: Uint8Array = d.finish();
const d2 = new Decryptor('hunter2', { maxIterations: 10 });
const pieces: Uint8Array[] = d2.finishChunks();

const enc: TransformStream<Uint8Array, Uint8Array> = encryptStream('hunter2', { version: 3, iterations: 10 });
const dec: TransformStream<Uint8Array, Uint8Array> = decryptStream('hunter2', limits);
const plain: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>().pipeThrough(enc).pipeThrough(dec);
const chunk: number = CHUNK;

try {
  decrypt('wrong', v2);
} catch (err) {
  if (err instanceof WiresealError) {
    const kind: string = err.kind;
    void kind;
  }
}
void [back, same, tail, nothing, all, pieces, plain, chunk];
