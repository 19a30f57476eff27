package natsraft

import (
	"strings"
	"testing"
	"time"
)

// If nats-server renamed a timer, the linker would give this package a
// variable of its own, zero at start, that no server reads.
func TestTimersReachTheServers(t *testing.T) {
	stock := Timers{Heartbeat: time.Second, MinElection: 4 * time.Second, MaxElection: 9 * time.Second,
		MinCampaign: 100 * time.Millisecond, MaxCampaign: 800 * time.Millisecond}
	if got := Current(); got != stock {
		t.Fatalf("before Apply, the timers are %+v, not nats-server v2.15.2's defaults %+v: a timer is no longer linked to the server's", got, stock)
	}
	defer Apply(stock)
	if err := Apply(Fast()); err != nil {
		t.Fatal(err)
	}
	if got := Current(); got != Fast() {
		t.Fatalf("after Apply(Fast()), the timers are %+v", got)
	}
}

func TestValidate(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name    string
		timers  Timers
		wantErr string
	}{
		{"fast", Fast(), ""},
		{"stock", Timers{time.Second, 4 * time.Second, 9 * time.Second, 100 * ms, 800 * ms}, ""},
		{"no heartbeat", Timers{0, 400 * ms, 700 * ms, 25 * ms, 200 * ms}, "heartbeat must be positive"},
		{"election within two heartbeats", Timers{100 * ms, 150 * ms, 700 * ms, 25 * ms, 100 * ms}, "at least two heartbeats"},
		{"empty election range", Timers{100 * ms, 400 * ms, 400 * ms, 25 * ms, 200 * ms}, "must exceed its minimum"},
		{"empty campaign range", Timers{100 * ms, 400 * ms, 700 * ms, 25 * ms, 25 * ms}, "positive range"},
		{"campaign past an election", Timers{100 * ms, 400 * ms, 700 * ms, 25 * ms, 500 * ms}, "shorter than the election"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.timers.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Validate() = %v, want an error saying %q", err, tc.wantErr)
			}
			if Apply(tc.timers) == nil {
				t.Fatal("Apply took timers Validate refuses")
			}
		})
	}
}
