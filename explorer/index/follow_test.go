package index

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestWarningOnce logs a failure that repeats at every block once, a new
// one at once, and the same one again after a success.
func TestWarningOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var w warning
	a, b := errors.New("disk full"), errors.New("block 7 missing")
	for _, err := range []error{a, a, a, b, b, nil, b} {
		w.report(log, err)
	}
	if got := strings.Count(buf.String(), "disk full"); got != 1 {
		t.Errorf("first failure logged %d times:\n%s", got, buf.String())
	}
	if got := strings.Count(buf.String(), "block 7 missing"); got != 2 {
		t.Errorf("second failure logged %d times:\n%s", got, buf.String())
	}
}
