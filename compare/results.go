package main

import (
	"encoding/json"
	"time"

	"github.com/stocknode/stocknode/internal/latency"
)

type cpuUse struct {
	Server       float64 `json:"serverCores"`       // server CPU seconds per second
	ServerKernel float64 `json:"serverKernelCores"` // of which in the kernel (system time)
	LoadTest     float64 `json:"loadtestCores"`     // load generator CPU seconds per second
}

type readResult struct {
	Round  int             `json:"round"`
	Rate   float64         `json:"offeredRate,omitempty"`
	Method string          `json:"method"`
	Tag    string          `json:"tag"`
	RPS    float64         `json:"requestsPerSecond"`
	P50    time.Duration   `json:"p50"`
	P99    time.Duration   `json:"p99"`
	P999   time.Duration   `json:"p999"`
	Errors uint64          `json:"errors"`
	Sample []string        `json:"errorSamples,omitempty"`
	CPU    cpuUse          `json:"cpu"`
	Report json.RawMessage `json:"report"`
}

type floodResult struct {
	Round          int               `json:"round,omitempty"`
	Senders        int               `json:"senders"`
	AcceptedPerSec float64           `json:"acceptedPerSecond"`
	IncludedPerSec float64           `json:"includedPerSecond"`
	Rejected       int               `json:"rejected"`
	RejectedBy     map[string]int    `json:"rejectedBy"`
	NotIncluded    int               `json:"notIncluded"`
	TimeToPending  latency.Durations `json:"timeToPending"`
	TimeToLatest   latency.Durations `json:"timeToLatest"`
	TimeToReceipt  latency.Durations `json:"timeToReceipt"`
	CPU            cpuUse            `json:"cpu"`
	Report         json.RawMessage   `json:"report,omitempty"`
	Skipped        string            `json:"skipped,omitempty"`
}

type serverResult struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Command []string          `json:"command"`
	Checks  map[string]string `json:"checks"` // phase -> "ok" or the failure
	Reads   []readResult      `json:"reads"`
	// Wrk are the reads of wrkWorkloads again, with wrk as the generator.
	Wrk   []readResult `json:"wrk,omitempty"`
	Paced []readResult `json:"paced"`
	// Flood is the flood, of every round and sender count, that accepted
	// the most; Floods has them all.
	Flood  *floodResult   `json:"flood,omitempty"`
	Floods []*floodResult `json:"floods,omitempty"`
	// FloodPaced is the flood at one offered rate, below the chain's capacity.
	FloodPaced *floodResult `json:"floodPaced,omitempty"`
	Error      string       `json:"error,omitempty"`
	LoadAvg    []string     `json:"loadAverageAtStart"`
	// TraceDigests are, by trace chain, a digest of the server's
	// callTracer traces of the chain's blocks (traceDigest).
	TraceDigests map[string]string `json:"traceDigests,omitempty"`
	// WebSocket are the newHeads fan-outs of every round.
	WebSocket []wsResult `json:"webSocket,omitempty"`
}

type results struct {
	Started     time.Time      `json:"started"`
	Seconds     float64        `json:"seconds"`
	Connections int            `json:"connections"`
	Rounds      int            `json:"rounds"`
	Duration    string         `json:"durationPerWorkload"`
	BlockTime   string         `json:"blockTime"`
	CPUs        int            `json:"cpus"`
	LoadAvg     [2]string      `json:"loadAverageStartEnd"`
	Ceiling     *readResult    `json:"ceiling,omitempty"`
	Servers     []serverResult `json:"servers"`
}
