package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

// logAuth is the sequencer's side of the log's access control: its keys
// (node/natsauth) and where they live.
type logAuth struct {
	dir     string // <datadir>/nats-auth, or a temporary one with --dev
	temp    bool
	keys    *natsauth.Keys
	created []string
	scope   natsauth.Scope
}

// loadLogAuth loads (at the first start, creates) the sequencer's key and,
// for an embedded server that listens, the replicas it admits.
func (n *Node) loadLogAuth(chainID uint64, listen bool) (*logAuth, error) {
	a := &logAuth{dir: natsauth.Dir(n.cfg.DataDir)}
	if n.cfg.Dev {
		dir, err := os.MkdirTemp("", "stocknode-nats-auth-")
		if err != nil {
			return nil, fmt.Errorf("nats keys: %w", err)
		}
		a.dir, a.temp = dir, true
	}
	var err error
	if a.keys, a.created, err = natsauth.Load(a.dir, listen); err != nil {
		a.remove()
		return nil, err
	}
	a.scope = natsauth.Scope{
		Stream:        seqlog.StreamName(chainID),
		RelayRequests: func(id string) string { return relay.Requests(chainID, id) },
	}
	return a, nil
}

// remove deletes a temporary key directory (--dev) when the node stops.
func (a *logAuth) remove() {
	if a != nil && a.temp {
		os.RemoveAll(a.dir)
	}
}

// logReplicaFlags tells the operator how a replica follows this
// sequencer's listener, with which key file.
func (n *Node) logReplicaFlags(url string) {
	a := n.logAuth
	for _, f := range a.created {
		n.logger.Info("Created a NATS key for the sequencer's log", "file", f)
	}
	for _, r := range a.keys.Replicas {
		seed := natsauth.SeedFile(a.dir, r.Name)
		if _, err := os.Stat(seed); err != nil {
			seed = "<" + r.Name + "'s seed file>"
		}
		n.logger.Info("A read replica follows this sequencer with", "replica", r.Name,
			"flags", fmt.Sprintf("--follow --nats.url %s --nats.nkey %s", url, seed))
	}
	n.logger.Info("Replicas must hold an admitted key (copy the seed file to the replica's machine); add one with `stocknode replica-key --datadir DIR NAME`",
		"admitted", len(a.keys.Replicas), "keys", a.dir)
}

// watchReplicaKeys admits the replicas that `stocknode replica-key` adds
// while the sequencer runs, within seconds, without a restart.
func (n *Node) watchReplicaKeys(ctx context.Context) {
	list := filepath.Join(n.logAuth.dir, "replicas")
	stamp := func() time.Time {
		fi, err := os.Stat(list)
		if err != nil {
			return time.Time{}
		}
		return fi.ModTime()
	}
	seen := stamp()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if now := stamp(); !now.Equal(seen) {
			seen = now
			n.readmitReplicas()
		}
	}
}

func (n *Node) readmitReplicas() {
	keys, _, err := natsauth.Load(n.logAuth.dir, false)
	if err != nil {
		n.logger.Error("Replica keys not reloaded", "err", err)
		return
	}
	if err := n.sequencerLog.SetUsers(keys.Users(n.logAuth.scope)); err != nil {
		n.logger.Error("Replica keys not reloaded", "err", err)
		return
	}
	n.logAuth.keys = keys
	n.logger.Info("Admitted the replicas listed now", "replicas", len(keys.Replicas))
}

// relayHandlers are what the sequencer does with its replicas' requests.
func (n *Node) relayHandlers() relay.Handlers {
	h := relay.Handlers{
		Send:   func(_ string, tx *types.Transaction) error { return n.pool.Add(tx) },
		Submit: n.relaySubmit,
		Known:  func(_ string, hash common.Hash) bool { return n.knowsTx(hash) },
	}
	if n.faucet != nil && n.cfg.Faucet.Enabled {
		h.Drip = n.relayedDrip
	}
	return h
}

// knowsTx reports whether the sequencer knows a transaction, for a
// replica's base_transactionStatus: pooled, pre-confirmed, or sealed,
// which the replica may not have replayed yet when the pool has already
// let go of it.
func (n *Node) knowsTx(hash common.Hash) bool {
	if n.pool.Get(hash) != nil {
		return true
	}
	if snap := n.store.Load(); snap != nil {
		for _, tx := range snap.Pending.Transactions {
			if tx.Hash() == hash {
				return true
			}
		}
	}
	_, tx := n.chain.BlockChain().GetCanonicalTransaction(hash)
	return tx != nil
}

// relayedDrip runs a replica's drip on the faucet. The client address the
// replica claims counts only for a replica the operator trusts
// (--faucet.trust-replicas); any other replica's drips share one cooldown,
// so a replica cannot invent addresses to drain the faucet.
func (n *Node) relayedDrip(ctx context.Context, from string, req drip.Request) drip.Result {
	if !n.trustsReplica(from) {
		req.Replica = n.replicaName(from)
	}
	return n.faucet.Drip(ctx, req)
}

// replicaName is the name the admitted list gives identity id, else id.
func (n *Node) replicaName(id string) string {
	if n.logAuth != nil {
		if r, ok := n.logAuth.keys.Replica(id); ok {
			return r.Name
		}
	}
	return id
}

// trustsReplica reports whether the replica of identity id is named (by
// its name in the admitted list or by its identity) in TrustedReplicas.
func (n *Node) trustsReplica(id string) bool {
	trusted := n.cfg.TrustedReplicas
	if slices.Contains(trusted, id) {
		return true
	}
	if n.logAuth == nil {
		return false
	}
	r, ok := n.logAuth.keys.Replica(id)
	return ok && slices.Contains(trusted, r.Name)
}
