// Compiled by `tsc` (scripts/js-test), never run: the package's generated
// declarations for wireseal/meshcore must describe its API.
import { meshcore, WiresealError } from 'wireseal';
import {
  ChannelKey,
  Decoder,
  LocalIdentity,
  MAX_TEXT_LEN,
  PUBLIC_CHANNEL_KEY,
  type PacketHeader,
  type PacketRecord,
} from 'wireseal/meshcore';

const pub: ChannelKey = ChannelKey.public();
const tag: ChannelKey = meshcore.ChannelKey.hashtag('#test');
const fromBytes: ChannelKey = ChannelKey.fromBytes(PUBLIC_CHANNEL_KEY);
const fromText: ChannelKey = ChannelKey.fromBase64('izOH6cXN6mrJ5e26oRXNcg==');
const hash: number = pub.hash;
const keyLen: number = tag.keyLen;

const me: LocalIdentity = LocalIdentity.generate();
const seeded: LocalIdentity = LocalIdentity.fromSeed(new Uint8Array(32));
const fromHex: LocalIdentity = LocalIdentity.fromHex('00'.repeat(32));
const fromKey: LocalIdentity = LocalIdentity.fromPrivateKey(me.privateKey());
const publicKey: Uint8Array = me.publicKey;
const signature: Uint8Array = me.sign(new Uint8Array(3));

const empty: Decoder = new Decoder();
const decoder: Decoder = new meshcore.Decoder({ channels: [pub, tag], identities: [me], peers: [publicKey] });
const n: number = decoder.addChannel(fromBytes);
decoder.addIdentity(seeded);
const added: boolean = decoder.addPeer(fromKey.publicKey);

const group: Uint8Array = meshcore.encryptGroup(pub, 1_700_000_000, 'Alice: hi'.slice(0, MAX_TEXT_LEN));
const advert: Uint8Array = meshcore.advert(me, 'node', 1_700_000_000, { lat: 52.37, lon: -4.89 });
const bare: Uint8Array = meshcore.advert(me, 'node', 1_700_000_000);
const dm: Uint8Array = meshcore.textMessage(me, seeded.publicKey, 1_700_000_000, 'hi', 1);
const dm0: Uint8Array = meshcore.textMessage(me, seeded.publicKey, 1_700_000_000, 'hi');

const record: PacketRecord = decoder.decode(group);
const later: PacketRecord = decoder.decode(group, Date.now());
const batch: Array<PacketRecord | WiresealError> = decoder.decodeBatch([group, dm], Date.now());
const first: PacketRecord | WiresealError = decoder.decodeBatch([group])[0];
const type: string = record.payload_type;
const path: string[] = record.path;
const codes: [number, number] | null = record.transport_codes;
const grp: Record<string, unknown> | undefined = record.grp_txt;
const line: string = empty.decodeJson(advert, 0);
const header: PacketHeader = meshcore.parse(dm);
const hops: Uint8Array[] = header.path;
const packetHash: Uint8Array = meshcore.packetHash(bare);

try {
  meshcore.parse(new Uint8Array(0));
} catch (e) {
  if (e instanceof WiresealError) {
    const kind: string = e.kind;
    const reason: string | undefined = e.reason;
    void [kind, reason];
  }
}
void [hash, keyLen, fromText, signature, n, added, dm, dm0, later, type, path, codes, grp, line, hops, packetHash];
