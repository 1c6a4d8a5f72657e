// Command sphinx-peer is wireseal's interop and benchmark helper for
// lightning-onion (github.com/lightningnetwork/lightning-onion v1.3.0, the
// Sphinx implementation in lnd). It reads one JSON request on stdin and writes
// one JSON response on stdout.
//
// Operations ("op"):
//
//	build      session_key, associated_data, hops [{pubkey, payload}], area -> onion
//	peel       node_key, associated_data, onion, [blinding_point] -> payload, final, next_onion
//	fail       hops [{node_key, ephemeral}] (failing hop first), message -> packet
//	unwrap     session_key, pubkeys, packet -> sender_idx (0-based), message
//	bench      budget_ms, samples -> median ns per op for 20-hop build, 1-hop build, peel
//
// Payloads are TLV streams without their BigSize length prefix.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	sphinx "github.com/lightningnetwork/lightning-onion"
)

type hop struct {
	Pubkey    string `json:"pubkey"`
	Payload   string `json:"payload"`
	NodeKey   string `json:"node_key"`
	Ephemeral string `json:"ephemeral"`
}

type request struct {
	Op             string   `json:"op"`
	SessionKey     string   `json:"session_key"`
	AssociatedData string   `json:"associated_data"`
	Hops           []hop    `json:"hops"`
	Area           int      `json:"area"`
	NodeKey        string   `json:"node_key"`
	Onion          string   `json:"onion"`
	BlindingPoint  string   `json:"blinding_point"`
	Message        string   `json:"message"`
	Pubkeys        []string `json:"pubkeys"`
	Packet         string   `json:"packet"`
	BudgetMs       int      `json:"budget_ms"`
	Samples        int      `json:"samples"`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "sphinx-peer:", err)
		os.Exit(1)
	}
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	must(err)
	return b
}

func priv(s string) *btcec.PrivateKey {
	k, _ := btcec.PrivKeyFromBytes(unhex(s))
	return k
}

func pub(s string) *btcec.PublicKey {
	p, err := btcec.ParsePubKey(unhex(s))
	must(err)
	return p
}

func buildOnion(session *btcec.PrivateKey, hops []hop, ad []byte, area int) *sphinx.OnionPacket {
	var path sphinx.PaymentPath
	if len(hops) > len(path) {
		must(fmt.Errorf("at most %d hops", len(path)))
	}
	for i, h := range hops {
		p, err := sphinx.NewTLVHopPayload(unhex(h.Payload))
		must(err)
		path[i] = sphinx.OnionHop{NodePub: *pub(h.Pubkey), HopPayload: p}
	}
	if area == 0 {
		area = sphinx.MaxRoutingPayloadSize
	}
	pkt, err := sphinx.NewOnionPacket(&path, session, ad,
		sphinx.DeterministicPacketFiller, sphinx.WithMaxPayloadSize(area))
	must(err)
	return pkt
}

func encode(pkt *sphinx.OnionPacket) []byte {
	var b bytes.Buffer
	must(pkt.Encode(&b))
	return b.Bytes()
}

func decode(b []byte) *sphinx.OnionPacket {
	var pkt sphinx.OnionPacket
	must(pkt.Decode(bytes.NewReader(b)))
	return &pkt
}

// failureBody is failure_len | message | pad_len | pad, padded to 256 bytes.
func failureBody(msg []byte) []byte {
	pad := 256 - len(msg)
	if pad < 0 {
		pad = 0
	}
	out := make([]byte, 0, 4+len(msg)+pad)
	out = binary.BigEndian.AppendUint16(out, uint16(len(msg)))
	out = append(out, msg...)
	out = binary.BigEndian.AppendUint16(out, uint16(pad))
	return append(out, make([]byte, pad)...)
}

func median(f func(), budget time.Duration, samples int) float64 {
	per := budget / time.Duration(samples)
	n := 1
	for {
		t := time.Now()
		for i := 0; i < n; i++ {
			f()
		}
		el := time.Since(t)
		if el >= per/4 || n >= 1<<24 {
			scale := float64(per) / float64(el+1)
			if scale < 1 {
				scale = 1
			}
			n = int(float64(n)*scale) + 1
			break
		}
		n *= 4
	}
	v := make([]float64, samples)
	for s := range v {
		t := time.Now()
		for i := 0; i < n; i++ {
			f()
		}
		v[s] = float64(time.Since(t).Nanoseconds()) / float64(n)
	}
	sort.Float64s(v)
	return v[samples/2]
}

func allocs(f func()) float64 {
	var a, b runtime.MemStats
	const n = 50
	runtime.ReadMemStats(&a)
	for i := 0; i < n; i++ {
		f()
	}
	runtime.ReadMemStats(&b)
	return float64(b.Mallocs-a.Mallocs) / n
}

func main() {
	var req request
	must(json.NewDecoder(os.Stdin).Decode(&req))
	out := map[string]any{}
	switch req.Op {
	case "build":
		pkt := buildOnion(priv(req.SessionKey), req.Hops, unhex(req.AssociatedData), req.Area)
		out["onion"] = hex.EncodeToString(encode(pkt))
	case "peel":
		router := sphinx.NewRouter(&sphinx.PrivKeyECDH{PrivKey: priv(req.NodeKey)}, sphinx.NewNoOpReplayLog())
		var opts []sphinx.ProcessOnionOpt
		if req.BlindingPoint != "" {
			opts = append(opts, sphinx.WithBlindingPoint(pub(req.BlindingPoint)))
		}
		p, err := router.ProcessOnionPacket(decode(unhex(req.Onion)), unhex(req.AssociatedData), 0, opts...)
		must(err)
		out["payload"] = hex.EncodeToString(p.Payload.Payload)
		out["final"] = p.Action == sphinx.ExitNode
		if p.Action == sphinx.MoreHops {
			out["next_onion"] = hex.EncodeToString(encode(p.NextPacket))
		} else {
			out["next_onion"] = nil
		}
	case "fail":
		var data []byte
		for i, h := range req.Hops {
			router := sphinx.NewRouter(&sphinx.PrivKeyECDH{PrivKey: priv(h.NodeKey)}, sphinx.NewNoOpReplayLog())
			enc, err := sphinx.NewOnionErrorEncrypter(router, pub(h.Ephemeral))
			must(err)
			if i == 0 {
				data = enc.EncryptError(true, failureBody(unhex(req.Message)))
			} else {
				data = enc.EncryptError(false, data)
			}
		}
		out["packet"] = hex.EncodeToString(data)
	case "unwrap":
		var path []*btcec.PublicKey
		for _, p := range req.Pubkeys {
			path = append(path, pub(p))
		}
		d := sphinx.NewOnionErrorDecrypter(&sphinx.Circuit{SessionKey: priv(req.SessionKey), PaymentPath: path})
		e, err := d.DecryptError(unhex(req.Packet))
		must(err)
		body := e.Message
		l := int(binary.BigEndian.Uint16(body[:2]))
		out["sender_idx"] = e.SenderIdx - 1
		out["message"] = hex.EncodeToString(body[2 : 2+l])
	case "bench":
		budget := time.Duration(req.BudgetMs) * time.Millisecond
		samples := req.Samples
		if samples < 3 {
			samples = 3
		}
		session := priv(hex.EncodeToString(bytes.Repeat([]byte{0x41}, 32)))
		ad := bytes.Repeat([]byte{0x42}, 32)
		payload := hex.EncodeToString(bytes.Repeat([]byte{0x07}, 20))
		var hops20 []hop
		var nodeKeys []*btcec.PrivateKey
		for i := 0; i < 20; i++ {
			k := priv(hex.EncodeToString(bytes.Repeat([]byte{byte(0x50 + i)}, 32)))
			nodeKeys = append(nodeKeys, k)
			hops20 = append(hops20, hop{Pubkey: hex.EncodeToString(k.PubKey().SerializeCompressed()), Payload: payload})
		}
		b20 := func() { buildOnion(session, hops20, ad, 0) }
		b1 := func() { buildOnion(session, hops20[:1], ad, 0) }
		pkt := buildOnion(session, hops20, ad, 0)
		router := sphinx.NewRouter(&sphinx.PrivKeyECDH{PrivKey: nodeKeys[0]}, sphinx.NewNoOpReplayLog())
		peel := func() {
			_, err := router.ProcessOnionPacket(pkt, ad, 0)
			must(err)
		}
		out["build20_ns"] = median(b20, budget, samples)
		out["build1_ns"] = median(b1, budget, samples)
		out["peel_ns"] = median(peel, budget, samples)
		out["build20_allocs"] = allocs(b20)
	default:
		must(fmt.Errorf("unknown op %q", req.Op))
	}
	must(json.NewEncoder(os.Stdout).Encode(out))
}
