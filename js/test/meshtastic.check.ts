// Compiled by `tsc` (scripts/js-test), never run: the package's generated
// declarations must describe its API (a wrong name or type fails the build).
import { meshtastic, WiresealError, version } from 'wireseal';
import { PkcEngine } from 'wireseal/meshtastic';

const own: Uint8Array = meshtastic.generatePrivateKey();
const engine: PkcEngine = new meshtastic.PkcEngine(own, { capacity: 64, ttlMs: 60_000 });
const sealed: Uint8Array = engine.seal(0, engine.publicKey, 0x929, 7, new Uint8Array(5));
const opened: Uint8Array = engine.open(0, engine.publicKey, 0x929, 7, sealed);
const stats: { hits: number; misses: number } = engine.cacheStats();
const key = new meshtastic.ChannelKey('AQ==');
const hash: number = key.hash('LongFast');
const decoder = new meshtastic.EnvelopeDecoder({ signaturePolicy: 'strict' });
const record: Record<string, unknown> = decoder.decode(0, new Uint8Array(0));
const ok: boolean = meshtastic.xeddsaVerify(own, 1, 2, 1, opened, new Uint8Array(64));
const n: number = meshtastic.nodeNumber(engine.publicKey);
const v: string = version();
const e = new WiresealError('auth', 'x');
const kind: string = e.kind;
void [stats, hash, record, ok, n, v, kind];
