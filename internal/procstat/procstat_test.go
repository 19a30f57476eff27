package procstat

import (
	"os"
	"strings"
	"testing"
)

// The test reads its own process and the machine.
func TestSelf(t *testing.T) {
	if rss, err := RSS(os.Getpid()); err != nil || rss <= 0 {
		t.Fatalf("RSS = %d, %v", rss, err)
	}
	if _, err := RSS(-1); err == nil {
		t.Fatal("RSS of no process")
	}
	for x := 0; CPUSeconds(os.Getpid()) == 0 && x < 1e9; x++ {
	}
	if CPUSeconds(os.Getpid()) <= 0 || CPUSeconds(-1) != 0 {
		t.Fatalf("CPUSeconds: self %v, none %v", CPUSeconds(os.Getpid()), CPUSeconds(-1))
	}
	if user, system := CPUTimes(os.Getpid()); user < 0 || system < 0 || user+system <= 0 {
		t.Fatalf("CPUTimes: self %v user, %v system", user, system)
	}
	if user, system := CPUTimes(-1); user != 0 || system != 0 {
		t.Fatalf("CPUTimes of no process: %v, %v", user, system)
	}
	if f := strings.Fields(LoadAvg()); len(f) != 3 {
		t.Fatalf("LoadAvg = %q", LoadAvg())
	}
}
