package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

// runReplicaKey admits a new read replica to the sequencer's NATS server:
// a seed for it, and its public key in the admitted list.
func runReplicaKey(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode replica-key", stderr)
	dataDir := fs.String("datadir", "./stocknode-data", "the sequencer's data directory")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: stocknode replica-key [--datadir DIR] NAME")
		return errUsage
	}
	name := fs.Arg(0)
	seed, pub, err := natsauth.AddReplica(natsauth.Dir(*dataDir), name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Admitted replica %q (public key %s); a running sequencer admits it within seconds.\n", name, pub)
	fmt.Fprintf(stdout, "Its seed is %s: copy it to the replica's machine, readable by the node only, and start the replica with\n", seed)
	fmt.Fprintf(stdout, "  stocknode --follow --nats.url nats://SEQUENCER:PORT --nats.nkey %s\n", filepath.Base(seed))
	return nil
}

// runNATSUsers prints the authorization block that gives an external NATS
// cluster's users the permissions the embedded server gives them.
func runNATSUsers(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode nats-users", stderr)
	dataDir := fs.String("datadir", "./stocknode-data", "the sequencer's data directory (its keys are in <datadir>/nats-auth)")
	chainID := fs.Uint64("chainid", chain.PreviewChainID, "the chain's ID, which names the log's stream and subjects")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: stocknode nats-users [--datadir DIR] [--chainid ID]")
		return errUsage
	}
	keys, _, err := natsauth.Load(natsauth.Dir(*dataDir), false)
	if err != nil {
		return err
	}
	id := *chainID
	text, err := keys.ServerConfig(natsauth.Scope{
		Stream:        seqlog.StreamName(id),
		RelayRequests: func(pub string) string { return relay.Requests(id, pub) },
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, text)
	return err
}

// runLogRepair rebuilds the sequencer's log without the entries that no
// sequencer signed or that do not decode (seqlog.Repair). The node must be
// stopped: the repair opens its database first, which a running node
// holds.
func runLogRepair(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode log-repair", stderr)
	dataDir := fs.String("datadir", "./stocknode-data", "the sequencer's data directory (its log is <datadir>/nats unless --nats.url)")
	dryRun := fs.Bool("dry-run", false, "list the entries a repair would drop, change nothing")
	var cfg app.Config
	natsClientFlags(fs, &cfg) // --nats.url and its credentials, as the sequencer runs with
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: stocknode log-repair [--datadir DIR] [--dry-run] [--nats.url URLS --nats.nkey FILE | --nats.creds FILE]")
		return errUsage
	}
	routeGethLogs(stderr, slog.LevelWarn)
	logCfg, err := repairConfig(*dataDir, &cfg)
	if err != nil {
		return err
	}
	work := filepath.Join(*dataDir, "nats-repair.saved")
	rep, err := seqlog.Repair(ctx, logCfg, work, *dryRun, newLogger(stderr, 2))
	if err != nil {
		return err
	}
	printRepair(stdout, rep, *dryRun)
	return nil
}

// repairConfig is the log's configuration as the sequencer of dataDir
// opens it. The chain's database is opened (and closed) to learn its
// chain ID: a running node holds it, so the repair refuses to run beside
// one.
func repairConfig(dataDir string, cfg *app.Config) (seqlog.Config, error) {
	c, err := chain.Open(chain.Config{DataDir: dataDir})
	if err != nil {
		return seqlog.Config{}, fmt.Errorf("open the chain of %s (is its node still running? stop it first): %w", dataDir, err)
	}
	chainID := c.Config().ChainID.Uint64()
	if err := c.Close(); err != nil {
		return seqlog.Config{}, err
	}
	keys, _, err := natsauth.Load(natsauth.Dir(dataDir), false)
	if err != nil {
		return seqlog.Config{}, err
	}
	logCfg := seqlog.Config{ChainID: chainID, Signer: keys.Sequencer, URLs: cfg.SequencerLog.URLs}
	if len(logCfg.URLs) == 0 {
		logCfg.Dir = filepath.Join(dataDir, "nats")
		return logCfg, nil
	}
	logCfg.Connect, _, err = cfg.NATS.Options()
	return logCfg, err
}

func printRepair(w io.Writer, rep seqlog.RepairReport, dryRun bool) {
	switch {
	case rep.Resumed:
		fmt.Fprintf(w, "Completed an interrupted repair of %s: %d entries from sequence %d.\n", rep.Stream, rep.Kept, rep.First)
		return
	case len(rep.Dropped) == 0:
		fmt.Fprintf(w, "Log %s: %d entries, every one signed by this chain's sequencer and readable; nothing to repair.\n", rep.Stream, rep.Entries)
		return
	}
	verb := "Dropped"
	if dryRun {
		verb = "Would drop"
	}
	fmt.Fprintf(w, "%s %d of the %d entries of %s:\n", verb, len(rep.Dropped), rep.Entries, rep.Stream)
	for i, b := range rep.Dropped {
		if i == 20 {
			fmt.Fprintf(w, "  ... and %d more\n", len(rep.Dropped)-i)
			break
		}
		fmt.Fprintf(w, "  %d  %s  %s\n", b.Seq, b.Subject, strings.TrimPrefix(b.Reason, "sequencer log: "))
	}
	if rep.Rebuilt {
		fmt.Fprintf(w, "Rebuilt %s: %d entries from sequence %d, each signed again. Start the sequencer; running replicas find their place again by themselves.\n",
			rep.Stream, rep.Kept, rep.First)
	}
}
