// Command stocknode-cluster runs the failover topology on loopback (`make
// cluster`): three NATS servers, two sequencer candidates and a read
// replica, prints their URLs and roles as they change, and stops them all
// on Ctrl-C. Kill the sequencer's process (its pid is printed) to watch
// the standby take over; with -nats-bin, kill a NATS server's too.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/stocknode/stocknode/internal/devcluster"
)

func main() {
	bin := flag.String("bin", "bin/stocknode", "the stocknode binary")
	dir := flag.String("dir", "", "where the NATS stores, datadirs and logs go (default: a new temporary directory, removed at the end)")
	natsBin := flag.String("nats-bin", "", "run the NATS servers as processes of this nats-server binary (make cluster builds bin/stocknode-nats, the module's nats-server with sub-second Raft elections), so that they too can be killed; empty: in this process")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, devcluster.Config{Bin: *bin, Dir: *dir, NodeArgs: flag.Args(), Log: os.Stdout, NATSBin: *natsBin}); err != nil {
		fmt.Fprintln(os.Stderr, "stocknode-cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg devcluster.Config) error {
	if cfg.Dir == "" {
		tmp, err := os.MkdirTemp("", "stocknode-cluster-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cfg.Dir = tmp
	}
	c, err := devcluster.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Printf("NATS: %s\n", strings.Join(c.URLs, ","))
	for _, s := range c.NATS {
		if pid := s.PID(); pid != 0 {
			fmt.Printf("%-12s %s  (pid %d, log %s/%s.log)\n", s.Name, s.URL, pid, cfg.Dir, s.Name)
		}
	}
	for _, n := range c.Nodes {
		fmt.Printf("%-12s %s  (log %s/%s.log)\n", n.Name, n.URL, cfg.Dir, n.Name)
	}
	fmt.Println("Ctrl-C stops them all.")
	last := ""
	for {
		roles := make([]string, len(c.Nodes))
		for i, n := range c.Nodes {
			role, err := c.Role(i)
			if err != nil {
				role = "down"
			}
			roles[i] = n.Name + "=" + role
		}
		if now := strings.Join(roles, " "); now != last {
			fmt.Printf("%s %s\n", time.Now().Format("15:04:05.000"), now)
			last = now
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}
