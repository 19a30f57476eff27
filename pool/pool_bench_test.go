package pool

import "testing"

// BenchmarkDo measures what every eth_call pays for the bound on top of its
// execution: taking and returning a slot.
func BenchmarkDo(b *testing.B) {
	p := New(Config{})
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Do(func() {}); err != nil {
			b.Fatal(err)
		}
	}
}
