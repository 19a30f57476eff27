package callstate

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

func TestResults(t *testing.T) {
	entry := int64(len("k1") + len("ret1") + resultOverhead)
	tests := []struct {
		name   string
		limit  int64
		puts   [][2]string // key, return data, in order
		get    string
		want   string
		wantOK bool
		used   int64
	}{
		{name: "empty", limit: 1 << 20, get: "k1"},
		{name: "remembered", limit: 1 << 20, puts: [][2]string{{"k1", "ret1"}}, get: "k1", want: "ret1", wantOK: true, used: entry},
		{name: "other key", limit: 1 << 20, puts: [][2]string{{"k1", "ret1"}}, get: "k2", used: entry},
		{name: "first answer kept", limit: 1 << 20, puts: [][2]string{{"k1", "ret1"}, {"k1", "ret2"}}, get: "k1", want: "ret1", wantOK: true, used: entry},
		{name: "exactly the limit", limit: entry, puts: [][2]string{{"k1", "ret1"}}, get: "k1", want: "ret1", wantOK: true, used: entry},
		{name: "past the limit", limit: entry - 1, puts: [][2]string{{"k1", "ret1"}}, get: "k1"},
		{name: "full: later keys dropped", limit: entry, puts: [][2]string{{"k1", "ret1"}, {"k2", "ret2"}}, get: "k2", used: entry},
		{name: "empty return data", limit: 1 << 20, puts: [][2]string{{"k1", ""}}, get: "k1", want: "", wantOK: true, used: int64(2 + resultOverhead)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewResults(tc.limit)
			for _, p := range tc.puts {
				ret := []byte(p[1])
				r.Put([]byte(p[0]), ret)
				copy(ret, "XXXX") // the caller's buffer is reused: Put must have copied it
			}
			got, ok := r.Get([]byte(tc.get))
			if ok != tc.wantOK || string(got) != tc.want {
				t.Errorf("Get(%q) = %q, %v; want %q, %v", tc.get, got, ok, tc.want, tc.wantOK)
			}
			if r.Bytes() != tc.used {
				t.Errorf("Bytes() = %d, want %d", r.Bytes(), tc.used)
			}
		})
	}
}

// TestResultsConcurrent puts and gets from many goroutines (run with -race):
// every key read back holds its own value, and the limit holds.
func TestResultsConcurrent(t *testing.T) {
	const workers, keys = 8, 500
	r := NewResults(200 * (resultOverhead + 16))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				k := fmt.Sprintf("key-%d", (i+w*37)%keys)
				if v, ok := r.Get([]byte(k)); ok && string(v) != "val-"+k {
					t.Errorf("Get(%s) = %s", k, v)
				}
				r.Put([]byte(k), []byte("val-"+k))
			}
		}()
	}
	wg.Wait()
	if r.Bytes() > r.limit {
		t.Errorf("Bytes() = %d past the limit %d", r.Bytes(), r.limit)
	}
}

func TestResultShardFillsACacheLine(t *testing.T) {
	if size := unsafe.Sizeof(resultShard{}); size != 64 {
		t.Errorf("a resultShard is %d bytes: its padding no longer fills a 64-byte cache line", size)
	}
}

func TestPoolResults(t *testing.T) {
	p := NewPool([32]byte{}, nil, nil)
	if p.Results(0) != nil {
		t.Error("Results(0) is not nil: a node that remembers none made a memo")
	}
	r := p.Results(1 << 20)
	if r == nil || p.Results(1<<10) != r {
		t.Error("a pool's Results are not made once and then shared")
	}
}

// BenchmarkResults measures a remembered answer (hit) and remembering a
// new one (miss), with eth_call-sized keys and answers.
func BenchmarkResults(b *testing.B) {
	key := make([]byte, 8+140)
	ret := make([]byte, 32)
	b.Run("hit", func(b *testing.B) {
		r := NewResults(4 << 20)
		r.Put(key, ret)
		b.ReportAllocs()
		for b.Loop() {
			r.Get(key)
		}
	})
	b.Run("miss", func(b *testing.B) {
		r := NewResults(4 << 20)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i%10_000 == 0 {
				r = NewResults(4 << 20) // a new state every 10,000 calls
			}
			i++
			key[0], key[1], key[2] = byte(i), byte(i>>8), byte(i>>16)
			if _, ok := r.Get(key); !ok {
				r.Put(key, ret)
			}
		}
	})
}
