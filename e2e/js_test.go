package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestJavaScriptClients runs the ethers v6 and viem suites over HTTP
// (js/*.test.mjs except js/ws-*, js/replica-*, js/flashblocks-* and js/failover-*, Node's
// built-in test runner) against one node in the default configuration (200
// ms blocks, eager pre-confirmation, / answering as every chain: a receipt
// means a sealed block), as `make run` serves it but for --dev's funded
// accounts. The suites build their clients with each library's default
// options, as a dapp does (js/dapp-ethers.test.mjs is the plain dapp flow);
// flashblocks_test.go runs the opt-in /preconf view. Each file is a subtest
// and each JavaScript test a subtest of it, so `go test` names the failing
// JavaScript test and prints its assertion; the full output of a failing
// file is logged too.
//
// Needs Node.js 20 or newer and npm; the packages (e2e/package-lock.json)
// are installed with `npm ci` when e2e/node_modules lacks them.
func TestJavaScriptClients(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	n := startNode(t)
	runJSFiles(t, nodeBin, n, func(name string) bool {
		return !strings.HasPrefix(name, "ws-") && !strings.HasPrefix(name, replicaSuites) && !strings.HasPrefix(name, "flashblocks") && !strings.HasPrefix(name, "failover-") && name != "reasons"
	})
}

// TestJavaScriptRevertReasons runs js/reasons.test.mjs against a node with
// --rpc.revert-reasons: what ethers and viem make of a reverted call whose
// message says why (ethers decodes its data, viem no longer does).
func TestJavaScriptRevertReasons(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	n := startNode(t, "--rpc.revert-reasons")
	runJSFiles(t, nodeBin, n, func(name string) bool { return name == "reasons" })
}

// TestJavaScriptWebSocketClients runs the ethers v6 WebSocketProvider and
// viem webSocket-transport suites (js/ws-*.test.mjs) against a node in the
// default configuration, on /ws: subscriptions (newHeads, logs) as dapps
// use them, and ordinary calls over the same socket, with each library's
// default options.
func TestJavaScriptWebSocketClients(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	n := startNode(t)
	runJSFiles(t, nodeBin, n, func(name string) bool { return strings.HasPrefix(name, "ws-") })
}

// jsPrerequisites skips under -short, checks for Node.js and installs the
// npm packages if needed; it returns the node executable.
func jsPrerequisites(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the ethers/viem suite runs without -short")
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("the ethers/viem suite needs Node.js 20 or newer on PATH (and npm to install its packages): ", err)
	}
	checkNodeVersion(t, nodeBin)
	ensurePackages(t)
	return nodeBin
}

// runJSFiles runs the js/*.test.mjs files whose names (without
// .test.mjs) pass keep, each as a parallel subtest, against node n, with
// env added to their environment.
func runJSFiles(t *testing.T, nodeBin string, n *node, keep func(name string) bool, env ...string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("js", "*.test.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".test.mjs")
		if !keep(name) {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the suites use different dev keys
			runJSFile(t, nodeBin, file, n, env...)
		})
	}
	if ran == 0 {
		t.Fatalf("no matching js/*.test.mjs files among %v", files)
	}
}

// runJSFile runs one test file with STOCKNODE_RPC and STOCKNODE_WS set to
// the node's URLs (and env added) and turns its TAP report into subtests.
func runJSFile(t *testing.T, nodeBin, file string, n *node, env ...string) {
	tap := filepath.Join(t.TempDir(), "report.tap")
	// The clients poll as they do by default (ethers every 4 s), so a file
	// that sends many transactions takes a minute or more. Node's runner
	// applies --test-timeout to the file as a whole too.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, "--test", "--test-timeout=120000",
		"--test-reporter=spec", "--test-reporter-destination=stdout",
		"--test-reporter=tap", "--test-reporter-destination="+tap,
		file)
	cmd.Env = append(os.Environ(), "STOCKNODE_RPC="+n.URL, "STOCKNODE_WS="+n.WS, "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, runErr := cmd.CombinedOutput()
	t.Logf("node --test %s: %v", file, time.Since(start).Round(10*time.Millisecond))

	report, _ := os.ReadFile(tap)
	results := parseTAP(report)
	failed := false
	for _, r := range results {
		t.Run(r.name, func(t *testing.T) {
			switch {
			case r.skip != "":
				t.Skip(r.skip)
			case !r.ok:
				t.Errorf("%s failed:\n%s", r.name, r.diag)
			}
		})
		failed = failed || !r.ok
	}
	switch {
	case ctx.Err() != nil:
		t.Errorf("node --test %s did not finish within 150 s; output:\n%s", file, out)
	case runErr != nil && !failed:
		t.Errorf("node --test %s: %v, with no failing test in its report; output:\n%s", file, runErr, out)
	case runErr == nil && failed:
		t.Errorf("node --test %s exited 0 although its report has failures", file)
	case len(results) == 0:
		t.Errorf("node --test %s reported no tests; output:\n%s", file, out)
	case failed:
		t.Logf("output of node --test %s:\n%s", file, out)
	}
}

type tapResult struct {
	name, skip, diag string
	ok               bool
}

var tapLine = regexp.MustCompile(`^(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b ?(.*))?$`)

// parseTAP reads the top-level results of Node's TAP reporter (subtests
// are indented) and each failure's YAML diagnostics.
func parseTAP(report []byte) []tapResult {
	var results []tapResult
	scanner := bufio.NewScanner(bytes.NewReader(report))
	scanner.Buffer(make([]byte, 64*1024), 4*1024*1024)
	inDiag := false
	for scanner.Scan() {
		line := scanner.Text()
		if m := tapLine.FindStringSubmatch(line); m != nil {
			r := tapResult{name: strings.ReplaceAll(m[2], `\#`, "#"), ok: m[1] == "ok"}
			if m[3] == "SKIP" {
				r.skip = m[4]
				if r.skip == "" {
					r.skip = "skipped"
				}
			}
			results = append(results, r)
			inDiag = false
			continue
		}
		switch {
		case line == "  ---" && len(results) > 0:
			inDiag = true
		case line == "  ..." && inDiag:
			inDiag = false
		case inDiag:
			results[len(results)-1].diag += strings.TrimPrefix(line, "  ") + "\n"
		}
	}
	return results
}

// checkNodeVersion requires Node.js 20 or newer (node --test with reporters,
// --test-timeout, fetch).
func checkNodeVersion(t *testing.T, nodeBin string) {
	t.Helper()
	out, err := exec.Command(nodeBin, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	var major int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.", &major); err != nil || major < 20 {
		t.Fatalf("the ethers/viem suite needs Node.js 20 or newer, found %s", strings.TrimSpace(string(out)))
	}
}

var packagesOnce sync.Once

// ensurePackages runs `npm ci` in e2e/ unless node_modules already holds the
// versions package.json pins (make test runs npm ci before go test).
func ensurePackages(t *testing.T) { ensurePinned(t, &packagesOnce, ".", "e2e/") }

// ensurePinned runs `npm ci` in dir, once per process (once), unless its
// node_modules already holds the versions its package.json pins; name is
// how the errors call dir.
func ensurePinned(t *testing.T, once *sync.Once, dir, name string) {
	t.Helper()
	var err error
	once.Do(func() {
		if pinnedInstalled(dir) {
			return
		}
		npm, lerr := exec.LookPath("npm")
		if lerr != nil {
			err = fmt.Errorf("%snode_modules is missing and npm is not on PATH: %w", name, lerr)
			return
		}
		t.Logf("%snode_modules missing or stale: running npm ci", name)
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, cerr := cmd.CombinedOutput(); cerr != nil {
			err = fmt.Errorf("npm ci in %s: %v\n%s", name, cerr, out)
		} else if !pinnedInstalled(dir) {
			err = fmt.Errorf("npm ci in %s succeeded but node_modules still lacks the pinned packages:\n%s", name, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pinnedInstalled reports whether dir/node_modules has every dependency and
// devDependency of dir/package.json at the exact version it pins.
func pinnedInstalled(dir string) bool {
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(raw, &pkg) != nil {
		return false
	}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for name, want := range deps {
			var installed struct {
				Version string `json:"version"`
			}
			raw, err := os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
			if err != nil || json.Unmarshal(raw, &installed) != nil || installed.Version != want {
				return false
			}
		}
	}
	return true
}
