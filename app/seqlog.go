package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/stocknode/stocknode/node/recovery"
	"github.com/stocknode/stocknode/node/seqlog"
)

// withRepairHint says what to do about a log entry that does not decode.
func withRepairHint(err error) error {
	if !errors.Is(err, seqlog.ErrUndecodable) {
		return err
	}
	return fmt.Errorf("%w; `stocknode log-repair` with this node's --datadir and --nats.* flags rebuilds the log without such entries and keeps every other (--dry-run lists what it would drop)", err)
}

// openLog opens the sequencer's log (node/seqlog: an embedded JetStream
// under <datadir>/nats, in memory with --dev, or --nats.url), brings it
// level with the database and gives it to the sequencer as its journal.
func (n *Node) openLog(ctx context.Context) error {
	cfg := n.cfg.SequencerLog
	cfg.ChainID = n.chain.Config().ChainID.Uint64()
	n.observeLog(&cfg)
	auth, err := n.loadLogAuth(cfg.ChainID, cfg.Listen != "")
	if err != nil {
		return err
	}
	n.logAuth = auth
	cfg.Signer = auth.keys.Sequencer
	if len(cfg.URLs) == 0 { // the embedded server: in the datadir, or in memory
		cfg.InMemory = n.cfg.Dev
		if !n.cfg.Dev {
			cfg.Dir = filepath.Join(n.cfg.DataDir, "nats")
		}
		cfg.Users = auth.keys.Users(auth.scope)
	} else if cfg.Connect, _, err = n.cfg.NATS.Options(); err != nil {
		return err
	}
	l, err := seqlog.Open(ctx, cfg, n.logger)
	if err != nil {
		return withRepairHint(fmt.Errorf("%w (flags: --nats.listen, --nats.url, --nats.nkey, --nats.creds, --nats.replicas)", err))
	}
	rec := recovery.Recovery{Log: l, Chain: n.chain, LogDir: filepath.Join(n.cfg.DataDir, "nats"), Logger: n.logger}
	if err := rec.LevelLog(ctx); err != nil {
		l.Close()
		return withRepairHint(err)
	}
	accepted, err := rec.Resume(ctx, n.seq)
	if err != nil {
		l.Close()
		return withRepairHint(err)
	}
	n.sequencerLog = l
	n.seq.SetJournal(seqlog.NewJournal(l))
	n.acceptLog = seqlog.StartAcceptLog(l)
	n.pool.OnAccepted(n.acceptLog.Accept)
	recovery.Repool(n.pool, accepted, n.logger)
	attrs := []any{"stream", seqlog.StreamName(cfg.ChainID)}
	switch {
	case len(cfg.URLs) > 0:
		attrs = append(attrs, "nats", l.URL(), "replicas", cfg.Replicas)
	case cfg.InMemory:
		attrs = append(attrs, "embedded", "in memory (--dev)")
	default:
		attrs = append(attrs, "embedded", cfg.Dir)
	}
	if cfg.Listen != "" {
		attrs = append(attrs, "url", l.URL())
	}
	n.logger.Info("Sequencer log on NATS JetStream", attrs...)
	if cfg.Listen != "" {
		n.logReplicaFlags(l.URL())
	}
	return nil
}
