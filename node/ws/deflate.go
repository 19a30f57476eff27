package ws

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/flate"
)

// permessage-deflate (RFC 7692). The library negotiates it, when the client
// offers it and Config.Compression allows, always without context takeover
// in either direction, and inflates what the client sends; the frames the
// server sends are framed here, so they are deflated here too.
//
// A notification is deflated once for all its subscribers, although each
// one's envelope names its own subscription. A message's deflate data is a
// sequence of blocks, and a block may refer back only to bytes before it in
// the same message: the envelope goes first as a stored (uncompressed)
// block of its own, and the shared rest follows as blocks that a fresh
// compressor made from the result alone, which refer only within
// themselves. Per subscriber that costs the stored block's 5-byte header,
// not a compression.

const (
	// rsv1 marks a frame whose message is deflated (RFC 7692 §6).
	rsv1 = 0x40
	// minDeflate is the smallest message that is deflated: below it the
	// saving is a few bytes and each message may choose (RFC 7692 §6.1).
	minDeflate = 256
	// deflateLevel trades CPU for bytes on messages deflated once for
	// every subscriber; see PERFORMANCE.md for what it saves.
	deflateLevel = 3
	// storedHeader is the length of a stored block's header.
	storedHeader = 5
)

// offersDeflate reports whether an upgrade request's
// Sec-WebSocket-Extensions header offers permessage-deflate, as the library
// decides when it accepts it.
func offersDeflate(header []byte) bool {
	for ext := range bytes.SplitSeq(header, []byte(",")) {
		if bytes.HasPrefix(bytes.TrimSpace(ext), []byte("permessage-deflate")) {
			return true
		}
	}
	return false
}

// syncTail is what a flush ends the deflate data with, and what a message
// drops (RFC 7692 §7.2.1): the receiver appends it back.
var syncTail = []byte{0x00, 0x00, 0xff, 0xff}

// deflater compresses messages, reusing compressors: each holds about a
// megabyte of tables.
type deflater struct{ pool sync.Pool }

// deflate returns the deflate data of the concatenation of parts, without
// the trailing sync marker, as permessage-deflate sends a message.
func (d *deflater) deflate(parts ...[]byte) []byte {
	var out bytes.Buffer
	w, _ := d.pool.Get().(*flate.Writer)
	if w == nil {
		w, _ = flate.NewWriter(&out, deflateLevel) // the level is valid: no error
	} else {
		w.Reset(&out)
	}
	for _, p := range parts {
		w.Write(p) // a bytes.Buffer does not fail
	}
	w.Flush()
	w.Reset(nil) // drop the buffer before the writer goes back to the pool
	d.pool.Put(w)
	return bytes.TrimSuffix(out.Bytes(), syncTail)
}

// appendStoredHeader appends the header of a stored (uncompressed),
// non-final deflate block of n < 64 KiB bytes, which the caller appends
// next. It ends on a byte boundary, where more deflate data may start.
func appendStoredHeader(dst []byte, n int) []byte {
	dst = append(dst, 0x00) // BFINAL 0, BTYPE 00, then padding to the byte
	dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
	return binary.LittleEndian.AppendUint16(dst, ^uint16(n))
}

// deflatedResult is p, a notification's result, with the envelope's end,
// deflated once for every subscriber that negotiated compression.
func (p *payload) deflatedResult(d *deflater) []byte {
	if z := p.z.Load(); z != nil {
		return *z
	}
	z := d.deflate(p.b, notifySuffix)
	// Shards deliver at once: one that lost the race uses the winner's,
	// which holds the same bytes.
	p.z.CompareAndSwap(nil, &z)
	return *p.z.Load()
}
