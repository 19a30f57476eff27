package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// After a burst of large requests, the heap holds garbage and free pages
// that the runtime gives back only slowly: the next collection waits until
// the heap has doubled from what was live at the last one (which was the
// burst), which an idle node takes minutes to do, and the scavenger then
// returns free pages at a trickle. returnMemory watches for a heap that no
// collection has touched for quietFor while it retains more than slack over
// what it retained after the last return, and collects and returns the
// surplus then (FreeOSMemory). A node under load collects every few seconds
// and is left alone; an idle one that only grows slowly costs an early
// collection now and then.
func returnMemory(ctx context.Context, log *slog.Logger) {
	const checkEvery = 2 * time.Second
	samples := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	read := func() (cycles, retained uint64) {
		metrics.Read(samples)
		return samples[0].Value.Uint64(), samples[1].Value.Uint64() + samples[2].Value.Uint64() + samples[3].Value.Uint64()
	}
	cycles, baseline := read()
	lastGC, lastReturn := time.Now(), time.Time{}
	ticker := time.NewTicker(checkEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-ticker.C:
			c, retained := read()
			if c != cycles {
				cycles, lastGC = c, now
			}
			baseline = min(baseline, retained)
			if !surplus(retained, baseline, now.Sub(lastGC), now.Sub(lastReturn)) {
				continue
			}
			debug.FreeOSMemory()
			cycles, baseline = read()
			lastGC, lastReturn = now, now
			log.Debug("Returned memory after a burst", "retainedMiB", retained>>20, "nowMiB", baseline>>20)
		}
	}
}

// surplus reports whether a heap retaining retained bytes, against
// baseline after the last return, holds a burst's leftovers worth
// returning: no collection for quietFor, none forced for quietFor either.
func surplus(retained, baseline uint64, sinceGC, sinceReturn time.Duration) bool {
	const (
		quietFor = 10 * time.Second
		slack    = 64 << 20
	)
	return retained > baseline+slack && sinceGC >= quietFor && sinceReturn >= quietFor
}
