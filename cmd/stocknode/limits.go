package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common/fdlimit"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/node/txwait"
	"github.com/stocknode/stocknode/peer"
)

// limitFlagValues are the flags that keep hostile clients in check, with
// what needs post-processing into app.Config.
type limitFlagValues struct {
	public         bool
	trustedProxies string
}

// publicDefaults are what --public sets, for the flags the command line
// does not set itself: a node open to the internet meters every client
// and sheds idle and slow ones sooner. README.md lists them.
var publicDefaults = []struct{ flag, value string }{
	{"http.maxconns-per-ip", "100"},
	{"http.headertimeout", "5s"},
	{"http.idletimeout", "60s"},
	{"rpc.ratelimit.rps", "100"},
	{"rpc.ratelimit.cups", "2500"},
	{"rpc.call.per-client", "16"},
	{"rpc.filters.per-client", "64"},
	{"rpc.txsync.per-client", "64"},
}

func limitFlags(fs *flag.FlagSet, cfg *app.Config) *limitFlagValues {
	v := new(limitFlagValues)
	fs.BoolVar(&v.public, "public", false, "sane defaults for a node open to the internet: per-client rate limits, connection caps and shorter timeouts (README: Limits)")
	fs.StringVar(&v.trustedProxies, "rpc.trusted-proxies", "", "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For names the client")
	fs.IntVar(&cfg.HTTP.MaxConns, "http.maxconns", 0, "most open connections, HTTP and WebSocket (default: what the file-descriptor limit leaves after the database and logs)")
	fs.IntVar(&cfg.HTTP.MaxConnsPerIP, "http.maxconns-per-ip", 0, "most open connections per client address, an IPv6 /64 counting as one (0: no cap)")
	fs.DurationVar(&cfg.HTTP.HeaderTimeout, "http.headertimeout", cfg.HTTP.HeaderTimeout, "time to receive a request's headers and a body of up to 64 KiB, from its first byte (a new connection's first request: from the connection)")
	fs.DurationVar(&cfg.HTTP.ReadTimeout, "http.readtimeout", cfg.HTTP.ReadTimeout, "time to receive a larger body, after its headers")
	fs.DurationVar(&cfg.HTTP.IdleTimeout, "http.idletimeout", cfg.HTTP.IdleTimeout, "time a keep-alive connection may wait for its next request")
	fs.DurationVar(&cfg.RPC.RequestTimeout, "rpc.timeout", cfg.RPC.RequestTimeout, "deadline of a request, and of a batch as a whole")
	fs.IntVar(&cfg.RPC.LogsMaxResults, "rpc.logs.maxresults", cfg.RPC.LogsMaxResults, "most logs one eth_getLogs or filter poll returns (past it: an error naming the range that fits)")
	fs.IntVar(&cfg.RPC.MaxFilters, "rpc.filters.max", cfg.RPC.MaxFilters, "most polling filters installed in all")
	fs.IntVar(&cfg.RPC.FiltersPerClient, "rpc.filters.per-client", cfg.RPC.FiltersPerClient, "most polling filters one client address may install")
	fs.IntVar(&cfg.Calls.PerClient, "rpc.call.per-client", 0, "most eth_calls (and estimates) one client address may have running or waiting (0: no share)")
	cfg.TxWait = txwait.DefaultConfig()
	fs.IntVar(&cfg.TxWait.Max, "rpc.txsync.max", cfg.TxWait.Max, "most eth_sendRawTransactionSync requests waiting for their transaction in all (0: no cap)")
	fs.IntVar(&cfg.TxWait.PerClient, "rpc.txsync.per-client", cfg.TxWait.PerClient, "most eth_sendRawTransactionSync requests one client address may have waiting (0: no cap)")
	fs.Float64Var(&cfg.RPC.RateLimit.Requests, "rpc.ratelimit.rps", 0, "requests per second per client address, bursts of twice that (0: off); WebSocket messages count the same")
	fs.Float64Var(&cfg.RPC.RateLimit.Units, "rpc.ratelimit.cups", 0, "compute units per second per client address (eth_call 26, eth_getLogs 75, ...), bursts of twice that (0: off)")
	return v
}

// apply sets --public's defaults on the flags not given and resolves the
// rest into cfg.
func (v *limitFlagValues) apply(fs *flag.FlagSet, cfg *app.Config) error {
	if v.public {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		for _, d := range publicDefaults {
			if !given[d.flag] {
				if err := fs.Set(d.flag, d.value); err != nil {
					return fmt.Errorf("--public: %s=%s: %w", d.flag, d.value, err)
				}
			}
		}
	}
	proxies, err := peer.ParseProxies(v.trustedProxies)
	if err != nil {
		return fmt.Errorf("--rpc.trusted-proxies: %w", err)
	}
	cfg.HTTP.TrustedProxies = proxies
	return nil
}

// raiseFDLimit lifts the process's soft file-descriptor limit to its hard
// one, as geth does, and returns it: connection caps are derived from it.
func raiseFDLimit() (int, error) {
	hard, err := fdlimit.Maximum()
	if err != nil {
		return 0, fmt.Errorf("read file-descriptor limit: %w", err)
	}
	raised, err := fdlimit.Raise(uint64(hard))
	if err != nil {
		return 0, fmt.Errorf("raise file-descriptor limit: %w", err)
	}
	return int(raised), nil
}

// defaultGCPercent is --gc.percent's default: four times Go's. The node's
// live heap is mostly its chain caches, which every collection marks
// again, while a request's allocations die young; at Go's 100, marking was
// 15% of the node's CPU under a load of traces (debug_traceBlockByNumber
// on the execution-apis chain), at 400 it was 4.5% (PERFORMANCE.md,
// "Per-transaction set-up, and the collector's pace"), for a heap up to
// five times the live one.
// The memory limit (setMemoryLimit) makes collections more frequent again
// as the heap nears it.
const defaultGCPercent = 400

// setGCPercent sets the garbage collector's pace to percent (GOGC), unless
// the environment's GOGC sets it.
func setGCPercent(percent int, log *slog.Logger) error {
	if percent <= 0 {
		return fmt.Errorf("--gc.percent %d: must be above 0 (Go's default is 100; lower collects more often and holds less memory)", percent)
	}
	if gogc := os.Getenv("GOGC"); gogc != "" {
		log.Info("Garbage collector's pace from GOGC", "GOGC", gogc)
		return nil
	}
	debug.SetGCPercent(percent)
	return nil
}

// setMemoryLimit gives the garbage collector a limit (GOMEMLIMIT) when the
// environment sets none: three quarters of the memory the process may use
// (the machine's, or its cgroup's when lower). Near it the collector works
// harder and hands freed memory back to the system instead of letting a
// few large requests grow the heap until the kernel kills the node.
func setMemoryLimit(log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		log.Info("Memory limit from GOMEMLIMIT", "limit", os.Getenv("GOMEMLIMIT"))
		return
	}
	total := availableMemory()
	if total == 0 {
		return
	}
	limit := total / 4 * 3
	debug.SetMemoryLimit(limit)
	log.Info("Memory limit", "limit", fmt.Sprintf("%d MiB", limit>>20), "of", fmt.Sprintf("%d MiB", total>>20), "override", "GOMEMLIMIT")
}

// availableMemory is the machine's memory, or the cgroup's limit if lower
// (0 when neither can be read).
func availableMemory() int64 {
	total := meminfoTotal()
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

func meminfoTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
