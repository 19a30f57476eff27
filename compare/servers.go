package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

type server struct {
	cmd     *exec.Cmd
	url     string
	version string
	logFile *os.File
	done    chan struct{}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func versionOf(bin string, args ...string) string {
	out, _ := exec.Command(bin, args...).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Version:") || strings.HasPrefix(line, "anvil Version:") {
			return strings.TrimSpace(line[strings.Index(line, ":")+1:])
		}
	}
	if line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); line != "" && len(line) < 80 {
		return line
	}
	return "?"
}

// serverSpec is a server to start: name's binary with args (for
// stocknode, the port and verbosity are added), its log named after label.
type serverSpec struct {
	name, label string
	args        []string
	datadir     string // geth's; made by the caller
}

// startServer starts name on the comparison genesis, as the read
// workloads and the flood measure it.
func startServer(ctx context.Context, cfg config, name, genesis string) (*server, error) {
	spec := serverSpec{name: name, label: name}
	switch name {
	case "stocknode", baseName:
		spec.args = []string{"--dev", "--genesis", genesis, "--block-time", cfg.blockTime.String()}
	case "geth":
		spec.datadir = filepath.Join(cfg.work, "geth-data")
		os.RemoveAll(spec.datadir)
		init := exec.CommandContext(ctx, cfg.geth, append(gethCommon(spec.datadir), "init", genesis)...)
		if out, err := init.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("geth init: %v: %s", err, out)
		}
	case "anvil":
		secs := strconv.FormatFloat(cfg.blockTime.Seconds(), 'f', -1, 64)
		// --silent: anvil otherwise prints every request's method name, which costs it throughput.
		spec.args = []string{"--init", genesis, "--gas-limit", strconv.Itoa(genesisGasLimit), "--block-time", secs, "--silent"}
	default:
		return nil, fmt.Errorf("unknown server %q (stocknode, "+baseName+", geth or anvil)", name)
	}
	return startSpec(ctx, cfg, spec)
}

// gethCommon are the flags of every geth command on datadir.
func gethCommon(datadir string) []string {
	return []string{"--datadir", datadir, "--nodiscover", "--maxpeers", "0", "--nat", "none", "--ipcdisable", "--verbosity", "2"}
}

// startSpec starts spec's server on a free port and waits until it answers.
func startSpec(ctx context.Context, cfg config, spec serverSpec) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	srv := &server{url: fmt.Sprintf("http://127.0.0.1:%d", port), done: make(chan struct{})}
	var args []string
	var bin string
	switch spec.name {
	case "stocknode", baseName:
		bin, srv.version = cfg.stocknode, "this tree"
		if spec.name == baseName {
			bin, srv.version = cfg.baseline, "baseline "+cfg.baseline
		}
		args = append(spec.args, "--http.port", strconv.Itoa(port), "--verbosity", "2")
	case "geth":
		bin = cfg.geth
		srv.version = versionOf(bin, "version")
		p2p, _ := freePort()
		auth, _ := freePort()
		args = append(gethCommon(spec.datadir), "--syncmode", "full", "--networkid", strconv.Itoa(chainID),
			"--port", strconv.Itoa(p2p), "--authrpc.port", strconv.Itoa(auth),
			"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(port), "--http.api", "eth,net,web3,debug")
	case "anvil":
		bin = cfg.anvil
		srv.version = versionOf(bin, "--version")
		args = append(spec.args, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	}
	if bin == "" {
		return nil, fmt.Errorf("no %s binary given", spec.name)
	}
	logPath := filepath.Join(cfg.work, strings.ReplaceAll(spec.label, " ", "-")+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	srv.logFile = logFile
	srv.cmd = exec.Command(bin, args...)
	srv.cmd.Stdout, srv.cmd.Stderr = logFile, logFile
	srv.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := srv.cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	go func() { srv.cmd.Wait(); close(srv.done) }()
	if err := srv.awaitAnswer(ctx, spec.label, logPath); err != nil {
		return nil, err
	}
	return srv, nil
}

// awaitAnswer waits up to a minute for the server's first answer.
func (srv *server) awaitAnswer(ctx context.Context, label, logPath string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n hexutil.Uint64
		if err := rpcCall(srv.url, &n, "eth_blockNumber"); err == nil {
			return nil
		}
		select {
		case <-srv.done:
			srv.logFile.Close()
			return fmt.Errorf("%s exited at start (%v): %s", label, srv.cmd.ProcessState, tail(logPath))
		case <-ctx.Done():
			srv.stop()
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			srv.stop()
			return fmt.Errorf("%s did not answer on %s within 60s: %s", label, srv.url, tail(logPath))
		}
	}
}

// stop interrupts the server and waits for it; after 15 s it is killed.
func (s *server) stop() {
	defer s.logFile.Close()
	// A later server may get the same port: it gets a client of its own.
	defer clients.Delete(s.url)
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func tail(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 1500 {
		data = data[len(data)-1500:]
	}
	return string(data)
}
