package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// After a burst of large requests the heap holds garbage and free pages
// that the runtime gives back only slowly: the next collection waits until
// the heap has grown to twice what was live at the last one (the burst's
// size), and the scavenger returns free pages at a trickle. An idle node
// stays at its peak for minutes. returnMemory looks every checkEvery and,
// when the heap the process retains exceeds twice the live heap by more
// than slack, collects and returns the surplus at once (FreeOSMemory), at
// most once per minGap. In steady operation the retained heap stays near
// twice the live one (GOGC=100) and this never fires.
func returnMemory(ctx context.Context, log *slog.Logger) {
	const checkEvery = 5 * time.Second
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	ticker := time.NewTicker(checkEvery)
	defer ticker.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-ticker.C:
			metrics.Read(samples)
			live := samples[0].Value.Uint64()
			retained := samples[1].Value.Uint64() + samples[2].Value.Uint64() + samples[3].Value.Uint64()
			if !surplus(live, retained, now.Sub(last)) {
				continue
			}
			last = now
			debug.FreeOSMemory()
			log.Debug("Returned memory after a burst", "retainedMiB", retained>>20, "liveMiB", live>>20)
		}
	}
}

// surplus reports whether a heap retaining retained bytes around live ones
// holds a burst's leftovers worth returning, sinceLast after the last return.
func surplus(live, retained uint64, sinceLast time.Duration) bool {
	const (
		minGap = 30 * time.Second
		slack  = 256 << 20
	)
	return retained > 2*live+slack && sinceLast >= minGap
}
