package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrowser drives the explorer and the faucet page in headless Chromium
// (browser/*.test.mjs, puppeteer-core) against a node with the default
// 200 ms blocks (and one sealing every 4 s), as a newcomer on `make run`
// would use them. Screenshots go to e2e/artifacts/screenshots (not
// committed; CI keeps them).
//
// Chromium is $STOCKNODE_CHROMIUM or Debian's chromium on PATH; `make test`
// installs it (scripts/ensure-chromium.sh).
func TestBrowser(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	chromium := findChromium(t)
	shots, err := filepath.Abs(filepath.Join("artifacts", "screenshots"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	n := startNode(t)
	// A node that seals every 4 s shows a pre-confirmed transaction long
	// enough before its block to see it in the page.
	slow := startNode(t, "--block-time", "4s", "--preconf-interval", "200ms")
	files, err := filepath.Glob(filepath.Join("browser", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no browser/*.test.mjs files (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".test.mjs"), func(t *testing.T) {
			runJSFile(t, nodeBin, file, n, "STOCKNODE_SLOW_RPC="+slow.URL, "STOCKNODE_CHROMIUM="+chromium, "STOCKNODE_SCREENSHOTS="+shots)
		})
	}
}

// findChromium returns the browser the tests drive.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("STOCKNODE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the browser tests need Chromium: set STOCKNODE_CHROMIUM or install Debian's chromium (make test does: scripts/ensure-chromium.sh)")
	return ""
}
