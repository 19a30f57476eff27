package main

import (
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var listeningRe = regexp.MustCompile(`msg="JSON-RPC listening" url=http://([0-9.:]+)`)

// Connections past the process's file descriptors make accept fail
// (EMFILE): the node logs it, backs off, and serves again once they close,
// where the accept loop used to return and leave the port dead for good.
func TestPortSurvivesRunningOutOfDescriptors(t *testing.T) {
	// A limit of 256 descriptors, and a connection cap above it, so that
	// accepting runs into EMFILE.
	cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, binary,
		"--dev", "--http.port", "0", "--verbosity", "4", "--block-time", "100ms", "--preconf-interval", "100ms", "--http.maxconns", "1000")
	p := startCmd(t, cmd)
	addr := p.await(listeningRe, 30*time.Second)[1]

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 400; i++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the backlog is full too
		}
		held = append(held, c)
	}
	p.await(regexp.MustCompile(`msg="Accepting connections failed; retrying" err=.*too many open files`), 30*time.Second)
	for _, c := range held {
		c.Close()
	}
	held = nil
	client := &http.Client{Timeout: 2 * time.Second}
	for i := 0; ; i++ {
		resp, err := client.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if i == 100 {
			t.Fatalf("the port never answered again after the descriptors came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.await(sealedRe, 10*time.Second)
	if err := p.stop(syscall.SIGINT); err != nil {
		t.Fatalf("clean shutdown after running out of descriptors: %v\n%s", err, p.log.String())
	}
	if strings.Contains(p.log.String(), "http server stopped") {
		t.Fatalf("the HTTP server stopped:\n%s", p.log.String())
	}
}

// The connection cap follows the descriptor limit, and a connection past
// it is refused with a reason, not left to fail.
func TestConnectionCapFromDescriptorLimit(t *testing.T) {
	cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, binary,
		"--dev", "--http.port", "0", "--block-time", "0")
	p := startCmd(t, cmd)
	limits := p.await(regexp.MustCompile(`msg="Connection limits" maxconns=(\d+) .*fdLimit=256`), 30*time.Second)
	addr := p.await(listeningRe, 30*time.Second)[1]
	max := int(atoi(t, limits[1]))
	if max <= 0 || max >= 256 {
		t.Fatalf("cap %d with 256 descriptors", max)
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < max; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// The server has taken them all once a further one is refused.
	var answer string
	for i := 0; i < 100 && !strings.HasPrefix(answer, "HTTP/1.1 503 "); i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		buf := make([]byte, 512)
		n, _ := c.Read(buf)
		answer = string(buf[:n])
		c.Close()
	}
	if !strings.HasPrefix(answer, "HTTP/1.1 503 ") || !strings.Contains(answer, "--http.maxconns") {
		t.Fatalf("connection past the cap of %d: %q", max, answer)
	}
	p.stop(syscall.SIGINT)
}
