package app

import (
	"testing"
	"time"

	"github.com/stocknode/stocknode/node/lease"
	"github.com/stocknode/stocknode/node/sequencer"
)

func TestHealthReportJSON(t *testing.T) {
	tests := []struct {
		report healthReport
		want   string
	}{
		{healthReport{head: 7, age: time.Second, role: roleSequencer}, `{"head":7,"age":"1s","ageSeconds":1.000,"stale":false,"role":"sequencer"}`},
		{healthReport{head: 7, age: 1234567 * time.Microsecond, stale: true, role: roleSequencer}, `{"head":7,"age":"1.235s","ageSeconds":1.235,"stale":true,"role":"sequencer"}`},
		{healthReport{head: 7, age: time.Second, role: roleReplica, replica: &replicaLag{entries: 3, lag: 12 * time.Millisecond}},
			`{"head":7,"age":"1s","ageSeconds":1.000,"stale":false,"role":"replica","replica":{"behindEntries":3,"lagSeconds":0.012}}`},
	}
	for _, tt := range tests {
		got, err := tt.report.MarshalJSON()
		if err != nil || string(got) != tt.want {
			t.Errorf("%+v: %s, %v; want %s", tt.report, got, err, tt.want)
		}
	}
}

// A node lends the call bound's kept slot to heavy clients only while it
// produces no blocks.
func TestProducesNoBlocks(t *testing.T) {
	blocks := Config{Sequencer: sequencer.Config{BlockTime: 200 * time.Millisecond}}
	leader := &Node{cfg: blocks, lease: new(lease.Lease)}
	leader.leading.Store(true)
	tests := []struct {
		name string
		node *Node
		want bool
	}{
		{"sequencer", &Node{cfg: blocks}, false},
		{"leading candidate", leader, false},
		{"standby", &Node{cfg: blocks, lease: new(lease.Lease)}, true},
		{"replica", &Node{cfg: Config{Follow: true, Sequencer: blocks.Sequencer}}, true},
		{"no blocks (--block-time 0)", &Node{cfg: Config{}}, true},
	}
	for _, tt := range tests {
		if got := tt.node.producesNoBlocks(); got != tt.want {
			t.Errorf("%s: producesNoBlocks() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
