// Package abuse is loadtest's abuse mode: a battery of hostile clients
// (heavy calls, abandoned batches, slow and idle connections, malformed
// WebSocket frames, huge filters and traces, NATS floods) run against a node
// one attack after another, while a canary measures what well-behaved users
// of the node see, and a report that says per attack whether the node held.
package abuse

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/stocknode/stocknode/internal/procstat"
	"github.com/stocknode/stocknode/loadtest/target"
)

// The abuse mode runs hostile clients against a node, one attack after
// another, while a canary (a well-behaved client on its own connection)
// measures what the other users of the node would see. See Flags for
// the attacks and their sizes.

// Config is the battery: the node attacked, which attacks, and each attack's
// size and verdict limits (Flags gives the defaults).
type Config struct {
	URL, WSURL, Metrics string
	NATSURL, NATSNKey   string
	PID                 int
	Attacks             string
	AttackerIP          string

	Duration       time.Duration // each sustained attack
	Settle         time.Duration // after an attack, before RSS after and the answers check
	Recover        time.Duration // how long a node that does not answer is waited for before an attack is skipped
	CanaryInterval time.Duration
	CanaryTimeout  time.Duration
	StepTimeout    time.Duration // one request of the harness or of a check
	RequestTimeout time.Duration // one attacking request (heavy calls, huge answers)
	SetupTimeout   time.Duration

	TargetP99      time.Duration
	TargetBlocks   float64
	RSSToleranceMB int
	RSSPeakMB      int

	IdleConns      int
	IdlePerProcess int
	IdleDialFor    time.Duration

	SlowlorisConns    int
	SlowlorisInterval time.Duration
	SlowlorisHold     time.Duration

	HeavyCallers   int
	Blake2fRounds  uint
	ModexpExpBytes int
	ModexpModBytes int

	BatchCalls   int
	BatchAbandon time.Duration
	BatchWatch   time.Duration

	FeeHistoryRequests    int
	FeeHistoryPercentiles int
	FeeHistoryBlocks      int

	Logs         int
	LogsRequests int

	Filters         int
	FilterAddresses int
	FilterTopics    int

	WSOversizeBytes int
	WSSlowRequests  int
	WSSlowStall     time.Duration
	WSSlowMaxBytes  int

	ReadsHistory     int
	ReadsPagers      int
	ReadsOffset      int
	ReadsPoolTxs     int
	ReadsPoolBytes   int
	ReadsPoolClients int

	Network string
}

// Flags registers the abuse mode's flags on fs and returns the Config they
// fill.
func Flags(fs *flag.FlagSet) *Config {
	c := new(Config)
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8545", "the node's JSON-RPC HTTP endpoint")
	fs.StringVar(&c.WSURL, "ws-url", "", "its WebSocket endpoint (default: -url's host, path /ws)")
	fs.IntVar(&c.PID, "pid", 0, "the node's process id: its memory (RSS) is read from /proc, and a node whose process is gone is reported as such")
	fs.StringVar(&c.Metrics, "metrics", "", "the node's Prometheus metrics (http://127.0.0.1:PORT/metrics on its admin listener: --metrics --pprof.addr), for the call pool gauges")
	fs.StringVar(&c.NATSURL, "nats-url", "", "the node's NATS listener (--nats.listen), for the nats-* attacks")
	fs.StringVar(&c.NATSNKey, "nats-nkey", "", "the replica's seed the node wrote (<datadir>/nats-auth/replica.nk, or the path its log names with --dev), for the nats-* attacks as an insider")
	fs.StringVar(&c.Attacks, "attacks", "all", "comma-separated attacks to run, in the battery's order: "+strings.Join(abuseAttackNames(), ","))
	fs.StringVar(&c.AttackerIP, "attacker-ip", "127.0.0.2", "loopback source address of the attacking connections (the canary and the checks use the default one), so that per-address limits can tell them apart; empty: the default address")

	fs.DurationVar(&c.Duration, "duration", 30*time.Second, "how long each sustained attack lasts (heavy calls, feeHistory, getLogs, idle connections)")
	fs.DurationVar(&c.Settle, "settle", 15*time.Second, "wait after each attack before reading the RSS after and checking that the node answers (time to hand memory back)")
	fs.DurationVar(&c.Recover, "recover", 15*time.Second, "how long a node that does not answer GET /health is waited for before an attack is skipped as node down")
	fs.DurationVar(&c.CanaryInterval, "canary-interval", 200*time.Millisecond, "the canary's eth_getBalance interval")
	fs.DurationVar(&c.CanaryTimeout, "canary-timeout", 5*time.Second, "a canary request taking longer fails (and counts this long)")
	fs.DurationVar(&c.StepTimeout, "step-timeout", 5*time.Second, "time limit of each request of the harness and the checks")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", 2*time.Minute, "time limit of one attacking request (a heavy call, a huge answer)")
	fs.DurationVar(&c.SetupTimeout, "setup-timeout", 3*time.Minute, "time limit of an attack's setup (emitting the logs getLogs reads)")

	fs.DurationVar(&c.TargetP99, "target-p99", 100*time.Millisecond, "verdict: canary p99 below this")
	fs.Float64Var(&c.TargetBlocks, "target-blocks", 4.5, "verdict: at least this many blocks/s during the attack (5/s nominal)")
	fs.IntVar(&c.RSSToleranceMB, "rss-tolerance", 128, "verdict: RSS after at most this many MiB above RSS before")
	fs.IntVar(&c.RSSPeakMB, "rss-peak-limit", 1024, "verdict: RSS during the attack at most this many MiB above RSS before (0: no limit)")

	fs.IntVar(&c.IdleConns, "idle-conns", 20_000, "idle-conns: TCP connections opened and held without a byte sent")
	fs.IntVar(&c.IdlePerProcess, "idle-per-process", 10_000, "idle-conns: connections per child process (the fd limit is per process)")
	fs.DurationVar(&c.IdleDialFor, "idle-dial-for", time.Minute, "idle-conns: how long the children may take to open their connections")

	fs.IntVar(&c.SlowlorisConns, "slowloris-conns", 5_000, "slowloris: connections sending request headers slowly")
	fs.DurationVar(&c.SlowlorisInterval, "slowloris-interval", 2*time.Second, "slowloris: one header byte per connection this often")
	fs.DurationVar(&c.SlowlorisHold, "slowloris-hold", 20*time.Second, "slowloris: every slow connection must be shed within this time")

	fs.IntVar(&c.HeavyCallers, "heavy-callers", 8, "blake2f, modexp, gas-burn: concurrent callers, each sending its next eth_call when the last is answered")
	fs.UintVar(&c.Blake2fRounds, "blake2f-rounds", 48_000_000, "blake2f, abandoned-batch: BLAKE2F rounds per call (one gas each; 48M is about 0.76 s)")
	fs.IntVar(&c.ModexpExpBytes, "modexp-exp-bytes", 65536, "modexp: exponent bytes of each MODEXP call (the program calls it until the gas runs out)")
	fs.IntVar(&c.ModexpModBytes, "modexp-mod-bytes", 8, "modexp: modulus bytes")

	fs.IntVar(&c.BatchCalls, "batch-calls", 1000, "abandoned-batch: heavy (BLAKE2F) eth_calls in one batch")
	fs.DurationVar(&c.BatchAbandon, "batch-abandon", 5*time.Second, "abandoned-batch: the client closes its connection this long after sending")
	fs.DurationVar(&c.BatchWatch, "batch-watch", 10*time.Second, "abandoned-batch: the node's call pool must be idle this long after the client left")

	fs.IntVar(&c.FeeHistoryRequests, "fee-history-requests", 4, "fee-history: requests at once, repeated for -duration")
	fs.IntVar(&c.FeeHistoryPercentiles, "fee-history-percentiles", 30_000, "fee-history: reward percentiles per request")
	fs.IntVar(&c.FeeHistoryBlocks, "fee-history-blocks", 1024, "fee-history: block count per request")

	fs.IntVar(&c.Logs, "logs", 500_000, "get-logs: logs emitted on chain before the attack (LOG0s of one contract, 25,000 a transaction from development account 9, two transactions a block: 500,000 take a few seconds to set up and answer about 180 MB, 362 bytes a log)")
	fs.IntVar(&c.LogsRequests, "logs-requests", 4, "get-logs: eth_getLogs over all of them at once, repeated for -duration")

	fs.IntVar(&c.Filters, "filters", 800, "filters: eth_newFilter calls")
	fs.IntVar(&c.FilterAddresses, "filter-addresses", 1000, "filters: addresses per filter")
	fs.IntVar(&c.FilterTopics, "filter-topics", 1000, "filters: topics in each of the 4 topic positions")

	fs.IntVar(&c.WSOversizeBytes, "ws-oversize-bytes", 8<<20, "ws-oversize: one WebSocket message this large (the node's limit is 5 MiB)")
	fs.IntVar(&c.WSSlowRequests, "ws-slow-requests", 16, "ws-slow-close: eth_feeHistory answers of about 1 MB each asked for before the subscriber stops reading")
	fs.DurationVar(&c.WSSlowStall, "ws-slow-stall", 5*time.Second, "ws-slow-close: how long the subscriber does not read")
	fs.IntVar(&c.WSSlowMaxBytes, "ws-slow-max-bytes", 4<<20, "ws-slow-close: at most this much data may come before the close frame (a loopback socket's kernel buffers hold a few MB)")

	fs.IntVar(&c.ReadsHistory, "reads-history", 10_000, "heavy-reads: transfers sent to one address before the attack (once per battery run; at most 10,000, Etherscan's result window), whose history the pagers read")
	fs.IntVar(&c.ReadsPagers, "reads-pagers", 16, "heavy-reads: Etherscan API clients reading that history, page after page (txlist), over and over")
	fs.IntVar(&c.ReadsOffset, "reads-offset", 0, "heavy-reads: rows a page the pagers ask for (offset; 0: the node's default page, 10,000 entries on Etherscan)")
	fs.IntVar(&c.ReadsPoolTxs, "reads-pool-txs", 3_000, "heavy-reads: transactions pooled before the attack (from development account 8), each with a block's gas limit so that a block takes one")
	fs.IntVar(&c.ReadsPoolBytes, "reads-pool-bytes", 6_144, "heavy-reads: calldata bytes of each pooled transaction (3,000 of 6 KiB list as about 39 MB of txpool_content)")
	fs.IntVar(&c.ReadsPoolClients, "reads-pool-clients", 8, "heavy-reads: txpool_content clients, each asking again when answered")
	fs.StringVar(&c.Network, "network", "preview", "faucet-unpayable, nosniff: the node's --network.name (the faucet's path is /api/{network}/faucet/)")
	return c
}

// checkSizes refuses sizes and times that make no attack (an attack is
// left out with -attacks, not by a zero size).
func (c Config) checkSizes() error {
	var bad []string
	for name, v := range map[string]int{"idle-conns": c.IdleConns, "idle-per-process": c.IdlePerProcess,
		"slowloris-conns": c.SlowlorisConns, "heavy-callers": c.HeavyCallers, "modexp-exp-bytes": c.ModexpExpBytes,
		"modexp-mod-bytes": c.ModexpModBytes, "batch-calls": c.BatchCalls, "fee-history-requests": c.FeeHistoryRequests,
		"fee-history-percentiles": c.FeeHistoryPercentiles, "fee-history-blocks": c.FeeHistoryBlocks, "logs": c.Logs,
		"logs-requests": c.LogsRequests, "filters": c.Filters, "filter-addresses": c.FilterAddresses, "filter-topics": c.FilterTopics,
		"ws-oversize-bytes": c.WSOversizeBytes, "ws-slow-requests": c.WSSlowRequests, "ws-slow-max-bytes": c.WSSlowMaxBytes,
		"blake2f-rounds": int(min(c.Blake2fRounds, 1<<31)), "reads-history": c.ReadsHistory, "reads-pagers": c.ReadsPagers,
		"reads-pool-txs": c.ReadsPoolTxs, "reads-pool-bytes": c.ReadsPoolBytes, "reads-pool-clients": c.ReadsPoolClients} {
		if v < 1 {
			bad = append(bad, "-"+name)
		}
	}
	for name, d := range map[string]time.Duration{"duration": c.Duration, "canary-interval": c.CanaryInterval,
		"canary-timeout": c.CanaryTimeout, "step-timeout": c.StepTimeout, "request-timeout": c.RequestTimeout,
		"setup-timeout": c.SetupTimeout, "idle-dial-for": c.IdleDialFor, "slowloris-interval": c.SlowlorisInterval,
		"slowloris-hold": c.SlowlorisHold, "batch-watch": c.BatchWatch} {
		if d <= 0 {
			bad = append(bad, "-"+name)
		}
	}
	if c.Settle < 0 || c.Recover < 0 || c.BatchAbandon < 0 || c.WSSlowStall < 0 || c.RSSToleranceMB < 0 || c.RSSPeakMB < 0 || c.ReadsOffset < 0 {
		bad = append(bad, "a negative time, memory limit or offset")
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("%s: must be positive", strings.Join(bad, ", "))
	}
	if c.ReadsHistory > maxEtherscanWindow {
		return fmt.Errorf("-reads-history %d: at most %d, the Etherscan window the pagers read", c.ReadsHistory, maxEtherscanWindow)
	}
	return nil
}

func (c Config) targets() abuseTargets {
	return abuseTargets{CanaryP99: c.TargetP99, MinBlocksPerSec: c.TargetBlocks,
		RSSTolerance: int64(c.RSSToleranceMB) << 20, RSSPeakGrowth: int64(c.RSSPeakMB) << 20}
}

// attack is one hostile client. run must return when its context ends.
type attack struct {
	name  string
	check bool          // a correctness check (see attackResult.Check)
	limit time.Duration // run's time limit
	run   func(ctx context.Context) outcome
	// prepare, when set, readies the attack before the measurement starts
	// (within -setup-timeout) and returns it; run is then unused.
	prepare func(ctx context.Context) (func(ctx context.Context) outcome, error)
	// cleanup, when set, undoes what prepare left on the node (within
	// -setup-timeout), once the measurement is over.
	cleanup func(ctx context.Context) error
}

// maxEtherscanWindow is how deep Etherscan's pages reach: page × offset.
const maxEtherscanWindow = 10_000

// outcome is what an attack saw.
type outcome struct {
	details    []string
	unexpected []string
	err        error
}

func (o *outcome) detailf(format string, args ...any) {
	o.details = append(o.details, fmt.Sprintf(format, args...))
}

// unexpectedf records behaviour the node must not show.
func (o *outcome) unexpectedf(format string, args ...any) {
	o.unexpected = append(o.unexpected, fmt.Sprintf(format, args...))
}

// battery runs the attacks against one node.
type battery struct {
	cfg        Config
	attackerIP net.IP
	log        io.Writer
	// The chain setups: made on first use, shared by the attacks that need them.
	tx      *txSender
	logs    *logSet
	history *busyHistory
	stuffed *stuffedPool // until heavy-reads' cleanup
}

// attacks is the battery in its order: the checks first (short, and they
// rarely hurt the node), then the CPU and memory attacks, then slowloris;
// the abandoned batch and the idle connections come last because on a
// node that is not hardened they outlast themselves: the batch's calls
// run on for minutes after it (every attack after it starts with the
// node busy, and says so), and the idle connections can leave the node
// unable to accept anyone.
func (b *battery) attacks() []attack {
	c := b.cfg
	quick := 2*c.StepTimeout + 10*time.Second
	heavy := c.Duration + c.RequestTimeout
	return []attack{
		{name: "filter-changes", check: true, limit: time.Minute, run: b.filterChanges},
		{name: "cl-te", check: true, limit: quick, run: b.clTE},
		{name: "bad-request-echo", check: true, limit: 3 * quick, run: b.badRequestEcho},
		{name: "nosniff", check: true, limit: quick, run: b.nosniff},
		{name: "faucet-unpayable", check: true, limit: quick, run: b.faucetUnpayable},
		{name: "ws-utf8", check: true, limit: quick, run: b.wsUTF8},
		{name: "ws-oversize", check: true, limit: quick + 30*time.Second, run: b.wsOversize},
		{name: "ws-slow-close", check: true, limit: c.WSSlowStall + quick + time.Minute, run: b.wsSlowClose},
		{name: "nats-strangers", check: true, limit: quick, run: b.natsStrangers},
		{name: "nats-insider", check: true, limit: 3 * quick, run: b.natsInsider},
		{name: "nats-drip-addresses", check: true, limit: time.Minute + 50*c.StepTimeout, run: b.natsDripAddresses},
		{name: "trace-crash", check: true, limit: 6 * quick, run: b.traceCrash},
		{name: "blake2f", limit: heavy, run: b.heavyCallsAttack(b.blake2fCall)},
		{name: "modexp", limit: heavy, run: b.heavyCallsAttack(b.modexpCall)},
		{name: "gas-burn", limit: heavy, run: b.heavyCallsAttack(b.gasBurnCall)},
		{name: "fee-history", limit: heavy, run: b.feeHistory},
		{name: "get-logs", limit: heavy, prepare: b.prepareGetLogs},
		{name: "trace-memory", limit: heavy, run: b.traceMemory},
		{name: "filters", limit: c.Duration + c.RequestTimeout, run: b.manyFilters},
		{name: "heavy-reads", limit: heavy, prepare: b.prepareHeavyReads, cleanup: b.unstuffPool},
		{name: "slowloris", limit: c.SlowlorisHold + c.IdleDialFor + quick, run: b.slowloris},
		{name: "abandoned-batch", limit: c.BatchAbandon + 2*c.BatchWatch + quick, run: b.abandonedBatch},
		{name: "idle-conns", limit: c.IdleDialFor + c.Duration + time.Minute, run: b.idleConns},
	}
}

func abuseAttackNames() []string {
	var names []string
	for _, a := range (&battery{}).attacks() {
		names = append(names, a.name)
	}
	return names
}

// selectAttacks returns the battery's attacks named in list ("all": every
// one), in the battery's order.
func (b *battery) selectAttacks(list string) ([]attack, error) {
	all := b.attacks()
	if strings.TrimSpace(list) == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var out []attack
	for _, a := range all {
		if want[a.name] {
			out = append(out, a)
			delete(want, a.name)
		}
	}
	if len(want) > 0 || len(out) == 0 {
		var unknown []string
		for n := range want {
			unknown = append(unknown, n)
		}
		return nil, fmt.Errorf("-attacks %q: unknown %v; the attacks are %s", list, unknown, strings.Join(abuseAttackNames(), ","))
	}
	return out, nil
}

// Run tries every attack of cfg in turn against the node, with the canary
// beside it, and reports each verdict; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (Report, error) {
	report := Report{URL: cfg.URL, PID: cfg.PID, Targets: cfg.targets()}
	b, err := newBattery(cfg, log)
	if err != nil {
		return report, err
	}
	defer b.close()
	attacks, err := b.selectAttacks(cfg.Attacks)
	if err != nil {
		return report, err
	}
	for _, a := range attacks {
		var r attackResult
		if ctx.Err() != nil {
			r = attackResult{Name: a.name, Check: a.check, Skipped: "interrupted"}
		} else {
			fmt.Fprintf(log, "abuse: %s ...\n", a.name)
			r = b.runAttack(ctx, a)
			fmt.Fprintf(log, "abuse: %s: %s\n", a.name, r.verdict())
		}
		report.Attacks = append(report.Attacks, r)
		switch {
		case r.Skipped != "":
			report.Skipped++
		case r.Pass:
			report.Passed++
		default:
			report.Failed++
		}
	}
	return report, nil
}

func newBattery(cfg Config, log io.Writer) (*battery, error) {
	if cfg.WSURL == "" {
		u, err := url.Parse(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("-url %q: %w", cfg.URL, err)
		}
		cfg.WSURL = "ws://" + u.Host + "/ws"
	}
	for _, u := range []string{cfg.URL, cfg.WSURL, cfg.Metrics} {
		if u == "" {
			continue
		}
		if err := target.CheckLoopback(u); err != nil {
			return nil, err
		}
	}
	if _, _, _, err := target.HostAndPath(cfg.URL); err != nil {
		return nil, err
	}
	if err := cfg.checkSizes(); err != nil {
		return nil, err
	}
	ip, err := attackerIP(cfg.AttackerIP, cfg.URL)
	if err != nil {
		return nil, err
	}
	return &battery{cfg: cfg, attackerIP: ip, log: log}, nil
}

// Close drops the battery's own keep-alive connections.
func (b *battery) close() {
	if b.tx != nil {
		b.tx.rpc.HTTP.CloseIdleConnections()
	}
}

// attackerIP is the source address of the attacking connections: a
// loopback address, used only when the target is IPv4 loopback as well.
func attackerIP(raw, target string) (net.IP, error) {
	if raw == "" {
		return nil, nil
	}
	ip := net.ParseIP(raw)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("-attacker-ip %q: want a loopback address", raw)
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	host := net.ParseIP(u.Hostname())
	if host == nil || host.To4() == nil || ip.To4() == nil {
		return nil, nil // localhost or IPv6: the default source address
	}
	return ip, nil
}

// runAttack runs one attack with its measurement, and the checks after.
func (b *battery) runAttack(ctx context.Context, a attack) (r attackResult) {
	r = attackResult{Name: a.name, Check: a.check}
	start := time.Now()
	defer func() {
		r.Seconds = time.Since(start).Seconds()
		r.judge(b.cfg.targets())
	}()
	if err := b.nodeUp(ctx); err != nil {
		r.Skipped = "node down: " + err.Error()
		return r
	}
	busy := b.waitQuiet(ctx)
	defer func() {
		if busy != "" {
			r.Details = append([]string{busy}, r.Details...)
		}
	}()
	run := a.run
	if a.prepare != nil {
		setup, cancel := context.WithTimeout(ctx, b.cfg.SetupTimeout)
		var err error
		run, err = a.prepare(setup)
		cancel()
		if err != nil {
			r.Error = "setup: " + err.Error()
			b.cleanUp(ctx, a, &r)
			b.after(ctx, &r)
			return r
		}
	}
	if b.cfg.PID > 0 {
		r.RSSBefore, _ = procstat.RSS(b.cfg.PID)
	}
	m, err := b.startMeasuring(ctx)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	out := runBounded(ctx, run, a.limit)
	got := m.stop()
	r.Details, r.Unexpected = out.details, out.unexpected
	if out.err != nil {
		r.Error = out.err.Error()
	}
	r.Canary, r.CanaryFailed, r.CanaryErrors, r.BlocksPerSec = got.canary, got.canaryFailed, got.canaryErrors, got.blocksPerSec
	r.RSSPeak = max(got.rssPeak, r.RSSBefore)
	b.cleanUp(ctx, a, &r)
	b.after(ctx, &r)
	return r
}

// cleanUp runs a's cleanup, if it has one; a cleanup that fails leaves the
// node as the attack made it, which the next attacks should know of.
func (b *battery) cleanUp(ctx context.Context, a attack, r *attackResult) {
	if a.cleanup == nil {
		return
	}
	clean, cancel := context.WithTimeout(ctx, b.cfg.SetupTimeout)
	defer cancel()
	if err := a.cleanup(clean); err != nil {
		r.Details = append(r.Details, "cleanup failed: "+err.Error())
	}
}

// after waits for the node to settle, then reads its memory and checks
// that it answers.
func (b *battery) after(ctx context.Context, r *attackResult) {
	sleepCtx(ctx, b.cfg.Settle)
	if b.cfg.PID > 0 {
		r.RSSAfter, _ = procstat.RSS(b.cfg.PID)
		r.RSSPeak = max(r.RSSPeak, r.RSSAfter)
	}
	check, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*b.cfg.StepTimeout)
	defer cancel()
	if err := b.alive(); err != nil {
		r.AfterProblems = []string{err.Error()}
		return
	}
	r.AfterProblems = b.answersAfter(check)
	r.AnswersAfter = len(r.AfterProblems) == 0
}

// runBounded runs an attack within its limit. An attack returns when its
// context ends; one that does not is reported and left behind rather than
// let hang the battery.
func runBounded(ctx context.Context, run func(context.Context) outcome, limit time.Duration) outcome {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := make(chan outcome, 1)
	go func() { done <- run(ctx) }()
	select {
	case out := <-done:
		if out.err == nil && ctx.Err() == context.DeadlineExceeded {
			out.detailf("stopped at its time limit (%v)", limit)
		}
		return out
	case <-ctx.Done():
	}
	const grace = 10 * time.Second
	select {
	case out := <-done:
		return out
	case <-time.After(grace):
		return outcome{err: fmt.Errorf("did not stop within %v of its time limit (%v)", grace, limit)}
	}
}
