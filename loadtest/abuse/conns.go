package abuse

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/target"
)

// The connection attacks: sockets that cost the attacker nothing and the
// server an fd and a goroutine each.

// holdChild is one child process of idle-conns and its pipes.
type holdChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // its stdout, line by line; closed at its end
}

// idleConns opens -idle-conns connections that never send a byte, spread
// over child processes of -idle-per-process each, and holds them for
// -duration. Meanwhile a new client (from the canary's address) must
// still get an answer.
func (b *battery) idleConns(ctx context.Context) outcome {
	var out outcome
	addr, _, _, err := target.HostAndPath(b.cfg.URL)
	if err != nil {
		out.err = err
		return out
	}
	exe, err := os.Executable()
	if err != nil {
		out.err = fmt.Errorf("the load generator's own path: %w", err)
		return out
	}
	var children []*holdChild
	defer func() { stopChildren(children) }()
	for _, n := range shares(b.cfg.IdleConns, b.cfg.IdlePerProcess) {
		c, err := b.startHold(exe, addr, n)
		if err != nil {
			out.err = err
			return out
		}
		children = append(children, c)
	}
	opened, failed, firstErr := 0, 0, ""
	deadline := time.After(b.cfg.IdleDialFor + 15*time.Second)
	for _, c := range children {
		line, err := c.next(ctx, deadline)
		if err != nil {
			out.err = fmt.Errorf("a child opening connections: %w", err)
			return out
		}
		var ok, bad int
		var first string
		if _, err := fmt.Sscanf(line, "opened %d %d %q", &ok, &bad, &first); err != nil {
			out.err = fmt.Errorf("a child said %q: %w", line, err)
			return out
		}
		opened, failed = opened+ok, failed+bad
		if firstErr == "" {
			firstErr = first
		}
	}
	out.detailf("%d processes opened %d of %d idle connections (%d failed%s)", len(children), opened, b.cfg.IdleConns, failed, prefixed(": first ", firstErr))
	// Midway through the hold a new client connects, as anyone would.
	if !sleepCtx(ctx, b.cfg.Duration/2) {
		return out
	}
	if err := b.health(ctx); err != nil {
		out.unexpectedf("a new client could not get an answer while the connections were held: %v", err)
	} else {
		out.detailf("a new client got GET /health answered while they were held")
	}
	if !sleepCtx(ctx, b.cfg.Duration-b.cfg.Duration/2) {
		return out
	}
	open, closed := 0, 0
	for _, c := range children {
		fmt.Fprintln(c.stdin, "status")
		line, err := c.next(ctx, time.After(b.cfg.StepTimeout))
		var o, cl int
		if err == nil {
			_, err = fmt.Sscanf(line, "open %d %d", &o, &cl)
		}
		if err != nil {
			out.detailf("a child's status: %v", err)
			continue
		}
		open, closed = open+o, closed+cl
	}
	out.detailf("after %v: %d still open, %d closed by the node", b.cfg.Duration, open, closed)
	return out
}

// shares splits n into parts of at most per.
func shares(n, per int) []int {
	per = max(1, per)
	var out []int
	for n > 0 {
		k := min(n, per)
		out = append(out, k)
		n -= k
	}
	return out
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// startHold starts a child holding n connections to addr.
func (b *battery) startHold(exe, addr string, n int) (*holdChild, error) {
	args := []string{HoldMode, "-addr", addr, "-n", strconv.Itoa(n),
		"-dial-for", b.cfg.IdleDialFor.String(), "-dial-timeout", b.cfg.StepTimeout.String(),
		"-max-life", (b.cfg.IdleDialFor + b.cfg.Duration + 2*time.Minute).String()}
	if b.attackerIP != nil {
		args = append(args, "-from", b.attackerIP.String())
	}
	cmd := exec.Command(exe, args...)
	// If the battery dies, its children die with it (their stdin ends too).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = b.log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start a child: %w", err)
	}
	c := &holdChild{cmd: cmd, stdin: stdin, lines: make(chan string, 4)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	return c, nil
}

// Next is the child's next line.
func (c *holdChild) next(ctx context.Context, timeout <-chan time.Time) (string, error) {
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", errors.New("the child exited")
		}
		return line, nil
	case <-timeout:
		return "", errors.New("the child did not answer in time")
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// stopChildren closes the children's stdin (they close their connections
// and exit) and waits; one that has not exited within 10 s is killed.
func stopChildren(children []*holdChild) {
	for _, c := range children {
		c.stdin.Close()
	}
	for _, c := range children {
		done := make(chan struct{})
		go func() {
			for range c.lines { // drain, so that the child never blocks on its stdout
			}
			c.cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			<-done
		}
	}
}

// slowPrefix is what a slowloris connection sends, a byte at a time; it
// then sends the header's value forever and never ends the headers.
const slowPrefix = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Slow: "

// slowConn is one slowloris connection.
type slowConn struct {
	conn   net.Conn
	opened time.Time
	sent   int
	shedAt atomic.Int64 // nanoseconds after opened when the server closed it; 0 while open
}

// slowloris opens -slowloris-conns connections that send their request
// headers one byte every -slowloris-interval. The node must shed every
// one of them (header timeout, idle timeout, a cap per address) within
// -slowloris-hold.
func (b *battery) slowloris(ctx context.Context) outcome {
	var out outcome
	addr, _, _, err := target.HostAndPath(b.cfg.URL)
	if err != nil {
		out.err = err
		return out
	}
	if err := fdHeadroom(b.cfg.SlowlorisConns + 500); err != nil {
		out.err = err
		return out
	}
	conns, failed, firstErr := b.dialSlow(ctx, addr)
	var readers sync.WaitGroup
	defer func() {
		for _, c := range conns {
			c.conn.Close()
		}
		readers.Wait()
	}()
	for _, c := range conns {
		readers.Add(1)
		go func() {
			defer readers.Done()
			c.watch()
		}()
	}
	out.detailf("opened %d of %d slow connections (%d failed%s), one header byte each every %v", len(conns), b.cfg.SlowlorisConns, failed, prefixed(": first ", firstErr), b.cfg.SlowlorisInterval)
	held := time.Now()
	end := held.Add(b.cfg.SlowlorisHold)
	const slots = 20 // each tick writes to one connection in 20
	ticker := time.NewTicker(b.cfg.SlowlorisInterval / slots)
	defer ticker.Stop()
	for tick := 0; time.Now().Before(end) && ctx.Err() == nil && openSlow(conns) > 0; tick++ {
		for i := tick % slots; i < len(conns); i += slots {
			conns[i].dribble()
		}
		select {
		case <-ctx.Done():
		case <-ticker.C:
		}
	}
	var shed []time.Duration
	atOnce := 0
	for _, c := range conns {
		if ns := c.shedAt.Load(); ns > 0 {
			shed = append(shed, time.Duration(ns))
			if time.Duration(ns) < time.Second {
				atOnce++
			}
		}
	}
	line := fmt.Sprintf("%d shed within %s of the hold (%d within a second of connecting)", len(shed), fmtDur(time.Since(held)), atOnce)
	if len(shed) > 0 {
		lat := latency.Summarize(shed)
		line += fmt.Sprintf("; time to shed p50 %s, max %s", fmtDur(lat.P50), fmtDur(lat.Max))
	}
	out.detailf("%s", line)
	if left := len(conns) - len(shed); left > 0 {
		out.unexpectedf("%d of %d slow connections still open after %v", left, len(conns), b.cfg.SlowlorisHold)
	}
	return out
}

// dialSlow opens the slowloris connections, 64 at a time, each sending
// its first byte at once.
func (b *battery) dialSlow(ctx context.Context, addr string) (conns []*slowConn, failed int, firstErr string) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.IdleDialFor)
	defer cancel()
	d := b.attackerDialer(b.cfg.StepTimeout)
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.cfg.SlowlorisConns) && ctx.Err() == nil {
				conn, err := d.DialContext(ctx, "tcp", addr)
				var c *slowConn
				if err == nil {
					c = &slowConn{conn: conn, opened: time.Now()}
					if !c.dribble() {
						err = errors.New("the first byte could not be sent")
					}
				}
				mu.Lock()
				if err != nil {
					failed++
					if firstErr == "" {
						firstErr = err.Error()
					}
				}
				if c != nil {
					conns = append(conns, c) // one the server closed at once counts as shed
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return conns, failed, firstErr
}

// dribble sends the connection's next header byte; false when it could not.
func (c *slowConn) dribble() bool {
	if c.shedAt.Load() > 0 {
		return false
	}
	b := byte('a')
	if c.sent < len(slowPrefix) {
		b = slowPrefix[c.sent]
	}
	c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := c.conn.Write([]byte{b}); err != nil {
		return false
	}
	c.sent++
	return true
}

// watch waits for the server to close the connection (or answer, which
// for a request that never ends is a refusal) and records when.
func (c *slowConn) watch() {
	var buf [512]byte
	if _, err := c.conn.Read(buf[:]); err != nil && errors.Is(err, net.ErrClosed) {
		return // closed by the battery, not the server
	}
	c.shedAt.Store(int64(max(time.Since(c.opened), 1)))
}

func openSlow(conns []*slowConn) int {
	n := 0
	for _, c := range conns {
		if c.shedAt.Load() == 0 {
			n++
		}
	}
	return n
}

// fdHeadroom fails unless this process may open need more files.
func fdHeadroom(need int) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("fd limit: %w", err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("open fds: %w", err)
	}
	if free := int(lim.Cur) - len(fds); free < need {
		return fmt.Errorf("%d sockets need %d free fds, the limit (ulimit -n %d) leaves %d", need-500, need, lim.Cur, free)
	}
	return nil
}
