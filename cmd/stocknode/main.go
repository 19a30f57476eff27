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
		case "init", "import", "export", "run", "replica-key", "nats-users", "log-repair":
			cmd, rest = args[0], args[1:]
		}
	}
	var err error
	switch cmd {
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
