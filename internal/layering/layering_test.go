// Package layering holds one test: that the project's imports point down
// its layers, as docs/architecture.md draws them. A package may import its
// own layer and those below, never one above: the engine (node/) does not
// know the apps built on it, and the apps do not know the composition root
// that wires them.
package layering

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/stocknode/stocknode"

// layer ranks a package of the module: below the engine (0), the engine
// (1), the apps (2), the composition root (3), the commands and tools (4).
func layer(path string) int {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "node":
		return 1
	case "explorer", "rest", "faucet":
		return 2
	case "app":
		return 3
	case "cmd", "loadtest", "compare", "conformance", "e2e", "examples":
		return 4
	default: // codec, chainconfig, contracts, drip, httpserver, metrics, peer, pool, ratelimit, internal/...
		return 0
	}
}

func TestImportsPointDown(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg := fields[0]
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module+"/") || imp == pkg {
				continue
			}
			if layer(imp) > layer(pkg) {
				t.Errorf("%s (layer %d) imports %s (layer %d), which is above it", strings.TrimPrefix(pkg, module+"/"), layer(pkg), strings.TrimPrefix(imp, module+"/"), layer(imp))
			}
		}
	}
}
