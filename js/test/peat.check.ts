// Compiled by `tsc` (scripts/js-test), never run: the declarations of
// wireseal/peat must describe its API.
import { peat, WiresealError } from 'wireseal';
import {
  Genesis,
  MeshSealer,
  PeerSessions,
  decide,
  type DataType,
  type Decision,
  type Level,
  type Link,
  type Protection,
  type Rule,
  type AdaptiveRecord,
} from 'wireseal/peat';

const g: Genesis = new peat.Genesis('ALPHA-TEAM', new Uint8Array(32));
const fresh = new Genesis('ALPHA-TEAM');
const id: string = g.meshId;
const secret: Uint8Array = fresh.secret;
const sealer: MeshSealer = g.sealer();
const frame: Uint8Array = sealer.seal(new Uint8Array(3));
const doc: Uint8Array = new MeshSealer(id, secret).open(frame);
const n: number = peat.sealedLen(3);
const mid: string = peat.meshId('ALPHA-TEAM', new Uint8Array(32));
const parsed: string = peat.parseMeshId('cbe6fc55');

const a: PeerSessions = new PeerSessions(0x1111, new Uint8Array(32), { maxSessions: 8, ttlMs: 60_000 });
const b = new peat.PeerSessions(0x2222, new Uint8Array(32));
const pub: Uint8Array = a.publicKey;
const hello: Uint8Array = a.initiate(0, 0x2222);
const [peer, reply]: [number, Uint8Array | undefined] = b.handleKeyExchange(1, hello);
const sealed: Uint8Array = a.seal(2, peer, new Uint8Array(1));
const [sender, counter, text]: [number, number, Uint8Array] = b.open(3, sealed);
const state: 'awaiting-peer-key' | 'established' | 'closed' | undefined = a.state(0x2222);
a.close(0x2222);
const expired: number[] = a.cleanupExpired(4);

const level: Level = 'selective';
const data: DataType = 'app:7';
const link: Link = 'known-peer';
const d: Decision = decide(level, data, link, {
  batteryPercent: 50,
  updateRateHz: 1.5,
  adaptive: [20, null],
  alwaysEncrypt: ['emergency', 'sensitive-chat'],
});
const p: Protection = d.protection;
const rule: Rule = d.decided_by;
const adaptive: AdaptiveRecord | null = d.adaptive;
const list: DataType[] = d.always_encrypt;
const plain: Decision = peat.decide('none', 'chat', 'trusted-local');
try {
  sealer.open(new Uint8Array(0));
} catch (e) {
  if (e instanceof WiresealError) void e.kind;
}
void [doc, n, mid, parsed, pub, reply, sender, counter, text, state, expired, p, rule, adaptive, list, plain];
