//go:build !linux

package callbound

// threadCPU says a task's CPU time cannot be read from its thread.
const threadCPU = false

// threadClock is 0 where a thread's CPU time cannot be read by another
// thread: the monitor then takes a task's running time for its CPU time.
func threadClock() int32 { return 0 }

func cpuTime(int32) (int64, bool) { return 0, false }
