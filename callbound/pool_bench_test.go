package callbound

import "testing"

// BenchmarkDo measures what every eth_call pays for the bound on top of its
// execution: taking and returning a slot, and its task.
func BenchmarkDo(b *testing.B) {
	p := New(Config{})
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Do(Caller{}, 0, func(*Task) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDoParallel is the same with every CPU's goroutines contending.
func BenchmarkDoParallel(b *testing.B) {
	p := New(Config{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := p.Do(Caller{}, 0, func(*Task) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
