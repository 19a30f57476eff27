package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// forgeVersion is the Foundry forge the Foundry example runs, from npm's
// @foundry-rs/forge, the same release as cast (castVersion).
const forgeVersion = castVersion

// TestExamples runs the app developer's examples (examples/README.md)
// against one node in the default configuration, as they run by hand
// against `make run`: each example is a subtest, all at once (each has a
// development key of its own), and a failing one fails with everything it
// printed. Under -v the output of each is logged whether it passes or not.
//
// Needs Node.js 20 or newer and npm (examples/package-lock.json is
// installed with `npm ci` when examples/node_modules lacks it); the Foundry
// example installs forge and cast from npm once into
// ~/.cache/stocknode-anchors/npm ($FORGE and $CAST name others) and
// compiles with e2e's solc-js, offline.
func TestExamples(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	ensureExamplePackages(t)
	n := startNode(t)
	env := []string{"STOCKNODE_RPC=" + n.URL}
	for _, file := range []string{"ethers-stock-token.mjs", "ethers-allowlist.mjs", "viem-preconf.mjs"} {
		t.Run(strings.TrimSuffix(file, ".mjs"), func(t *testing.T) {
			t.Parallel()
			runExample(t, env, nodeBin, filepath.Join("..", "examples", file))
		})
	}
	t.Run("foundry", func(t *testing.T) {
		t.Parallel()
		cast := castBinary(t)
		forge := forgeBinary(t)
		solc := solcForForge(t, nodeBin)
		out := t.TempDir()
		runExample(t, append(env,
			"FORGE="+forge, "CAST="+cast,
			// forge would download solc 0.8.30: give it e2e's solc-js, and
			// keep what it writes out of the work tree.
			"FOUNDRY_SOLC="+solc, "FOUNDRY_OFFLINE=true",
			"FOUNDRY_OUT="+filepath.Join(out, "out"),
			"FOUNDRY_CACHE_PATH="+filepath.Join(out, "cache"),
			"FOUNDRY_BROADCAST="+filepath.Join(out, "broadcast"),
		), "bash", filepath.Join("..", "examples", "foundry", "run.sh"))
	})
}

// runExample runs one example to its end and fails the test with its output
// when it exits non-zero or does not end with "every step as expected".
func runExample(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Round(10 * time.Millisecond)
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s did not finish within 150 s; output:\n%s", strings.Join(args, " "), out)
	case err != nil:
		t.Fatalf("%s: %v after %v; output:\n%s", strings.Join(args, " "), err, took, out)
	case !strings.Contains(string(out), "every step as expected"):
		t.Fatalf("%s exited 0 without its last line; output:\n%s", strings.Join(args, " "), out)
	}
	t.Logf("%s, %v:\n%s", strings.Join(args, " "), took, out)
}

var examplePackagesOnce sync.Once

// ensureExamplePackages runs `npm ci` in examples/ unless its node_modules
// already holds the versions its package.json pins (make test runs npm ci
// there before go test).
func ensureExamplePackages(t *testing.T) {
	ensurePinned(t, &examplePackagesOnce, filepath.Join("..", "examples"), "examples/")
}

// forgeBinary returns Foundry's forge ($FORGE, or the npm package installed
// once beside cast, which castBinary has installed: the same prefix, so the
// two installs never run at once within this process).
func forgeBinary(t *testing.T) string {
	t.Helper()
	if forge := os.Getenv("FORGE"); forge != "" {
		return forge
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(home, ".cache", "stocknode-anchors", "npm")
	forge := filepath.Join(prefix, "node_modules", "@foundry-rs", "forge-"+runtime.GOOS+"-"+runtime.GOARCH, "bin", "forge")
	if out, err := exec.Command(forge, "--version").Output(); err == nil && strings.Contains(string(out), forgeVersion) {
		return forge
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("forge is not installed and npm is not on PATH to install it: %v", err)
	}
	t.Logf("installing @foundry-rs/forge@%s into %s", forgeVersion, prefix)
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, "@foundry-rs/forge@"+forgeVersion)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install @foundry-rs/forge@%s: %v\n%s", forgeVersion, err, out)
	}
	if out, err := exec.Command(forge, "--version").Output(); err != nil || !strings.Contains(string(out), forgeVersion) {
		t.Fatalf("%s --version: %q, %v", forge, out, err)
	}
	return forge
}

// solcForForge writes a solc executable for forge (FOUNDRY_SOLC) that
// answers --version and compiles --standard-json with e2e's solc-js 0.8.30
// (e2e/package.json), so that forge compiles without downloading a
// compiler. It returns the executable's path.
func solcForForge(t *testing.T, nodeBin string) string {
	t.Helper()
	solcjs, err := filepath.Abs(filepath.Join("node_modules", "solc"))
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`#!%s
// solc's command line as forge calls it (--version; --standard-json on stdin), over solc-js.
const solc = require(%q);
if (process.argv.includes("--version")) {
  console.log("solc, the solidity compiler commandline interface\nVersion: " + solc.version());
} else {
  process.stdout.write(solc.compile(require("node:fs").readFileSync(0, "utf8")));
}
`, nodeBin, solcjs)
	path := filepath.Join(t.TempDir(), "solc")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
