package codec

import (
	"strings"
	"testing"

	"github.com/holiman/uint256"
)

// Micro-benchmarks of the pieces; the end-to-end paths are in ../bench.

func BenchmarkScanRequest(b *testing.B) {
	b.SetBytes(int64(len(getBalanceBody)))
	for b.Loop() {
		var req Request
		if ScanRequest(getBalanceBody, &req) != nil {
			b.Fatal("scan failed")
		}
	}
}

func BenchmarkValidLargeData(b *testing.B) {
	// An eth_sendRawTransaction of a 24 KiB contract deployment.
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x` + strings.Repeat("60806040", 6*1024) + `"]}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !Valid(body) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkParseAddress(b *testing.B) {
	raw := []byte(`"0x70997970c51812dc3a010c7d01b50e0d17dc79c8"`)
	for b.Loop() {
		if _, err := ParseAddress(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendData(b *testing.B) {
	raw := []byte(`"0x` + strings.Repeat("60806040", 6*1024) + `"`)
	buf := make([]byte, 0, len(raw))
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var err error
		if buf, err = AppendData(buf[:0], raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseUint256(b *testing.B) {
	raw := []byte(`"0x21e19e0c9bab2400000"`)
	var z uint256.Int
	for b.Loop() {
		if err := ParseUint256(raw, &z); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseBlockParam(b *testing.B) {
	raw := []byte(`"latest"`)
	for b.Loop() {
		if _, err := ParseBlockParam(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendBytes(b *testing.B) {
	data := []byte(strings.Repeat("\x60\x80\x60\x40\xde\xad\xbe\xef", 1024))
	buf := make([]byte, 0, 2*len(data)+4)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		buf = AppendBytes(buf[:0], data)
	}
}
