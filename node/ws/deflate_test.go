package ws

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/flate"
)

// readFrame reads one unmasked server frame.
func readFrame(t *testing.T, r io.Reader) (deflated bool, op byte, data []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatal(err)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			t.Fatal(err)
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			t.Fatal(err)
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	data = make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		t.Fatal(err)
	}
	return h[0]&rsv1 != 0, h[0] & 0x0f, data
}

// inflate reads a permessage-deflate message as a client does (RFC 7692
// §7.2.2): the sync marker appended, then a final empty block so that the
// reader ends.
func inflate(t *testing.T, data []byte) []byte {
	t.Helper()
	tail := []byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff}
	out, err := io.ReadAll(flate.NewReader(io.MultiReader(bytes.NewReader(data), bytes.NewReader(tail))))
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	return out
}

func notification(id, result []byte) []byte {
	return append(append(append(append(append([]byte(nil), notifyPrefix...), id...), notifyMiddle...), result...), notifySuffix...)
}

// jsonLike is n bytes that compress as JSON of hashes does, or random
// bytes that do not compress.
func jsonLike(n int, random bool) []byte {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	b := make([]byte, 0, n+80)
	for len(b) < n {
		if random {
			b = append(b, byte(r.Uint32()))
			continue
		}
		b = append(b, `{"hash":"0x`...)
		for range 16 {
			b = append(b, "0123456789abcdef"[r.IntN(16)])
		}
		b = append(b, `","status":"0x1"},`...)
	}
	return b[:n]
}

func TestSendDeflates(t *testing.T) {
	id := []byte("0x0123456789abcdef0123456789abcdef")
	tests := []struct {
		name         string
		negotiated   bool
		notification bool
		body         []byte
		wantDeflated bool
	}{
		{"notification", true, true, jsonLike(3000, false), true},
		{"notification of incompressible bytes", true, true, jsonLike(1000, true), true},
		{"notification over 64 KiB", true, true, jsonLike(200_000, false), true},
		{"notification below the threshold", true, true, jsonLike(minDeflate-1, false), false},
		{"notification, not negotiated", false, true, jsonLike(3000, false), false},
		{"response", true, false, jsonLike(3000, false), true},
		{"response below the threshold", true, false, []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), false},
		{"response, not negotiated", false, false, jsonLike(3000, false), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, client, _ := socketConn(t)
			c.deflate = tt.negotiated
			go func() {
				m := outMsg{payload: &payload{b: tt.body}}
				if tt.notification {
					m.sub = c.subs[0]
				}
				c.send(m)
			}()
			want := tt.body
			if tt.notification {
				want = notification(id, tt.body)
			}
			deflated, op, data := readFrame(t, client)
			if op != opText || deflated != tt.wantDeflated {
				t.Fatalf("frame opcode %d deflated %v, want text deflated %v", op, deflated, tt.wantDeflated)
			}
			if deflated {
				data = inflate(t, data)
			}
			if !bytes.Equal(data, want) {
				t.Fatalf("message of %d bytes differs from the %d sent", len(data), len(want))
			}
		})
	}
}

// Subscribers share one deflated result, each with its own envelope.
func TestDeflatedResultIsShared(t *testing.T) {
	result := jsonLike(5000, false)
	d := &delivery{kind: kindNewHeads, payload: &payload{b: result}}
	var first *[]byte
	for _, id := range []string{"0x01", "0x0123456789abcdef0123456789abcdef"} {
		c, client, _ := socketConn(t)
		c.deflate = true
		c.subs[0].id = []byte(id)
		go c.deliver(d)
		deflated, _, data := readFrame(t, client)
		if !deflated {
			t.Fatal("a notification to a subscriber that negotiated compression went uncompressed")
		}
		if got, want := inflate(t, data), notification([]byte(id), result); !bytes.Equal(got, want) {
			t.Fatalf("subscriber %s: inflated %q, want %q", id, got[:100], want[:100])
		}
		if len(data) > len(result)*3/4 {
			t.Fatalf("deflated %d bytes of JSON to %d", len(result), len(data))
		}
		if first == nil {
			first = d.payload.z.Load()
		} else if d.payload.z.Load() != first {
			t.Fatal("the result was deflated again for the second subscriber")
		}
	}
}

// Deflating adds no allocation per subscriber: the result is deflated
// once, for the first.
func TestDeliverDeflatedDoesNotAllocate(t *testing.T) {
	c, client, d := socketConn(t)
	c.deflate = true
	d.payload.b = jsonLike(1200, false)
	c.deliver(d) // deflates the result; the connection's buffer grows once
	head := len(notifyPrefix) + len(c.subs[0].id) + len(notifyMiddle)
	n := storedHeader + head + len(*d.payload.z.Load())
	if allocs := deliverAllocs(t, c, client, d, len(appendFrameHeader(nil, opText, n))+n); allocs != 0 {
		t.Fatalf("deliver allocates %.1f times per deflated notification, want 0", allocs)
	}
}

func TestOffersDeflate(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"permessage-deflate", true},
		{"permessage-deflate; client_max_window_bits", true},
		{"x-webkit-deflate-frame, permessage-deflate; server_no_context_takeover", true},
		{"x-webkit-deflate-frame", false},
	}
	for _, tt := range tests {
		if got := offersDeflate([]byte(tt.header)); got != tt.want {
			t.Errorf("offersDeflate(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// BenchmarkDeflateFlashblock deflates a newFlashblocks result of 200
// transactions once: the CPU a notification costs with compression,
// however many subscribers take it.
func BenchmarkDeflateFlashblock(b *testing.B) {
	result := flashblockJSON(200)
	var d deflater
	var z []byte
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		z = d.deflate(result, notifySuffix)
	}
	b.ReportMetric(float64(len(z))/float64(len(result)+len(notifySuffix)), "ratio")
}

// flashblockJSON is a newFlashblocks result of n transaction hashes.
func flashblockJSON(n int) []byte {
	r := rand.New(rand.NewPCG(2, 3))
	var buf bytes.Buffer
	buf.WriteString(`{"number":"0x1b2f3","index":"0x4","parentHash":"0x`)
	hex := func() {
		for range 32 {
			buf.WriteString([]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"}[r.IntN(16)])
			buf.WriteString([]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"}[r.IntN(16)])
		}
	}
	hex()
	buf.WriteString(`","timestamp":"0x6927e0a1","gasUsed":"0x3d0900","baseFeePerGas":"0x3b9aca00","transactions":[`)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"0x`)
		hex()
		buf.WriteByte('"')
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}

// BenchmarkDeliverDeflated is BenchmarkDeliver for subscribers that
// negotiated compression, with a head-sized result that compresses as JSON
// does, beside the same result sent plain: the cost per subscriber once the
// result is deflated.
func BenchmarkDeliverDeflated(b *testing.B) {
	result := jsonLike(1200, false)
	for _, deflate := range []bool{false, true} {
		name := "plain"
		if deflate {
			name = "deflated"
		}
		b.Run(name, func(b *testing.B) {
			benchmarkDeliver(b, &delivery{kind: kindNewHeads, payload: &payload{b: result}}, deflate)
		})
	}
}
