package pebblelog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLogger(t *testing.T) {
	var out bytes.Buffer
	l := New(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})), "address index")
	l.Infof("opened %d tables", 3)
	if !strings.Contains(out.String(), `level=DEBUG msg="Address index: opened 3 tables"`) {
		t.Errorf("Infof logged %q", out.String())
	}
	out.Reset()
	defer func() {
		if r := recover(); r != "address index: corrupt block 7" {
			t.Errorf("Fatalf panicked with %v", r)
		}
		if !strings.Contains(out.String(), `level=ERROR msg="Address index: corrupt block 7"`) {
			t.Errorf("Fatalf logged %q", out.String())
		}
	}()
	l.Fatalf("corrupt block %d", 7)
	t.Error("Fatalf returned")
}
