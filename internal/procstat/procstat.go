// Package procstat reads what the load tools measure of a process and of
// the machine from /proc: resident memory, CPU time and the load average.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RSS reads a process's resident set size from /proc.
func RSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
