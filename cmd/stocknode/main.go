// Command stocknode runs a tokenized-stock chain endpoint: its own EVM chain
// with 200 ms blocks and pre-confirmations.
//
//	stocknode [flags]                                 run the node
//	stocknode init --genesis FILE --datadir DIR       write a genesis
//	stocknode import --datadir DIR [--genesis FILE] FILE.rlp
//	stocknode export --datadir DIR FILE.rlp
//	stocknode replica-key [--datadir DIR] NAME         admit a read replica to the log
//	stocknode nats-users [--datadir DIR]              an external NATS cluster's users
//	stocknode log-repair [--datadir DIR] [--dry-run]   rebuild the log without bad entries
//	stocknode version                                 the version, commit and go-ethereum
//	stocknode help                                    the commands and the node's flags
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	cmd, rest := "run", args
	if len(args) > 0 {
		switch args[0] {
		case "init", "import", "export", "run", "replica-key", "nats-users", "log-repair", "handover", "version", "help":
			cmd, rest = args[0], args[1:]
		}
	}
	if cmd == "run" && wantsVersion(rest) {
		cmd = "version"
	}
	var err error
	switch cmd {
	case "version":
		err = runVersion(stdout)
	case "help":
		err = runHelp(rest, stdout)
	case "init":
		err = runInit(rest, stdout, stderr)
	case "import":
		err = runImport(ctx, rest, stdout, stderr)
	case "export":
		err = runExport(rest, stdout, stderr)
	case "replica-key":
		err = runReplicaKey(rest, stdout, stderr)
	case "nats-users":
		err = runNATSUsers(rest, stdout, stderr)
	case "log-repair":
		err = runLogRepair(ctx, rest, stdout, stderr)
	case "handover":
		err = runHandover(ctx, rest, stdout, stderr)
	default:
		err = runNode(ctx, rest, stdout, stderr)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintf(stderr, "stocknode %s: %v\n", cmd, err)
		return 1
	}
}

var errUsage = errors.New("usage")

// commandsUsage heads every usage text: the subcommands, as geth's and
// anvil's --help list theirs.
const commandsUsage = `Usage:
  stocknode [flags]                                      run the node (flags below)
  stocknode init   --genesis FILE --datadir DIR          write a geth-format genesis
  stocknode import --datadir DIR [--genesis FILE] FILE.rlp[.gz]
                                                         import blocks in geth's export format
  stocknode export --datadir DIR FILE.rlp[.gz]           export the chain in that format
  stocknode replica-key [--datadir DIR] NAME             admit a read replica to the sequencer's log
  stocknode nats-users  [--datadir DIR] [--chainid ID]   the log's users for an external NATS cluster
  stocknode log-repair  [--datadir DIR] [--dry-run]      rebuild the log without bad entries
  stocknode handover    --nats.url URLS                  the leading --ha candidate hands over to a standby
  stocknode version                                      the version, commit and go-ethereum (also --version)
  stocknode help                                         this text (also --help); COMMAND --help for a command's flags
`

// wantsVersion reports whether the node's arguments ask for the version
// (--version, -version), which is not one of its flags: asked for, it
// wins over every other argument, as for geth and anvil.
func wantsVersion(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--version" || a == "-version" || a == "-V" {
			return true
		}
	}
	return false
}

// runHelp prints the commands and the node's flags; help COMMAND prints
// that command's flags.
func runHelp(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] != "run" {
		switch args[0] {
		case "init", "import", "export", "replica-key", "nats-users", "log-repair", "handover":
			helpOf(args[0], stdout)
			return nil
		}
		fmt.Fprintf(stdout, "stocknode help: no command %q\n\n", args[0])
	}
	helpOf("run", stdout)
	return nil
}

// helpOf prints a command's usage to stdout, as its --help does to stderr.
func helpOf(cmd string, stdout io.Writer) {
	run([]string{cmd, "--help"}, stdout, stdout) // --help exits 0
}

// newLogger returns the node's logger and routes go-ethereum's own logs
// through it (one level quieter: InsertChain logs every block at info).
func newLogger(w io.Writer, verbosity int) *slog.Logger {
	level := slogLevel(verbosity)
	logger := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	routeGethLogs(w, slogLevel(verbosity-1))
	return logger
}

// slogLevel maps geth's --verbosity (0 silent .. 5 trace, 3 info) to slog.
func slogLevel(verbosity int) slog.Level {
	switch {
	case verbosity <= 0:
		return slog.LevelError + 100
	case verbosity == 1:
		return slog.LevelError
	case verbosity == 2:
		return slog.LevelWarn
	case verbosity == 3:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}
