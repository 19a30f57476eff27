package callbound

import "golang.org/x/sys/unix"

// threadCPU says a task's CPU time can be read from its thread.
const threadCPU = true

// threadClock is the CPU-time clock of the calling thread, in the form
// clock_gettime(2) takes for any thread of the process (the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)): the monitor reads a running
// task's CPU time from its own goroutine.
func threadClock() int32 {
	const sched, perThread = 2, 4
	return ^int32(unix.Gettid())<<3 | sched | perThread
}

// cpuTime reads clock, a threadClock; ok is false when it cannot be read.
func cpuTime(clock int32) (ns int64, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(clock, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
