package seqlog

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// sideRoom is the embedded server's storage beyond the log's stream, for
// the small key-value buckets beside it (node/lease's is one entry).
const sideRoom = 4 << 20

// embedded is the in-process JetStream server.
type embedded struct {
	srv    *server.Server
	opts   *server.Options // as started, for a reload
	tmpDir string          // InMemory: JetStream's store dir, removed on shutdown
}

// startServer starts the embedded server and waits until it takes
// connections, its store recovered.
func startServer(cfg Config, log *slog.Logger) (*embedded, error) {
	opts, tmpDir, err := serverOptions(cfg)
	if err != nil {
		return nil, err
	}
	e := &embedded{tmpDir: tmpDir, opts: opts.Clone()}
	e.srv, err = server.NewServer(opts)
	if err != nil {
		e.removeTmp()
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	logger := natsLogger{log: log, fatal: make(chan string, 1)}
	e.srv.SetLoggerV2(logger, false, false, false)
	e.srv.Start()
	if err := waitReady(e.srv, logger.fatal, cfg.StartTimeout); err != nil {
		e.shutdown()
		return nil, err
	}
	return e, nil
}

// waitReady waits for the server to take connections, or to give up (a
// listener it cannot open) without waiting out the whole timeout.
func waitReady(srv *server.Server, fatal <-chan string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !srv.ReadyForConnections(100 * time.Millisecond) {
		select {
		case msg := <-fatal:
			return fmt.Errorf("embedded NATS server: %s", msg)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("embedded NATS server not ready after %v (StartTimeout); its log says why", timeout)
		}
	}
	return nil
}

func serverOptions(cfg Config) (*server.Options, string, error) {
	opts := &server.Options{
		ServerName: "stocknode",
		JetStream:  true,
		StoreDir:   cfg.Dir,
		// An acknowledged entry is on disk, not in the page cache: it
		// survives a power loss, not only a kill -9 (sync_interval: always).
		SyncAlways: true,
		MaxPayload: cfg.MaxEntryBytes,
		DontListen: cfg.Listen == "",
		NoSigs:     true, // the node owns the process's signals
		Nkeys:      cfg.Users,
	}
	if cfg.ListenTLS != nil {
		opts.TLS, opts.TLSConfig = true, cfg.ListenTLS
		opts.TLSTimeout = 2 // seconds, nats-server's default
	}
	if cfg.Listen != "" {
		host, port, _ := net.SplitHostPort(cfg.Listen) // checked by Validate
		opts.Host = host
		opts.Port, _ = strconv.Atoi(port)
		if opts.Port == 0 {
			opts.Port = server.RANDOM_PORT // nats-server reads 0 as its default, 4222
		}
	}
	// Explicit limits: left unset, JetStream sizes them from the free disk
	// and memory and may refuse the stream on a small disk. The log's
	// stream reserves MaxBytes; sideRoom is left for the small buckets
	// beside it (the leader lease).
	var tmpDir string
	if cfg.InMemory {
		dir, err := os.MkdirTemp("", "stocknode-nats-")
		if err != nil {
			return nil, "", fmt.Errorf("embedded NATS server: %w", err)
		}
		tmpDir, opts.StoreDir = dir, dir
		opts.JetStreamMaxMemory = cfg.MaxBytes + sideRoom
	} else {
		opts.JetStreamMaxStore = cfg.MaxBytes + sideRoom
	}
	return opts, tmpDir, nil
}

// setUsers reloads the server with new users; connected clients whose
// user is gone are disconnected.
func (e *embedded) setUsers(users []*server.NkeyUser) error {
	opts := e.opts.Clone()
	opts.Nkeys = users
	if err := e.srv.ReloadOptions(opts); err != nil {
		return fmt.Errorf("embedded NATS server: reload users: %w", err)
	}
	e.opts = opts
	return nil
}

// url is the client URL replicas connect to, empty without a listener.
func (e *embedded) url(cfg Config) string {
	if cfg.Listen == "" {
		return ""
	}
	return e.srv.ClientURL()
}

// shutdown stops the server and waits until its store is closed.
func (e *embedded) shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	e.removeTmp()
}

func (e *embedded) removeTmp() {
	if e.tmpDir != "" {
		os.RemoveAll(e.tmpDir)
	}
}

// natsLogger sends the server's messages to the node's log. Notices are
// debug: the server's start-up banner is of no interest to an operator.
type natsLogger struct {
	log   *slog.Logger
	fatal chan string // the first fatal error, for waitReady
}

func (l natsLogger) Noticef(format string, v ...any) {
	l.log.Debug("NATS: " + fmt.Sprintf(format, v...))
}
func (l natsLogger) Warnf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.HasPrefix(msg, "Recovering stream state from index errored") {
		// After a kill -9 the stream's index is older than its message
		// blocks, and the server rebuilds it from them, as designed.
		l.log.Info("NATS: rebuilt the log's stream index from its message blocks (the last run did not stop cleanly)", "detail", msg)
		return
	}
	l.log.Warn("NATS: " + msg)
}
func (l natsLogger) Errorf(format string, v ...any) {
	l.log.Error("NATS: " + fmt.Sprintf(format, v...))
}
func (l natsLogger) Debugf(format string, v ...any) {
	l.log.Debug("NATS: " + fmt.Sprintf(format, v...))
}
func (l natsLogger) Tracef(string, ...any) {}

// Fatalf logs at error level and tells waitReady: the server gives up on
// what failed (a listener, its store) but does not exit.
func (l natsLogger) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Error("NATS: " + msg)
	select {
	case l.fatal <- msg:
	default:
	}
}
