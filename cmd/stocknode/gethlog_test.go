package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// go-ethereum's warnings about what the node does on purpose are debug
// lines; every other warning stays one.
func TestExpectedGethWarningsAreDebug(t *testing.T) {
	for _, tt := range []struct {
		level slog.Level // the handler's
		msg   string
		want  string // "" for nothing logged
	}{
		{slog.LevelWarn, "Truncating freezer table", ""},
		{slog.LevelWarn, "SetHead invalidated finalized block", ""},
		{slog.LevelDebug, "Truncating freezer table", "level=DEBUG"},
		{slog.LevelWarn, "Database compaction failed", "level=WARN"},
		{slog.LevelError, "Database compaction failed", ""},
	} {
		var out bytes.Buffer
		h := expectedQuiet{Handler: slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}), level: tt.level}
		log := slog.New(h)
		level := slog.LevelWarn
		if strings.HasPrefix(tt.msg, "SetHead invalidated finalized") {
			level = slog.LevelError
		}
		log.Log(context.Background(), level, tt.msg)
		got := out.String()
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("at %v, %q logged %q, want %q", tt.level, tt.msg, got, tt.want)
		}
	}
}
