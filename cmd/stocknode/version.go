package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// commit is the commit the binary was built from when the build stamps
// no VCS information (GOFLAGS=-buildvcs=false, a build outside a checkout):
// the Makefile sets it with -ldflags "-X main.commit=...".
var commit = ""

// buildVersion is what `stocknode version` and --version print: the
// module's version, the commit it was built from (vcs.revision, with
// "-dirty" for uncommitted changes), the go-ethereum it runs and the Go
// toolchain, all read from the binary's build information.
func buildVersion() string {
	version, rev, geth := "(devel)", "unknown", "unknown"
	if commit != "" {
		rev = commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified {
			rev += "-dirty"
		}
		for _, dep := range info.Deps {
			if dep.Path == "github.com/ethereum/go-ethereum" {
				geth = dep.Version
				if dep.Replace != nil {
					geth = dep.Replace.Version
				}
			}
		}
	}
	return fmt.Sprintf("stocknode %s\ncommit %s\ngo-ethereum %s\n%s %s/%s\n", version, rev, geth, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func runVersion(stdout io.Writer) error {
	_, err := io.WriteString(stdout, buildVersion())
	return err
}
