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

// clockTicks is USER_HZ on Linux, the unit of /proc's CPU times.
const clockTicks = 100.0

// CPUSeconds is a process's user+system CPU seconds so far (0 if unknown).
func CPUSeconds(pid int) float64 {
	user, system := CPUTimes(pid)
	return user + system
}

// CPUTimes is a process's CPU seconds so far in user space and in the
// kernel (0, 0 if unknown).
func CPUTimes(pid int) (user, system float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return utime / clockTicks, stime / clockTicks
}

// LoadAvg is the machine's load average over 1, 5 and 15 minutes, as
// /proc/loadavg says it ("?" if unknown).
func LoadAvg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
