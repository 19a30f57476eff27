package pool

import "testing"

// BenchmarkDo measures the hand-off of one task to a worker and back, what
// every eth_call pays on top of its execution.
func BenchmarkDo(b *testing.B) {
	p, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Do(func() {}); err != nil {
			b.Fatal(err)
		}
	}
}
