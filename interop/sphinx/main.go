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
//	bench_serve  session_key, associated_data, hops, node_key -> {"ready": true},
//	           then one command per line until stdin closes:
//	           {"op": "calibrate", "workload": W, "per_sample_ns": P} -> {"n": calls per sample}
//	           {"op": "sample", "workload": W, "n": N} -> {"ns_per_op": ...}
//	           W is "buildN" (the route's first N hops: "build20", "build1", ...) or "peel" (the
//	           first layer of the all-hop onion, with node_key).
//
// In bench_serve the keys are parsed and the routes built once, before any
// timing: a sample times only NewOnionPacket or ProcessOnionPacket (on an
// already decoded packet), in-process, so the caller can interleave its own
// samples with these.
//
// Payloads are TLV streams without their BigSize length prefix.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
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

// pathOf parses the hop keys and payloads into a payment path.
func pathOf(hops []hop) *sphinx.PaymentPath {
	var path sphinx.PaymentPath
	if len(hops) > len(path) {
		must(fmt.Errorf("at most %d hops", len(path)))
	}
	for i, h := range hops {
		p, err := sphinx.NewTLVHopPayload(unhex(h.Payload))
		must(err)
		path[i] = sphinx.OnionHop{NodePub: *pub(h.Pubkey), HopPayload: p}
	}
	return &path
}

// newOnion builds an onion along an already parsed path (deterministic filler).
func newOnion(path *sphinx.PaymentPath, session *btcec.PrivateKey, ad []byte, area int) *sphinx.OnionPacket {
	if area == 0 {
		area = sphinx.MaxRoutingPayloadSize
	}
	pkt, err := sphinx.NewOnionPacket(path, session, ad,
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

// callsPerSample: how many calls of f fill one sample of per.
func callsPerSample(f func(), per time.Duration) int {
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
			return int(float64(n)*scale) + 1
		}
		n *= 4
	}
}

// sample: nanoseconds per call of f over n calls.
func sample(f func(), n int) float64 {
	t := time.Now()
	for i := 0; i < n; i++ {
		f()
	}
	return float64(time.Since(t).Nanoseconds()) / float64(n)
}

type benchCmd struct {
	Op          string `json:"op"`
	Workload    string `json:"workload"`
	PerSampleNs int64  `json:"per_sample_ns"`
	N           int    `json:"n"`
}

// benchServe sets up the workloads once (keys parsed, routes built, the onion
// to peel decoded), then answers calibrate / sample commands until EOF.
func benchServe(dec *json.Decoder, req request) {
	session := priv(req.SessionKey)
	ad := unhex(req.AssociatedData)
	if len(req.Hops) == 0 {
		must(fmt.Errorf("bench_serve needs hops"))
	}
	all := pathOf(req.Hops)
	pkt := newOnion(all, session, ad, 0)
	router := sphinx.NewRouter(&sphinx.PrivKeyECDH{PrivKey: priv(req.NodeKey)}, sphinx.NewNoOpReplayLog())
	workloads := map[string]func(){
		"peel": func() {
			p, err := router.ProcessOnionPacket(pkt, ad, 0)
			must(err)
			if p.Action != sphinx.MoreHops && len(req.Hops) > 1 {
				must(fmt.Errorf("peel: expected a forward"))
			}
		},
	}
	enc := json.NewEncoder(os.Stdout)
	must(enc.Encode(map[string]any{"ready": true}))
	for {
		var c benchCmd
		err := dec.Decode(&c)
		if errors.Is(err, io.EOF) {
			return
		}
		must(err)
		f, ok := workloads[c.Workload]
		if !ok {
			f, ok = buildPrefix(req.Hops, session, ad, c.Workload)
			if !ok {
				must(fmt.Errorf("unknown workload %q", c.Workload))
			}
			workloads[c.Workload] = f
		}
		switch c.Op {
		case "calibrate":
			must(enc.Encode(map[string]any{"n": callsPerSample(f, time.Duration(c.PerSampleNs))}))
		case "sample":
			if c.N < 1 {
				c.N = 1
			}
			must(enc.Encode(map[string]any{"ns_per_op": sample(f, c.N)}))
		default:
			must(fmt.Errorf("unknown bench command %q", c.Op))
		}
	}
}

// buildPrefix: the workload "buildN", building along the route's first N
// hops (1 <= N <= the route's length), the path parsed once.
func buildPrefix(hops []hop, session *btcec.PrivateKey, ad []byte, name string) (func(), bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "build"))
	if !strings.HasPrefix(name, "build") || err != nil || n < 1 || n > len(hops) {
		return nil, false
	}
	path := pathOf(hops[:n])
	return func() { newOnion(path, session, ad, 0) }, true
}

func main() {
	var req request
	dec := json.NewDecoder(os.Stdin)
	must(dec.Decode(&req))
	out := map[string]any{}
	switch req.Op {
	case "build":
		pkt := newOnion(pathOf(req.Hops), priv(req.SessionKey), unhex(req.AssociatedData), req.Area)
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
	case "bench_serve":
		benchServe(dec, req)
		return
	default:
		must(fmt.Errorf("unknown op %q", req.Op))
	}
	must(json.NewEncoder(os.Stdout).Encode(out))
}
