package pool

import "testing"

// BenchmarkDo measures what every eth_call pays for the bound on top of its
// execution: taking and returning a slot.
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
