package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// castVersion is the Foundry cast the tests run, from npm's
// @foundry-rs/cast (which ships the binary).
const castVersion = "1.7.1"

// castBinary returns Foundry's cast ($CAST, or the npm package installed
// once into the anchors' npm directory beside anvil, as compare/run.sh
// installs anvil). It is not in e2e/package.json: the registry here serves
// the package's linux-amd64 binary only, so the lock file would lack its
// other platforms and `npm ci` would refuse it.
func castBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the cast tests run without -short")
	}
	if cast := os.Getenv("CAST"); cast != "" {
		return cast
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(home, ".cache", "stocknode-anchors", "npm")
	cast := filepath.Join(prefix, "node_modules", "@foundry-rs", "cast-"+runtime.GOOS+"-"+runtime.GOARCH, "bin", "cast")
	if out, err := exec.Command(cast, "--version").Output(); err == nil && strings.Contains(string(out), castVersion) {
		return cast
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("cast is not installed and npm is not on PATH to install it: %v", err)
	}
	t.Logf("installing @foundry-rs/cast@%s into %s", castVersion, prefix)
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, "@foundry-rs/cast@"+castVersion)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install @foundry-rs/cast@%s: %v\n%s", castVersion, err, out)
	}
	if out, err := exec.Command(cast, "--version").Output(); err != nil || !strings.Contains(string(out), castVersion) {
		t.Fatalf("%s --version: %q, %v", cast, out, err)
	}
	return cast
}
