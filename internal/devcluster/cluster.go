// Package devcluster runs the failover topology on loopback: three NATS
// JetStream servers (the module's nats-server, in this process or as
// processes of a binary built from it), two
// sequencer candidates (--ha) and a read replica, each a stocknode process
// with its own datadir and a fixed HTTP port, so that a node killed and
// started again keeps its URL. `make cluster` shows it; the failover
// benchmark (loadtest failover) kills its members.
package devcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config is where the cluster runs and what its nodes run.
type Config struct {
	// Bin is the stocknode binary.
	Bin string
	// Dir holds the NATS stores, the datadirs and the nodes' logs.
	Dir string
	// NodeArgs are added to every node's flags (--block-time, ...).
	NodeArgs []string
	// Log receives the cluster's own lines (nil: discarded).
	Log io.Writer
	// NATSBin runs the NATS servers as processes of this nats-server
	// binary, which can be killed as a crash would; empty: in this
	// process.
	NATSBin string
}

// Node is one stocknode process of the cluster.
type Node struct {
	Name string
	URL  string // http://127.0.0.1:port
	args []string
	log  string // its stderr's file
	cmd  *exec.Cmd
	done chan struct{}
}

// Cluster is the running topology: Nodes[0] and [1] are the candidates,
// Nodes[2] the replica.
type Cluster struct {
	cfg   Config
	NATS  []*NATSServer
	URLs  []string // the NATS servers' client URLs
	Nodes []*Node
}

// Start starts the NATS servers, waits until they replicate a stream three
// ways, and starts the nodes.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	c, err := StartNATS(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ports, err := FreePorts(3)
	if err != nil {
		c.Stop()
		return nil, err
	}
	natsURL := strings.Join(c.URLs, ",")
	for i, name := range []string{"candidate-a", "candidate-b", "replica"} {
		role := []string{"--ha", "--ha.name", name, "--nats.replicas", "3"}
		if name == "replica" {
			role = []string{"--follow"}
		}
		args := append([]string{"--datadir", filepath.Join(c.cfg.Dir, name), "--http.port", strconv.Itoa(ports[i]), "--nats.url", natsURL}, role...)
		n := &Node{Name: name, URL: "http://127.0.0.1:" + strconv.Itoa(ports[i]), args: append(args, c.cfg.NodeArgs...), log: filepath.Join(c.cfg.Dir, name+".log")}
		c.Nodes = append(c.Nodes, n)
		if err := c.StartNode(ctx, i); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// StartNATS starts only the cluster's NATS servers (cfg.Bin and NodeArgs
// unused), and waits until they replicate a stream three ways.
func StartNATS(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	c := &Cluster{cfg: cfg}
	if err := c.startNATS(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// AwaitJetStream waits until the NATS servers at urls can create a stream
// of the given replicas (a meta leader elected, every peer known), then
// deletes it.
func AwaitJetStream(ctx context.Context, urls []string, replicas int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	nc, err := nats.Connect(strings.Join(urls, ","))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	probe := jetstream.StreamConfig{Name: "PROBE", Subjects: []string{"probe"}, Replicas: replicas, Storage: jetstream.MemoryStorage}
	for {
		// Each attempt is bounded: one made before the servers elected a
		// meta leader waits for an answer that never comes.
		attempt, cancelAttempt := context.WithTimeout(ctx, 2*time.Second)
		_, err = js.CreateStream(attempt, probe)
		cancelAttempt()
		if err == nil {
			return js.DeleteStream(ctx, probe.Name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("JetStream of %d servers not ready: %w", replicas, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// StartNode starts node i (again) and waits until its /health answers.
func (c *Cluster) StartNode(ctx context.Context, i int) error {
	n := c.Nodes[i]
	logFile, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	n.cmd = exec.Command(c.cfg.Bin, n.args...)
	n.cmd.Stderr, n.cmd.Stdout = logFile, io.Discard
	if err := n.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", n.Name, err)
	}
	n.done = make(chan struct{})
	go func() { n.cmd.Wait(); close(n.done) }()
	fmt.Fprintf(c.cfg.Log, "started %s (pid %d): %s %s\n", n.Name, n.cmd.Process.Pid, c.cfg.Bin, strings.Join(n.args, " "))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := c.Role(i); err == nil {
			return nil
		}
		select {
		case <-n.done:
			return fmt.Errorf("%s exited before it answered /health (log: %s)", n.Name, n.log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not answer /health after 60s (log: %s)", n.Name, n.log)
		}
	}
}

// Kill ends node i with SIGKILL, as a crash would, and waits for it.
func (c *Cluster) Kill(i int) {
	n := c.Nodes[i]
	n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.done
}

// Dump has every running node write its goroutines' stacks to its log
// and exit (SIGQUIT: the Go runtime's dump), so that a failure shows what
// a stalled node was waiting on.
func (c *Cluster) Dump() {
	for _, n := range c.Nodes {
		if n.cmd == nil || n.cmd.Process == nil {
			continue
		}
		n.signal(syscall.SIGQUIT, 10*time.Second)
	}
}

// signal sends n sig and reports whether it exited within d.
func (n *Node) signal(sig syscall.Signal, d time.Duration) bool {
	n.cmd.Process.Signal(sig)
	select {
	case <-n.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Health is what a node's /health says of its role and, on a standby or
// a replica, of how far it trails the log.
type Health struct {
	Role    string `json:"role"`
	Replica *struct {
		BehindEntries uint64  `json:"behindEntries"`
		LagSeconds    float64 `json:"lagSeconds"`
	} `json:"replica"`
}

// Health reads node i's /health.
func (c *Cluster) Health(i int) (Health, error) {
	client := http.Client{Timeout: time.Second}
	var h Health
	resp, err := client.Get(c.Nodes[i].URL + "/health")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&h)
	return h, err
}

// Role is what node i's /health says it is: sequencer, standby or replica.
func (c *Cluster) Role(i int) (string, error) {
	h, err := c.Health(i)
	return h.Role, err
}

// CaughtUp waits until node i is a standby that has applied every entry
// the log had a moment ago: a candidate started again replays the blocks
// it missed first, and only then can take over at once.
func (c *Cluster) CaughtUp(ctx context.Context, i int) error {
	for {
		h, err := c.Health(i)
		if err == nil && h.Role == "standby" && h.Replica != nil && h.Replica.BehindEntries == 0 && h.Replica.LagSeconds < 0.5 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s has not caught up with the log: %w", c.Nodes[i].Name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Leader waits until exactly one candidate says it is the sequencer and
// returns its index.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	for {
		leader, leaders := -1, 0
		for i := range 2 {
			if role, err := c.Role(i); err == nil && role == "sequencer" {
				leader, leaders = i, leaders+1
			}
		}
		if leaders == 1 {
			return leader, nil
		}
		select {
		case <-ctx.Done():
			return -1, errors.New("no single sequencer among the candidates")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop interrupts every node, waits for it, and shuts the NATS servers
// down.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		if n.cmd == nil || n.cmd.Process == nil {
			continue
		}
		if !n.signal(syscall.SIGINT, 15*time.Second) {
			n.cmd.Process.Kill()
			<-n.done
		}
	}
	for _, s := range c.NATS {
		s.Shutdown()
	}
}

// FreePorts returns n distinct loopback ports free a moment ago.
func FreePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
