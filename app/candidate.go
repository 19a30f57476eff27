package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stocknode/stocknode/node/lease"
	"github.com/stocknode/stocknode/node/recovery"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/replica"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// A sequencer candidate (--ha) is a standby while another holds the
// leader lease (node/lease): it follows the log and relays sends as a
// replica does. When it takes the lease it catches up with the log's last
// entry, resumes the block being built from the log (node/recovery), and
// sequences until it loses the lease or is fenced; then it drops what it
// never logged and is a standby again. The lease says who tries; the log's
// expected-last-sequence fences a stale leader, so two never both extend
// the chain.

// startCandidate opens the log on --nats.url and the lease beside it,
// and starts as a standby.
func (n *Node) startCandidate(seqCfg sequencer.Config) error {
	ctx := context.Background()
	cfg := n.cfg.SequencerLog
	cfg.ChainID = n.chain.Config().ChainID.Uint64()
	n.observeLog(&cfg)
	connect, key, err := n.cfg.NATS.Options()
	if err != nil {
		return err
	}
	cfg.Connect = connect
	// Its entries are signed with the datadir's sequencer key, one per
	// candidate across restarts, so the stream's list of signers stays
	// as short as the candidates are many.
	auth, err := n.loadLogAuth(cfg.ChainID, false)
	if err != nil {
		return err
	}
	n.logAuth = auth
	cfg.Signer = auth.keys.Sequencer
	// The log is opened to write from the start: its signing key is
	// listed in the stream's metadata now, so that replicas verify this
	// candidate's entries the moment it leads. It appends nothing until
	// then.
	l, err := seqlog.Open(ctx, cfg, n.logger)
	if err != nil {
		return withRepairHint(fmt.Errorf("%w (flags: --ha, --nats.url, --nats.nkey, --nats.creds)", err))
	}
	n.sequencerLog = l
	js, err := jetstream.New(l.Conn())
	if err != nil {
		return fmt.Errorf("leader lease: %w", err)
	}
	leaseCfg := n.cfg.Lease
	leaseCfg.ChainID, leaseCfg.Replicas = cfg.ChainID, cfg.Replicas
	if n.lease, err = lease.Open(ctx, js, leaseCfg); err != nil {
		return fmt.Errorf("%w (flags: --ha.name, --ha.lease-ttl, --ha.lease-renew)", err)
	}
	n.candidateSeq = seqCfg
	// A block committed and never logged before a crash is dropped now if
	// the log ends before it, and by the replay if the next leader sealed
	// another of its number.
	if err := n.levelWithLog(ctx); err != nil {
		return err
	}
	n.replay = sequencer.NewReplayer(n.chain, n.store, n.logger)
	n.replay.SetLogWins(true)
	n.follower = replica.New(l, n.replay, n.chain, n.logger)
	n.follower.TrackAccepted()
	n.relay = relay.NewClient(l.Conn(), cfg.ChainID, n.cfg.RelayTimeout, key)
	n.pool.ForwardTo(relayForwarder{n.relay})
	n.logger.Info("Sequencer candidate (--ha): a standby until it holds the leader lease", "stream", seqlog.StreamName(cfg.ChainID),
		"lease", lease.BucketName(cfg.ChainID), "name", leaseCfg.Holder, "nats", l.URL())
	if err := n.replay.PublishHead(); err != nil {
		return err
	}
	return n.startAPI()
}

// runCandidate campaigns for the lease until ctx ends, following the log
// while another leads. A follower that cannot go on ends it with its error.
func (n *Node) runCandidate(ctx context.Context) error {
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	c := &candidacy{n: n, ctx: ctx, fail: fail}
	c.follow()
	n.lease.Campaign(ctx, n.logger, c.lead)
	c.unfollow()
	if err := context.Cause(ctx); !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// candidacy is one run of a candidate: its standby's follower, when it
// runs.
type candidacy struct {
	n        *Node
	ctx      context.Context
	fail     context.CancelCauseFunc
	stop     context.CancelFunc
	followed chan struct{}
}

// follow starts following the log as a standby.
func (c *candidacy) follow() {
	c.n.leading.Store(false)
	ctx, stop := context.WithCancel(c.ctx)
	c.stop, c.followed = stop, make(chan struct{})
	go func() {
		defer close(c.followed)
		if err := c.n.follower.Run(ctx); err != nil {
			c.fail(err)
		}
	}()
}

// unfollow stops the follower and waits for it.
func (c *candidacy) unfollow() {
	if c.stop != nil {
		c.stop()
		<-c.followed
		c.stop = nil
	}
}

// lead runs while this candidate holds the lease: it takes over, sequences
// until ctx ends (the lease may be lost) or the log fences it, and steps
// down to a standby again.
func (c *candidacy) lead(ctx context.Context) {
	n := c.n
	start := time.Now()
	last, err := c.catchUp(ctx)
	if err != nil {
		if ctx.Err() == nil {
			n.logger.Warn("Leader lease held, but this standby cannot take over: giving the lease back", "err", err)
		}
		return
	}
	n.logger.Info("Taking over as the sequencer", "head", n.chain.Head().Number, "logSeq", last, "caughtUpIn", time.Since(start).Round(time.Millisecond))
	err = n.sequenceTerm(ctx)
	switch {
	case err == nil:
		// The term ended between two blocks (a handover, or the lease
		// lost), each sealed block logged before the next opened, and
		// no append of this node's is under way: the chain is level
		// with the log, and the next candidate may lead while this one
		// steps down.
		n.leading.Store(false)
		n.lease.Resign()
		n.logger.Info("Term ended between two blocks: leader lease given up", "led", time.Since(start).Round(time.Millisecond))
	case errors.Is(err, seqlog.ErrFenced):
		n.logger.Warn("Fenced: another sequencer appended to the log; stepping down to a standby", "err", err)
	case ctx.Err() == nil:
		n.logger.Error("Sequencing stopped; stepping down to a standby", "err", err)
	}
	if err := n.stepDown(); err != nil {
		c.fail(err)
		return
	}
	c.follow()
}

// catchUp brings the standby level with the log's last entry, stops its
// follower there, and makes that entry the one the first append expects.
// An entry that arrives meanwhile (a leader that has not noticed it lost
// the lease), or a log it cannot read, makes it try again, up to
// maxCatchUp; past that this candidate gives the lease back and stays a
// standby.
func (c *candidacy) catchUp(ctx context.Context) (uint64, error) {
	giveUp := time.After(maxCatchUp)
	return untilSettled(ctx, giveUp, func() (uint64, error) { return c.catchUpOnce(ctx, giveUp) })
}

// untilSettled calls try again, settleRetry apart, while it finds the log
// unsettled (errLogUnsettled), until giveUp. A leader deposed while its
// NATS server elected the bucket's leader appends until its next renewal
// finds the lease taken, and a stream electing its own leader answers
// nothing: both settle within a renewal or an election, well before
// giveUp.
func untilSettled(ctx context.Context, giveUp <-chan time.Time, try func() (uint64, error)) (uint64, error) {
	for {
		last, err := try()
		if !errors.Is(err, errLogUnsettled) {
			return last, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-giveUp:
			return 0, fmt.Errorf("the log did not settle within %v: %w", maxCatchUp, err)
		case <-time.After(settleRetry):
		}
	}
}

// settleRetry is the wait between two tries of a catch-up.
const settleRetry = 50 * time.Millisecond

// errLogUnsettled is a catch-up that found the log moving, or could not
// read where it ends: one to try again.
var errLogUnsettled = errors.New("the log is not settled")

// catchUpOnce is one try of catchUp: it reads where the log ends, waits
// for the follower to apply that entry, stops it, and checks that the log
// still ends there.
func (c *candidacy) catchUpOnce(ctx context.Context, giveUp <-chan time.Time) (uint64, error) {
	log := c.n.sequencerLog
	last, err := resync(ctx, log)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errLogUnsettled, err)
	}
	for {
		if _, _, applied := c.n.follower.Lag(); applied >= last {
			break
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-c.followed:
			return 0, errors.New("the follower stopped")
		case <-giveUp:
			// The lease goes back, so that a standby that can catch up leads.
			return 0, fmt.Errorf("not caught up with the log's entry %d within %v", last, maxCatchUp)
		case <-time.After(time.Millisecond):
		}
	}
	c.unfollow()
	if _, _, applied := c.n.follower.Lag(); applied != last {
		c.follow()
		return 0, fmt.Errorf("%w: it went on from entry %d to %d after the lease was taken", errLogUnsettled, last, applied)
	}
	again, err := resync(ctx, log)
	if err == nil && again != last {
		err = fmt.Errorf("it went on from entry %d to %d after the lease was taken", last, again)
	}
	if err != nil {
		c.follow()
		return 0, fmt.Errorf("%w: %w", errLogUnsettled, err)
	}
	return last, nil
}

// resync reads where the log ends within one attempt's time: a request
// made while the stream elects a leader is never answered, and the next
// one, made after the election, is.
func resync(ctx context.Context, log *seqlog.Log) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, seqlog.DefaultClusterAckTimeout)
	defer cancel()
	return log.Resync(ctx)
}

// maxCatchUp bounds a new leader's wait for its follower to apply the
// log's last entry (milliseconds normally, a few hundred behind a flood).
const maxCatchUp = 5 * time.Second

// sequenceTerm resumes the block being built (resumeBuilding) and
// sequences until ctx ends or the sequencer stops.
func (n *Node) sequenceTerm(ctx context.Context) error {
	seq, err := sequencer.New(n.candidateSeq, n.chain, n.pool, n.store, n.logger)
	if err != nil {
		return err
	}
	seq.SetListener(n.listeners)
	l := n.sequencerLog
	repool, err := n.resumeBuilding(ctx, seq)
	if err != nil {
		return err
	}
	seq.SetJournal(seqlog.NewJournal(l))
	acceptLog := seqlog.StartAcceptLog(l)
	n.pool.SetHooks(nil, acceptForTerm(acceptLog))
	// At the term's end (deferred, in reverse): no relayed send reaches
	// this pool any more, the backlog is in, this node's own sends go to
	// the next leader once those pooling here are logged (SetHooks waits
	// for them: the pool is the accept log's only caller), then the log's
	// group commit stops.
	defer acceptLog.Stop()
	defer n.pool.SetHooks(relayForwarder{n.relay}, nil)
	// The pool gets again what the last sequencer's pool held, while this
	// one already pre-confirms what it resumed: the backlog it carried
	// across blocks (the follower's), then what Resume found. A pool add
	// waits for its promotion, and a backlog under load is thousands.
	backlog := n.follower.Outstanding()
	repooled := make(chan struct{})
	repoolCtx, stopRepool := context.WithCancel(ctx)
	go func() {
		defer close(repooled)
		recovery.Repool(n.pool, backlog, n.logger)
		recovery.Repool(n.pool, repool(repoolCtx), n.logger)
	}()
	// A read of the log still under way at the term's end is of no use
	// any more (the next leader reads the log itself), and must not hold
	// the step-down.
	defer func() { stopRepool(); <-repooled }()
	server, err := relay.Serve(l.Conn(), n.chain.Config().ChainID.Uint64(), n.relayHandlers(), 0, n.logger)
	if err != nil {
		return err
	}
	defer server.Close()
	ctx, handOver, err := n.awaitHandover(ctx)
	if err != nil {
		return err
	}
	defer handOver()
	n.leading.Store(true)
	return seq.Run(ctx)
}

// resumeBuilding has seq continue the block being built, and returns
// what gives the pool the transactions the log holds since its last
// sealed block (it may read the log, until its ctx ends: call it in the
// background).
//
// The follower stopped where the log ends (catchUp). When it builds a
// block, the chain is level with the log and that block is the one being
// built: seq continues it as it is, without reading the log first.
// Otherwise the log wins: what this node committed and never logged is
// not a promise, and Resume rebuilds the block being built from the log.
func (n *Node) resumeBuilding(ctx context.Context, seq *sequencer.Sequencer) (repool func(context.Context) types.Transactions, err error) {
	rec := recovery.Recovery{Log: n.sequencerLog, Chain: n.chain, Logger: n.logger}
	if resumed, ok := seq.ContinueReplayed(n.replay); ok {
		return func(ctx context.Context) types.Transactions {
			accepted, err := rec.Accepted(ctx)
			if err != nil && ctx.Err() == nil {
				n.logger.Warn("Cannot read the transactions the log accepted since its last sealed block; those not yet pre-confirmed wait for their senders to send them again", "err", err)
			}
			return append(resumed, accepted...)
		}, nil
	}
	if err := n.levelWithLog(ctx); err != nil {
		return nil, err
	}
	accepted, err := rec.Resume(ctx, seq)
	if err != nil {
		return nil, err
	}
	return func(context.Context) types.Transactions { return accepted }, nil
}

// acceptForTerm logs acceptances with a, and says of one that another
// writer fenced that the term ended (txpool.ErrTermEnded): the pool then
// hands the send to the next leader instead of failing it.
func acceptForTerm(a *seqlog.AcceptLog) func(*types.Transaction) error {
	return func(tx *types.Transaction) error {
		err := a.Accept(tx)
		if errors.Is(err, seqlog.ErrFenced) {
			return fmt.Errorf("%w: %w", txpool.ErrTermEnded, err)
		}
		return err
	}
}

// awaitHandover takes a planned handover's request for the term: it ends
// the returned context, which stops the sequencer with the block being
// built left to the log, and the lease is given up when the term ends.
// stop ends the wait.
func (n *Node) awaitHandover(ctx context.Context) (term context.Context, stop func(), err error) {
	term, cancel := context.WithCancel(ctx)
	name := n.cfg.Lease.Holder
	sub, err := n.sequencerLog.Conn().Subscribe(lease.HandoverSubject(n.chain.Config().ChainID.Uint64()), func(m *nats.Msg) {
		n.logger.Info("Handing over: stopping, the block being built goes to the next leader from the log")
		_ = m.Respond([]byte(name))
		cancel()
	})
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("take handover requests: %w", err)
	}
	return term, func() { _ = sub.Unsubscribe(); cancel() }, nil
}

// stepDown drops what this candidate never logged: its pool, and a block
// it committed whose sealing the log does not hold (the log wins). The
// lease goes to the next candidate as soon as the chain is level with
// the log (lead gives it up before when the term ended cleanly; giving
// it up again changes nothing). The follower then replays the new
// leader's.
func (n *Node) stepDown() error {
	n.leading.Store(false)
	n.pool.Clear()
	n.follower.TrackAccepted() // what it remembered was this term's to seal
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.levelWithLog(ctx); err != nil {
		return fmt.Errorf("step down: %w", err)
	}
	n.lease.Resign()
	return n.replay.PublishHead()
}

// levelWithLog rewinds the chain to the log's last sealed block when this
// node committed blocks after it: they were never logged, so never
// announced, and the log wins. A new log starts at the head.
func (n *Node) levelWithLog(ctx context.Context) error {
	last, err := n.sequencerLog.LastOf(ctx, seqlog.KindSealed)
	if errors.Is(err, seqlog.ErrEmpty) {
		return nil
	}
	if err != nil {
		return err
	}
	sealed := last.Entry.(seqlog.Sealed)
	head := n.chain.Head().Number.Uint64()
	keep := sealed.Number
	if sealed.Number <= head && n.chain.BlockChain().GetCanonicalHash(sealed.Number) != sealed.Hash {
		// This node's block of that number was never logged: the log's
		// replaces it, if it extends the same parent.
		block, err := sealed.DecodeBlock()
		if err != nil {
			return err
		}
		keep = sealed.Number - 1
		if sealed.Number == 0 || n.chain.BlockChain().GetCanonicalHash(keep) != block.ParentHash() {
			return fmt.Errorf("the log's block %d is %s, this node's %s: the log is another chain's (use another --datadir)",
				sealed.Number, sealed.Hash, n.chain.BlockChain().GetCanonicalHash(sealed.Number))
		}
	}
	switch {
	case head <= keep:
		return nil
	case head-keep > maxUnlogged:
		return fmt.Errorf("this node's chain is %d blocks ahead of the log's last sealed block %d: not a datadir of this log's candidates (use another --datadir)", head-keep, sealed.Number)
	}
	n.logger.Warn("Dropping blocks this node committed but never logged", "from", keep+1, "to", head)
	return n.chain.Rewind(keep)
}

// maxUnlogged bounds the blocks a candidate drops for the log: a leader
// logs a block while it commits it (node/sequencer's pipelined seal) and
// seals the next only after both, so a crash leaves at most one unlogged.
const maxUnlogged = 16
