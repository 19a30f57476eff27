package abuse

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stocknode/stocknode/internal/latency"
)

// abuseTargets are what a node must hold to while it is attacked.
type abuseTargets struct {
	CanaryP99 time.Duration `json:"canaryP99"`
	// MinBlocksPerSec is the block rate during the attack (5/s nominal).
	MinBlocksPerSec float64 `json:"minBlocksPerSecond"`
	// RSSTolerance is how much more memory the node may hold once the
	// attack is over and it has had time to hand memory back.
	RSSTolerance int64 `json:"rssToleranceBytes"`
	// RSSPeakGrowth is how much more it may hold during the attack (0: no limit).
	RSSPeakGrowth int64 `json:"rssPeakGrowthBytes"`
}

func (t abuseTargets) String() string {
	s := fmt.Sprintf("canary p99 < %v, >= %.1f blocks/s, RSS after <= before + %s", t.CanaryP99, t.MinBlocksPerSec, mib(t.RSSTolerance))
	if t.RSSPeakGrowth > 0 {
		s += ", RSS peak <= before + " + mib(t.RSSPeakGrowth)
	}
	return s
}

// Report is what `loadtest abuse` prints.
type Report struct {
	URL     string         `json:"url"`
	PID     int            `json:"pid,omitempty"`
	Targets abuseTargets   `json:"targets"`
	Attacks []attackResult `json:"attacks"`
	Passed  int            `json:"passed"`
	Failed  int            `json:"failed"`
	Skipped int            `json:"skipped"`
}

// attackResult is one attack as measured.
type attackResult struct {
	Name string `json:"name"`
	// Check marks a correctness check: judged by the behaviour it expects
	// and the node answering afterwards, not by the canary.
	Check   bool    `json:"check"`
	Skipped string  `json:"skipped,omitempty"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`

	Canary        latency.Durations `json:"canary"`
	CanaryFailed  int               `json:"canaryFailed"`
	CanaryErrors  []string          `json:"canaryErrors,omitempty"`
	BlocksPerSec  *float64          `json:"blocksPerSecond"` // null: not measured
	RSSBefore     int64             `json:"rssBefore,omitempty"`
	RSSPeak       int64             `json:"rssPeak,omitempty"`
	RSSAfter      int64             `json:"rssAfter,omitempty"`
	AnswersAfter  bool              `json:"answersAfter"`
	AfterProblems []string          `json:"afterProblems,omitempty"`

	// Details is what the attack saw; Unexpected is where the node did
	// not behave as it must.
	Details    []string `json:"details,omitempty"`
	Unexpected []string `json:"unexpected,omitempty"`

	Pass    bool     `json:"pass"`
	Reasons []string `json:"reasons,omitempty"`
}

// judge sets Pass and the reasons it failed. A correctness check is judged
// by its behaviour and the answers after; an attack on the node's capacity
// by the targets as well.
func (r *attackResult) judge(t abuseTargets) {
	r.Reasons = nil
	if r.Skipped != "" {
		r.Pass = false
		return
	}
	if r.Error != "" {
		r.Reasons = append(r.Reasons, "error: "+r.Error)
	}
	r.Reasons = append(r.Reasons, r.Unexpected...)
	if !r.AnswersAfter {
		r.Reasons = append(r.Reasons, "no answer after the attack: "+strings.Join(r.AfterProblems, "; "))
	}
	switch {
	case r.Check:
	case r.Canary.Count == 0: // the canary's first sample is at the start: it never ran
		if r.Error == "" {
			r.Reasons = append(r.Reasons, "not measured (no canary samples)")
		}
	default:
		r.Reasons = append(r.Reasons, t.misses(*r)...)
	}
	r.Pass = len(r.Reasons) == 0
}

// misses are the targets a measured attack missed.
func (t abuseTargets) misses(r attackResult) []string {
	var reasons []string
	if r.Canary.P99 >= t.CanaryP99 {
		reasons = append(reasons, fmt.Sprintf("canary p99 %s >= %v", fmtDur(r.Canary.P99), t.CanaryP99))
	}
	switch {
	case r.BlocksPerSec == nil:
		reasons = append(reasons, "blocks/s not measured (no block number answered)")
	case *r.BlocksPerSec < t.MinBlocksPerSec:
		reasons = append(reasons, fmt.Sprintf("%.2f blocks/s < %.1f", *r.BlocksPerSec, t.MinBlocksPerSec))
	}
	if r.RSSBefore <= 0 {
		return reasons // no -pid
	}
	if r.RSSAfter == 0 {
		reasons = append(reasons, "no RSS after (the node's process is gone)")
	} else if grew := r.RSSAfter - r.RSSBefore; grew > t.RSSTolerance {
		reasons = append(reasons, fmt.Sprintf("RSS after is %s above before (tolerance %s)", mib(grew), mib(t.RSSTolerance)))
	}
	if grew := r.RSSPeak - r.RSSBefore; t.RSSPeakGrowth > 0 && grew > t.RSSPeakGrowth {
		reasons = append(reasons, fmt.Sprintf("RSS peaked %s above before (limit %s)", mib(grew), mib(t.RSSPeakGrowth)))
	}
	return reasons
}

// verdict is the table's last column.
func (r attackResult) verdict() string {
	switch {
	case r.Skipped != "":
		return "SKIP"
	case r.Pass:
		return "PASS"
	default:
		return fmt.Sprintf("FAIL (%d)", len(r.Reasons))
	}
}

func (r Report) ExitCode() int {
	if r.Failed > 0 || r.Skipped > 0 {
		return 3
	}
	return 0
}

func (r Report) String() string {
	var b strings.Builder
	pid := ""
	if r.PID > 0 {
		pid = fmt.Sprintf(" (pid %d)", r.PID)
	}
	fmt.Fprintf(&b, "abuse %s%s: %d passed, %d failed, %d skipped\ntargets: %s\n\n", r.URL, pid, r.Passed, r.Failed, r.Skipped, r.Targets)
	b.WriteString(formatAbuseTable(r.Attacks))
	for _, a := range r.Attacks {
		b.WriteString("\n")
		b.WriteString(a.notes())
	}
	return strings.TrimRight(b.String(), "\n")
}

// notes are the lines under the table for one attack: what it saw, and
// why it failed.
func (r attackResult) notes() string {
	var b strings.Builder
	kind := ""
	if r.Check {
		kind = " (check)"
	}
	fmt.Fprintf(&b, "%s%s: %s", r.Name, kind, r.verdict())
	if r.Seconds > 0 {
		fmt.Fprintf(&b, " in %.1fs", r.Seconds)
	}
	b.WriteString("\n")
	if r.Skipped != "" {
		fmt.Fprintf(&b, "  skipped: %s\n", r.Skipped)
	}
	for _, d := range r.Details {
		fmt.Fprintf(&b, "  %s\n", d)
	}
	for _, e := range r.CanaryErrors {
		fmt.Fprintf(&b, "  canary error: %s\n", e)
	}
	for _, why := range r.Reasons {
		fmt.Fprintf(&b, "  FAIL: %s\n", why)
	}
	return b.String()
}

var abuseColumns = []string{"attack", "canary p50/p99/max", "failed", "blocks/s", "RSS MiB before/peak/after", "answers after", "verdict"}

// formatAbuseTable lays the results out in aligned columns.
func formatAbuseTable(results []attackResult) string {
	rows := [][]string{abuseColumns}
	for _, r := range results {
		rows = append(rows, r.row())
	}
	widths := make([]int, len(abuseColumns))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell)) // "µs" is one column wide
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			b.WriteString(cell)
			if i == len(row)-1 {
				break
			}
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r attackResult) row() []string {
	if r.Skipped != "" {
		return []string{r.Name, "-", "-", "-", "-", "-", r.verdict()}
	}
	canary := "-"
	if r.Canary.Count > 0 {
		canary = fmtDur(r.Canary.P50) + "/" + fmtDur(r.Canary.P99) + "/" + fmtDur(r.Canary.Max)
	}
	blocks := "-"
	if r.BlocksPerSec != nil {
		blocks = fmt.Sprintf("%.2f", *r.BlocksPerSec)
	}
	rss := "-"
	if r.RSSBefore > 0 {
		rss = fmt.Sprintf("%s/%s/%s", mibNum(r.RSSBefore), mibNum(r.RSSPeak), mibNum(r.RSSAfter))
	}
	answers := "yes"
	if !r.AnswersAfter {
		answers = "NO"
	}
	return []string{r.Name, canary, fmt.Sprintf("%d/%d", r.CanaryFailed, r.Canary.Count), blocks, rss, answers, r.verdict()}
}

// fmtDur prints a latency with three significant digits or so.
func fmtDur(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return latency.Format(d)
}

// mibNum is bytes in MiB, or "-" for none (a process that is gone).
func mibNum(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// byteSize prints a size in B, KB or MB (decimal, as responses are counted).
func byteSize(n int64) string {
	switch {
	case n < 1_000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	}
}
