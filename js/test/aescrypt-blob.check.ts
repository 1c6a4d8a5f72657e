// Compiled by `tsc` (scripts/js-test), never run: the package's generated
// declarations must describe wireseal/aescrypt's decryptBlob and the
// VerifyPass / ReleasePass classes under it.
import { decryptBlob, ReleasePass, VerifyPass, type BlobSource, type DecryptOptions } from 'wireseal/aescrypt';

const file: Blob = new Blob([new Uint8Array(60)]);
const limits: DecryptOptions = { maxIterations: 1_000_000 };
const plain: ReadableStream<Uint8Array> = decryptBlob('hunter2', file, limits);
const custom: BlobSource = { stream: (): ReadableStream<Uint8Array> => new ReadableStream<Uint8Array>() };
const again: ReadableStream<Uint8Array> = decryptBlob(new TextEncoder().encode('hunter2'), custom);

const v: VerifyPass = new VerifyPass('hunter2', limits);
const nothing: void = v.update(new Uint8Array(10));
const r: ReleasePass = v.finish();
const released: Uint8Array[] = r.update(new Uint8Array(10));
const len: number = r.plaintextLen;
const version: number = r.version;
const done: void = r.finish();
void [plain, again, nothing, released, len, version, done];
