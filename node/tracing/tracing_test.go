package tracing

import (
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"
)

// Every tracer the error message lists is one go-ethereum registered.
func TestTracersRegistered(t *testing.T) {
	for _, name := range tracerNames() {
		if tracers.DefaultDirectory.IsJS(name) {
			t.Errorf("%s is not a registered native tracer", name)
		}
	}
}

func TestParseConfig(t *testing.T) {
	for _, c := range []struct {
		raw     string
		tracer  string // "" for the struct logger
		timeout time.Duration
		err     string
	}{
		{raw: "", timeout: 0},
		{raw: `{}`},
		{raw: `{"tracer": ""}`},
		{raw: `{"enableMemory": true, "limit": 10, "reexec": 128}`},
		{raw: `{"tracer": "callTracer"}`, tracer: "callTracer"},
		{raw: `{"tracer": "callTracer", "tracerConfig": {"onlyTopCall": true}}`, tracer: "callTracer"},
		{raw: `{"tracer": "callTracer", "tracerConfig": {"withLog": true}, "timeout": "10s"}`, tracer: "callTracer", timeout: 10 * time.Second},
		{raw: `{"tracer": "flatCallTracer"}`, tracer: "flatCallTracer"},
		{raw: `{"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}}`, tracer: "prestateTracer"},
		{raw: `{"tracer": "4byteTracer"}`, tracer: "4byteTracer"},
		{raw: `{"tracer": "muxTracer", "tracerConfig": {"4byteTracer": {}}}`, tracer: "muxTracer"},
		{raw: `{"tracer": "muxTracer", "tracerConfig": {"4byteTracer": {}, "callTracer": {}}}`, tracer: "muxTracer"},
		{raw: `{"tracer": "jsTracer"}`, err: `unknown tracer "jsTracer"`},
		{raw: `{"tracer": "` + strings.Repeat("x", 200) + `"}`, err: "...\": the tracers served are"},
		{raw: `{"tracer": "muxTracer", "tracerConfig": {"nope": {}}}`, err: `muxTracer: unknown tracer "nope"`},
		{raw: `{"tracer": "muxTracer", "tracerConfig": []}`, err: "tracerConfig: json: cannot unmarshal array"},
		{raw: `{"tracer": "callTracer", "tracerConfig": {"withLog": 1}}`, err: "tracerConfig: json: cannot unmarshal number"},
		{raw: `{"timeout": "1 hour"}`, err: `time: unknown unit " hour"`},
		{raw: `{"tracer": 1}`, err: "cannot unmarshal number"},
		{raw: `[]`, err: "cannot unmarshal array"},
	} {
		var raw []byte
		if c.raw != "" {
			raw = []byte(c.raw)
		}
		cfg, err := ParseConfig(raw, params.MergedTestChainConfig)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.raw, err)
			continue
		}
		name, _ := cfg.tracerName()
		if name != c.tracer || cfg.timeout != c.timeout {
			t.Errorf("%s: tracer %q timeout %v, want %q %v", c.raw, name, cfg.timeout, c.tracer, c.timeout)
		}
	}
}

func TestParseCallConfig(t *testing.T) {
	cfg, err := ParseCallConfig([]byte(`{"tracer": "callTracer", "txIndex": "0x2", "stateOverrides": {"0x0000000000000000000000000000000000000001": {"balance": "0x1"}}}`), params.MergedTestChainConfig)
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := cfg.TxIndex(); !ok || i != 2 {
		t.Errorf("txIndex %d %v, want 2", i, ok)
	}
	if name, _ := cfg.tracerName(); name != "callTracer" {
		t.Errorf("tracer %q", name)
	}
	for _, bad := range []string{`{"stateOverrides": {"0x01": {}}}`, `{"blockOverrides": {"time": "noon"}}`, `{"txIndex": -1}`} {
		if _, err := ParseCallConfig([]byte(bad), params.MergedTestChainConfig); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// The request's timeout, go-ethereum's default, and the node's cap.
func TestTimeout(t *testing.T) {
	for _, c := range []struct {
		timeout string // "" for none
		cap     time.Duration
		want    time.Duration
		capped  bool
	}{
		{"", 0, DefaultTimeout, false},
		{"", time.Second, time.Second, true},
		{"100ms", time.Second, 100 * time.Millisecond, false},
		{"1m", 5 * time.Second, 5 * time.Second, true},
		{"1m", 0, time.Minute, false},
	} {
		raw := `{}`
		if c.timeout != "" {
			raw = `{"timeout": "` + c.timeout + `"}`
		}
		cfg, err := ParseConfig([]byte(raw), params.MergedTestChainConfig)
		if err != nil {
			t.Fatal(err)
		}
		got, capped := (&Env{MaxTimeout: c.cap}).timeout(cfg)
		if got != c.want || capped != c.capped {
			t.Errorf("timeout %q cap %v: %v %v, want %v %v", c.timeout, c.cap, got, capped, c.want, c.capped)
		}
		if err := timeoutError(got, capped); capped != strings.Contains(err.Error(), "--rpc.evmtimeout") || !strings.HasPrefix(err.Error(), "execution timeout") {
			t.Errorf("timeout error %q", err)
		}
	}
}
