// Command stocknode-cluster runs the failover topology on loopback (`make
// cluster`): three NATS servers, two sequencer candidates and a read
// replica, prints their URLs and roles as they change, and stops them all
// on Ctrl-C. Kill the sequencer's process (its pid is printed) to watch
// the standby take over.
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
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *bin, *dir, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "stocknode-cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin, dir string, nodeArgs []string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "stocknode-cluster-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	c, err := devcluster.Start(ctx, devcluster.Config{Bin: bin, Dir: dir, NodeArgs: nodeArgs, Log: os.Stdout})
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Printf("NATS: %s\n", strings.Join(c.URLs, ","))
	for _, n := range c.Nodes {
		fmt.Printf("%-12s %s  (log %s/%s.log)\n", n.Name, n.URL, dir, n.Name)
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
