package seqlog

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkAppend measures synced appends to the embedded file store (the
// default deployment) of the entries the sequencer writes most: a tick's
// pre-confirmation of 50 transfers and a sealed block. The temp dir must be
// on the disk the node would use (TMPDIR) for the numbers to mean anything.
func BenchmarkAppend(b *testing.B) {
	txs := transfers(b, 1000)
	empty, emptyReceipts := sealedBlock(b, nil)
	full, fullReceipts := sealedBlock(b, txs)
	sealedEmpty, err := NewSealed(empty, emptyReceipts)
	if err != nil {
		b.Fatal(err)
	}
	sealedFull, err := NewSealed(full, fullReceipts)
	if err != nil {
		b.Fatal(err)
	}
	opened := pendingHeader(8)
	benches := []struct {
		name  string
		entry Entry
	}{
		{"opened", NewOpened(opened, NewPayloadID(opened))},
		{"preconfirmed-50tx", Preconfirmed{Number: 8, Index: 1, GasUsed: 50 * 21_000, Transactions: rawTxs(b, txs[:50])}},
		{"sealed-empty", sealedEmpty},
		{"sealed-1000tx", sealedFull},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			l := openTest(b, Config{})
			b.SetBytes(int64(len(mustEncodeB(b, bb.entry))))
			var lat []time.Duration
			ctx := context.Background()
			start := time.Now()
			for b.Loop() {
				t0 := time.Now()
				if _, err := l.Append(ctx, bb.entry); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			reportLatency(b, lat, time.Since(start))
		})
	}
}

func reportLatency(b *testing.B, lat []time.Duration, took time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds())
	}
	b.ReportMetric(float64(len(lat))/took.Seconds(), "appends/s")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

func mustEncodeB(b *testing.B, e Entry) []byte {
	enc, err := encodeEntry(e)
	if err != nil {
		b.Fatal(err)
	}
	return enc
}

// BenchmarkSignature measures what signing costs the sequencer per entry
// and verifying costs a reader, on a 50-transfer pre-confirmation (the
// ratio to BenchmarkAppend's time per append is the price of signed
// entries).
func BenchmarkSignature(b *testing.B) {
	keys, _ := writers(b, 1)
	key, err := deriveKey(keys[0]) // as Open makes it
	if err != nil {
		b.Fatal(err)
	}
	keys[0] = key
	data := mustEncodeB(b, Preconfirmed{Number: 8, Index: 1, GasUsed: 50 * 21_000, Transactions: rawTxs(b, transfers(b, 50))})
	subject := subjectPrefix(testChainID) + "preconfirmed"
	b.Run("sign", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := sign(keys[0], 9, subject, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		hdr, err := sign(keys[0], 9, subject, data)
		if err != nil {
			b.Fatal(err)
		}
		var s signers
		if err := s.load(signerMetadata(keys[0], 1)); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := s.check(9, subject, data, hdr); err != nil {
				b.Fatal(err)
			}
		}
	})
}
