// Compiled by `tsc` (scripts/js-test), never run: the declarations of
// wireseal/bip324 must describe its API.
import { bip324, WiresealError } from 'wireseal';
import {
  Connection,
  KeyPool,
  PacketCipher,
  MAX_GARBAGE_LEN,
  NETWORKS,
  REKEY_INTERVAL,
  type Network,
} from 'wireseal/bip324';

const pool: KeyPool = new bip324.KeyPool(8);
const ready: number = pool.length;
const cap: number = pool.capacity;
const added: number = pool.fill();
const stats: { ready: number; capacity: number; generated: number; taken: number; misses: number } =
  pool.stats();
const network: Network = 'signet';
const a: Connection = new Connection('initiator', {
  network,
  garbage: new Uint8Array(MAX_GARBAGE_LEN),
  decoys: [new Uint8Array(1)],
  maxContents: 1 << 20,
  pool,
});
const b = new Connection('responder', { network: Uint8Array.of(0x0a, 0x03, 0xcf, 0x40), secretKey: new Uint8Array(32) });
const plain = new Connection('initiator');
const out: Uint8Array = a.dataToSend();
const got: Uint8Array[] = b.receiveData(out);
const established: boolean = a.established;
const v1: boolean = b.peerIsV1;
const name: string = a.network;
const id: Uint8Array | undefined = a.sessionId;
a.send(new Uint8Array(3));
a.send(new Uint8Array(3), { decoy: true });

const c: PacketCipher = new PacketCipher(new Uint8Array(32), 'initiator', { network: 'mainnet', maxContents: 100 });
const sid: Uint8Array = c.sessionId;
const [send, recv]: [Uint8Array, Uint8Array] = c.garbageTerminators;
const packet: Uint8Array = c.seal(new Uint8Array(1), { decoy: false, aad: new Uint8Array(2) });
const opened: [Uint8Array, boolean, number] | undefined = c.open(packet, { aad: new Uint8Array(2) });
const len: number = c.decryptLength(packet.subarray(0, 3));
const [contents, decoy]: [Uint8Array, boolean] = c.openBody(packet.subarray(3));
const rekey: 224 = REKEY_INTERVAL;
const names: readonly string[] = NETWORKS;
try {
  plain.send(new Uint8Array(0));
} catch (e) {
  if (e instanceof WiresealError) void e.kind;
}
pool.free();
void [ready, cap, added, stats, got, established, v1, name, id, sid, send, recv, opened, len, contents, decoy, rekey, names];
