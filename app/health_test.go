package app

import (
	"testing"
	"time"
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
