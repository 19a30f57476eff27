package main

import (
	"context"
	"io"
	"log/slog"

	gethlog "github.com/ethereum/go-ethereum/log"
)

// routeGethLogs sends go-ethereum's own logs to w at level, with its
// warnings about what the node does on purpose made debug lines.
func routeGethLogs(w io.Writer, level slog.Level) {
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: min(level, slog.LevelDebug)})
	gethlog.SetDefault(gethlog.NewLogger(expectedQuiet{Handler: h, level: level}))
}

// expectedGethWarnings are go-ethereum's warnings and errors about states
// the node reaches by design, each of which the node reports itself in one
// INFO line (app.Node.logStart):
//   - a new database has no head block until the genesis is written;
//   - after an unclean shutdown, a full node rewinds the chain to its last
//     persisted state (truncating the freezer to it) and replays the blocks
//     above: the safe and finalized blocks, which are every sealed block,
//     are passed on the way and set again by the replay; the state
//     histories and (archive) the snapshot journal newer than that state
//     are dropped, and the snapshot is rebuilt; the freezers cut the
//     tails they had not synced.
var expectedGethWarnings = map[string]bool{
	"Truncating dangling head":                   true,
	"Truncating dangling indexes":                true,
	"Truncating freezer items after flushOffset": true,
	"Rewinding freezer flushOffset":              true,
	"Truncated index file":                       true,
	"Truncated extra histories":                  true,
	"Failed to load snapshot":                    true,
	"Loaded snapshot journal":                    true,
	"Head block is not reachable":                true,
	"Head state missing, repairing":              true,
	"Truncating freezer table":                   true,
	"SetHead invalidated safe block":             true,
	"SetHead invalidated finalized block":        true,
}

// expectedQuiet is a handler that logs expectedGethWarnings at debug
// level, and everything else at its own level from level on.
type expectedQuiet struct {
	slog.Handler
	level slog.Level
}

func (h expectedQuiet) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level || l >= slog.LevelWarn // a warning may be expected, and then debug
}

func (h expectedQuiet) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn && expectedGethWarnings[r.Message] {
		r.Level = slog.LevelDebug
	}
	if r.Level < h.level {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h expectedQuiet) WithAttrs(attrs []slog.Attr) slog.Handler {
	return expectedQuiet{Handler: h.Handler.WithAttrs(attrs), level: h.level}
}

func (h expectedQuiet) WithGroup(name string) slog.Handler {
	return expectedQuiet{Handler: h.Handler.WithGroup(name), level: h.level}
}
