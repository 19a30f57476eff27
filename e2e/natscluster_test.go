package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/stocknode/stocknode/internal/devcluster"
)

// natsCluster is a NATS JetStream cluster running inside the test process,
// standing in for the external cluster a sequencer and its replicas share
// (--nats.url). A cluster of one is a plain JetStream server.
type natsCluster struct {
	t       testing.TB
	servers []*server.Server
	logs    []*natsTestLogger
	URLs    []string // client URLs, one per server
}

// startNATSCluster starts size servers (1 or 3) and waits until JetStream
// can create a stream of that many replicas. Every server shuts down when
// the test ends.
func startNATSCluster(t testing.TB, size int) *natsCluster {
	t.Helper()
	var err error
	// The route ports are chosen before the servers start (each server's
	// routes name all three, as a cluster's configuration does): another
	// process may take one in between, so a start that cannot listen is
	// tried again on other ports.
	for attempt := 0; attempt < 3; attempt++ {
		c := &natsCluster{t: t}
		if err = c.start(size); err == nil {
			t.Cleanup(c.shutdownAll)
			return c
		}
		c.shutdownAll()
	}
	t.Fatalf("NATS cluster of %d: %v", size, err)
	return nil
}

func (c *natsCluster) start(size int) error {
	var routes []string
	if size > 1 {
		ports, err := devcluster.FreePorts(size)
		if err != nil {
			return err
		}
		for _, p := range ports {
			routes = append(routes, "nats://127.0.0.1:"+strconv.Itoa(p))
		}
		for i, p := range ports {
			if err := c.startServer(i, p, routes); err != nil {
				return err
			}
		}
	} else if err := c.startServer(0, 0, nil); err != nil {
		return err
	}
	return devcluster.AwaitJetStream(context.Background(), c.URLs, size)
}

func (c *natsCluster) startServer(i, routePort int, routes []string) error {
	opts := &server.Options{
		ServerName: "n" + strconv.Itoa(i),
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		JetStream:  true,
		StoreDir:   c.t.TempDir(),
		// The log's entries may be 8 MiB (seqlog.DefaultMaxEntryBytes).
		MaxPayload: 8 << 20,
		// The log's stream asks for 16 GiB; left unset, JetStream would
		// size its store from this machine's free disk and might refuse.
		JetStreamMaxStore:  1 << 40,
		JetStreamMaxMemory: 1 << 30,
		NoSigs:             true,
	}
	if routes != nil {
		opts.Cluster = server.ClusterOpts{Name: "stocknode-test", Host: "127.0.0.1", Port: routePort}
		opts.Routes = server.RoutesFromStr(strings.Join(routes, ","))
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("server %d: %w", i, err)
	}
	logger := &natsTestLogger{fatal: make(chan string, 1)}
	srv.SetLoggerV2(logger, false, false, false)
	srv.Start()
	c.servers = append(c.servers, srv)
	c.logs = append(c.logs, logger)
	deadline := time.Now().Add(10 * time.Second)
	for !srv.ReadyForConnections(100 * time.Millisecond) {
		select {
		case msg := <-logger.fatal:
			return fmt.Errorf("server %d: %s", i, msg)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server %d not taking connections after 10s", i)
		}
	}
	// ReadyForConnections waits for the client listener only: the route
	// listener may have failed meanwhile.
	select {
	case msg := <-logger.fatal:
		return fmt.Errorf("server %d: %s", i, msg)
	default:
	}
	c.URLs = append(c.URLs, srv.ClientURL())
	return nil
}

// URL lists the client URLs starting with server first, as a node's
// --nats.url: each node of a test may so connect to a different server.
func (c *natsCluster) URL(first int) string {
	urls := append(append([]string{}, c.URLs[first:]...), c.URLs[:first]...)
	return strings.Join(urls, ",")
}

// Name is the server name JetStream reports (its stream leader, say).
func (c *natsCluster) Name(i int) string { return c.servers[i].Name() }

// Index is the server of that name; -1 if none.
func (c *natsCluster) Index(name string) int {
	for i, srv := range c.servers {
		if srv.Name() == name {
			return i
		}
	}
	return -1
}

// Client finds the connection of the client named name (nats.Name): the
// server holding it and its id there; ok is false while it is connected
// nowhere.
func (c *natsCluster) Client(name string) (i int, id uint64, ok bool) {
	for i, srv := range c.servers {
		if !srv.Running() {
			continue
		}
		connz, err := srv.Connz(&server.ConnzOptions{})
		if err != nil {
			continue
		}
		for _, conn := range connz.Conns {
			if conn.Name == name {
				return i, conn.Cid, true
			}
		}
	}
	return 0, 0, false
}

// Disconnect closes client id's connection to server i; the client
// reconnects to the next server of its list.
func (c *natsCluster) Disconnect(i int, id uint64) error {
	return c.servers[i].DisconnectClientByID(id)
}

// Shutdown stops server i and waits until it is down; its clients
// reconnect to the others.
func (c *natsCluster) Shutdown(i int) {
	c.servers[i].Shutdown()
	c.servers[i].WaitForShutdown()
}

func (c *natsCluster) shutdownAll() {
	for i := range c.servers {
		c.Shutdown(i)
	}
	if c.t.Failed() {
		for i, l := range c.logs {
			if s := l.tail(); s != "" {
				c.t.Logf("NATS server %d warnings and errors:\n%s", i, s)
			}
		}
	}
}

// natsTestLogger keeps a server's warnings and errors for a failed test's
// report, and hands its first fatal error (a port it cannot listen on) to
// the start.
type natsTestLogger struct {
	fatal chan string
	mu    sync.Mutex
	lines []string
}

func (l *natsTestLogger) keep(level, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, time.Now().Format("15:04:05.000")+" "+level+" "+fmt.Sprintf(format, v...))
	if len(l.lines) > 200 {
		l.lines = l.lines[len(l.lines)-200:]
	}
}

func (l *natsTestLogger) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func (l *natsTestLogger) Noticef(string, ...any) {}
func (l *natsTestLogger) Debugf(string, ...any)  {}
func (l *natsTestLogger) Tracef(string, ...any)  {}
func (l *natsTestLogger) Warnf(format string, v ...any) {
	l.keep("WRN", format, v...)
}
func (l *natsTestLogger) Errorf(format string, v ...any) {
	// Expected of every peer of a server the test shut down, every second.
	if strings.HasPrefix(format, "Error trying to connect to route") {
		return
	}
	l.keep("ERR", format, v...)
}
func (l *natsTestLogger) Fatalf(format string, v ...any) {
	l.keep("FTL", format, v...)
	select {
	case l.fatal <- fmt.Sprintf(format, v...):
	default:
	}
}
