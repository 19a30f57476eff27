package devcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// NATSServer is one NATS server of the cluster: in this process, or a
// process of Config.NATSBin, which only then can be killed as a crash
// would kill it (a server in this process can only shut down, handing
// its Raft leaderships over first).
type NATSServer struct {
	Name string
	URL  string // its client URL, the same after a restart

	dir        string
	port       int
	routePort  int
	routes     []string
	srv        *server.Server // in this process
	cmd        *exec.Cmd      // as a process
	done       chan struct{}  // closed when the process has exited
	configFile string
}

// start runs the server (again), and waits until it takes connections.
func (s *NATSServer) start(bin string) error {
	if bin == "" {
		return s.startInProcess()
	}
	return s.startProcess(bin)
}

func (s *NATSServer) startInProcess() error {
	srv, err := server.NewServer(&server.Options{
		ServerName: s.Name, Host: "127.0.0.1", Port: s.port,
		JetStream: true, StoreDir: s.dir,
		MaxPayload:        8 << 20, // the log's largest entry (seqlog.DefaultMaxEntryBytes)
		JetStreamMaxStore: 1 << 40, JetStreamMaxMemory: 1 << 30,
		Cluster: server.ClusterOpts{Name: "stocknode", Host: "127.0.0.1", Port: s.routePort},
		Routes:  server.RoutesFromStr(strings.Join(s.routes, ",")),
		NoSigs:  true, NoLog: true,
	})
	if err != nil {
		return fmt.Errorf("NATS server %s: %w", s.Name, err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return fmt.Errorf("NATS server %s not taking connections after 10s", s.Name)
	}
	s.srv = srv
	return nil
}

// startProcess writes the server's configuration (the in-process one's
// options) and runs the binary on it, its log beside its store.
func (s *NATSServer) startProcess(bin string) error {
	quoted := make([]string, len(s.routes))
	for i, r := range s.routes {
		quoted[i] = strconv.Quote(r)
	}
	conf := fmt.Sprintf(`server_name: %q
listen: "127.0.0.1:%d"
max_payload: 8MB
jetstream { store_dir: %q, max_file_store: 1TB, max_memory_store: 1GB }
cluster { name: "stocknode", listen: "127.0.0.1:%d", routes: [%s] }
`, s.Name, s.port, s.dir, s.routePort, strings.Join(quoted, ", "))
	s.configFile = s.dir + ".conf"
	if err := os.WriteFile(s.configFile, []byte(conf), 0o644); err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.dir+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	s.cmd = exec.Command(bin, "-c", s.configFile)
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, logFile
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("NATS server %s: %w", s.Name, err)
	}
	s.done = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ready(s.port) {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("NATS server %s exited at start (log: %s.log)", s.Name, s.dir)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("NATS server %s not taking connections after 10s (log: %s.log)", s.Name, s.dir)
}

// Kill ends a server process with SIGKILL; a server in this process
// shuts down.
func (s *NATSServer) Kill() {
	switch {
	case s.cmd != nil:
		s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.done
		s.cmd = nil
	case s.srv != nil:
		s.srv.Shutdown()
		s.srv = nil
	}
}

// Shutdown stops the server cleanly.
func (s *NATSServer) Shutdown() {
	switch {
	case s.cmd != nil:
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
		s.cmd = nil
	case s.srv != nil:
		s.srv.Shutdown()
		s.srv = nil
	}
}

// natsPrefix and a server's index in Cluster.NATS are its name.
const natsPrefix = "nats-"

// startNATS starts three servers routed to each other and waits until
// they replicate a stream three ways.
func (c *Cluster) startNATS(ctx context.Context) error {
	ports, err := FreePorts(6)
	if err != nil {
		return err
	}
	var routes []string
	for _, p := range ports[3:] {
		routes = append(routes, "nats://127.0.0.1:"+strconv.Itoa(p))
	}
	for i := range 3 {
		name := natsPrefix + strconv.Itoa(i)
		s := &NATSServer{Name: name, URL: "nats://127.0.0.1:" + strconv.Itoa(ports[i]), dir: filepath.Join(c.cfg.Dir, name),
			port: ports[i], routePort: ports[3+i], routes: routes}
		if err := s.start(c.cfg.NATSBin); err != nil {
			return err
		}
		c.NATS = append(c.NATS, s)
		c.URLs = append(c.URLs, s.URL)
	}
	return AwaitJetStream(ctx, c.URLs, 3)
}

// StreamLeader is the index in Cluster.NATS of the server that leads
// stream.
func StreamLeader(ctx context.Context, stream jetstream.Stream) (int, error) {
	info, err := stream.Info(ctx)
	if err != nil || info.Cluster == nil {
		return 0, fmt.Errorf("the stream's leader: %v", err)
	}
	i, err := strconv.Atoi(strings.TrimPrefix(info.Cluster.Leader, natsPrefix))
	if err != nil {
		return 0, fmt.Errorf("the stream's leader %q: %w", info.Cluster.Leader, err)
	}
	return i, nil
}

// RestartNATS starts server i again after a Kill or Shutdown.
func (c *Cluster) RestartNATS(i int) error {
	if c.NATS[i].cmd != nil || c.NATS[i].srv != nil {
		return errors.New("NATS server " + c.NATS[i].Name + " is running")
	}
	return c.NATS[i].start(c.cfg.NATSBin)
}

// ready says whether a server listens on the loopback port.
func ready(port int) bool {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// PID is the server process's id (0 in this process).
func (s *NATSServer) PID() int {
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}
