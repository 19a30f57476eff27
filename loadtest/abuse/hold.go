package abuse

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// HoldMode is the hidden mode the idle-conns attack re-executes the
// load generator in: a process may hold no more sockets than its fd limit,
// so the connections are spread over child processes.
const HoldMode = "abuse-hold"

type holdConfig struct {
	Addr        string
	From        string
	N           int
	Dialers     int
	DialFor     time.Duration
	DialTimeout time.Duration
	MaxLife     time.Duration
}

func holdFlags(fs *flag.FlagSet) *holdConfig {
	c := new(holdConfig)
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8545", "host:port to connect to")
	fs.StringVar(&c.From, "from", "", "source address of the connections")
	fs.IntVar(&c.N, "n", 10_000, "connections")
	fs.IntVar(&c.Dialers, "dialers", 64, "connections opened at once")
	fs.DurationVar(&c.DialFor, "dial-for", time.Minute, "stop opening connections after this long")
	fs.DurationVar(&c.DialTimeout, "dial-timeout", 5*time.Second, "time limit of one connect")
	fs.DurationVar(&c.MaxLife, "max-life", 10*time.Minute, "exit after this long whatever happens")
	return c
}

// RunHold is the child: it opens the connections and says how it
// went ("opened OK FAILED FIRST-ERROR"), then holds them without a byte
// sent. On "status" it answers "open OPEN CLOSED" (connections the server
// has not closed, and those it has); when its standard input ends (the
// parent closed it, or died) it closes them all and exits.
func RunHold(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) int {
	fs := flag.NewFlagSet(HoldMode, flag.ContinueOnError)
	cfg := holdFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxLife)
	defer cancel()
	conns, failed, firstErr := holdDial(ctx, *cfg)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	fmt.Fprintf(stdout, "opened %d %d %q\n", len(conns), failed, firstErr)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return 0
		case line, ok := <-lines:
			if !ok {
				return 0
			}
			if line == "status" {
				open, closed := countOpen(conns)
				fmt.Fprintf(stdout, "open %d %d\n", open, closed)
			}
		}
	}
}

// holdDial opens up to cfg.N connections, cfg.Dialers at a time, until
// cfg.DialFor has passed.
func holdDial(ctx context.Context, cfg holdConfig) (conns []net.Conn, failed int, firstErr string) {
	ctx, cancel := context.WithTimeout(ctx, cfg.DialFor)
	defer cancel()
	d := &net.Dialer{Timeout: cfg.DialTimeout}
	if ip := net.ParseIP(cfg.From); ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range cfg.Dialers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(cfg.N) && ctx.Err() == nil {
				c, err := d.DialContext(ctx, "tcp", cfg.Addr)
				mu.Lock()
				if err != nil {
					failed++
					if firstErr == "" {
						firstErr = err.Error()
					}
				} else {
					conns = append(conns, c)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return conns, failed, firstErr
}

// countOpen peeks at every connection without blocking: one that reads
// end-of-file or an error was closed by the server, one with nothing to
// read is still open. One the server wrote to (a timeout answer) counts
// as closed: it is on its way out.
func countOpen(conns []net.Conn) (open, closed int) {
	var buf [1]byte
	for _, c := range conns {
		tc, ok := c.(*net.TCPConn)
		if !ok {
			closed++
			continue
		}
		raw, err := tc.SyscallConn()
		if err != nil {
			closed++
			continue
		}
		isOpen := false
		raw.Read(func(fd uintptr) bool {
			_, _, err := unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
			isOpen = err == unix.EAGAIN
			return true
		})
		if isOpen {
			open++
		} else {
			closed++
		}
	}
	return open, closed
}
