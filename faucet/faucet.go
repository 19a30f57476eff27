// Package faucet is the preview network's faucet API: it hands out test
// ether from one account, a fixed amount per drip, at most once per
// cooldown per recipient address and per client, and reports whether the
// chain is producing blocks. Endpoints, under /api/{network}/ ({network} is
// --network.name, "preview" by default):
//
//	POST /api/{network}/faucet/drip      {"address":"0x..."}
//	GET  /api/{network}/faucet/status
//	GET  /api/{network}/chain-health
//
// A drip answers 200 once the pool accepted the transfer (the sequencer
// pre-confirms it within one pre-confirmation interval):
//
//	{"tx_hash":"0x...","amount_wei":"100000000000000000","to":"0x..."}
//
// with "to" in EIP-55 form. The request must be application/json, at most
// Config.MaxBody (1 KiB) long, and name a 0x-prefixed 20-byte address (an
// EIP-55 checksum, when mixed case, must be right); other fields are
// ignored. A drip with a captcha configured carries its token in the
// X-Captcha-Token header.
//
// The status endpoint reports, in snake_case:
//
//	enabled          whether drips are handed out (--faucet)
//	network          the path word
//	chain_id         decimal string
//	address          the faucet's account, EIP-55
//	balance_wei      its balance in the pending state, decimal string
//	amount_wei       one drip, decimal string
//	cooldown_secs    the wait between drips per address and per client
//	drips_last_hour  drips handed out in the last hour
//	captcha          {"provider","site_key"} for a page to render the
//	                 widget; absent without a captcha
//
// With the faucet off (--faucet=false) status still answers 200, with
// enabled:false, so that a page can say so; drips answer 503.
//
// chain-health answers 200 with {healthy, reason, detail, head,
// headAgeSecs, stuckSecs} (camelCase, as Base's vibenet's): headAgeSecs is
// the time since the head's timestamp, stuckSecs the time since the node
// saw the head number change. reason is "ok"; "halted" when the head is
// older than the node's /health limit (ten block times, at least 5 s);
// "starting" while a node that just started has not sealed its first block
// and is within that limit of its start; "production-off" with --block-time
// 0, healthy, since nothing is meant to move. It is served with the faucet
// off too, and for load balancers /health remains the one that answers 503.
//
// Every other answer is the spec's error status object (see
// internal/apistatus) with grpc-gateway's code for its HTTP status:
//
//	400 code 3   malformed body or address, or an address that cannot
//	             receive ether (a transfer of the drip's amount and gas
//	             to it fails as an eth_call on the pending state)
//	403 code 7   captcha missing or not accepted
//	404 code 5   unknown path under /api/{network}/
//	413 code 3   body over Config.MaxBody (the request, not a quota, is at fault)
//	415 code 3   content type other than application/json
//	429 code 8   cooldown; Retry-After says when, in whole seconds
//	501 code 12  wrong method, with Allow (as grpc-gateway and ../rest)
//	503 code 14  faucet off, faucet empty, pool refused the transfer,
//	             captcha provider unreachable, node shutting down
//
// The client is the connection's peer, or the client a proxy named in
// Config.TrustedProxies writes into X-Forwarded-For; a header from anyone
// else is ignored, so it can neither dodge nor spend another's cooldown.
// A cooldown starts only when a drip is accepted by the pool: a drip that
// fails, or is refused, spends none. Cooldowns live in a pebble database of the faucet's
// own, so they survive a restart.
package faucet

import (
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"math/big"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/pending"
)

// Backend is the node as the faucet uses it.
type Backend struct {
	// Pool takes the faucet's transfers.
	Pool Pool
	// Snapshots gives the pending state (balances, code, base fee) and the head.
	Snapshots *pending.Store
	// ChainID signs the transfers.
	ChainID *big.Int
	// Key is the faucet account's.
	Key *ecdsa.PrivateKey
	// StaleAfter is the head age beyond which the chain has halted (the
	// node's /health limit); 0 when block production is off.
	StaleAfter time.Duration
	// RPC runs an eth_call of each drip before it is sent (receives);
	// required unless Remote is set.
	RPC RPC
	// Remote, on a read replica, takes the drips to the sequencer's
	// faucet; Pool and RPC are then not needed, and this faucet keeps no
	// cooldowns.
	Remote Remote
}

// Faucet serves the faucet API. It is safe for concurrent use.
type Faucet struct {
	cfg     Config
	b       Backend
	log     *slog.Logger
	addr    common.Address // the faucet account
	health  *chainHealth
	prefix  string      // /api/{network}/, as routed (unescaped)
	empty   atomic.Bool // warned that the faucet cannot pay
	signer  *signer     // nil when off
	cools   *cooldowns  // nil when off
	captcha *captcha    // nil without a captcha
}

// New checks cfg and, with the faucet enabled, opens its cooldown database.
func New(cfg Config, b Backend, log *slog.Logger) (*Faucet, error) {
	cfg, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if b.Snapshots == nil || b.Key == nil || b.ChainID == nil || (b.Remote == nil && (b.Pool == nil || b.RPC == nil)) {
		return nil, errors.New("faucet: the backend lacks its pool, RPC server, snapshots, chain ID or key")
	}
	f := &Faucet{
		cfg: cfg, b: b, log: log, addr: crypto.PubkeyToAddress(b.Key.PublicKey),
		health: newChainHealth(b.Snapshots, b.StaleAfter, time.Now()),
		prefix: "/api/" + cfg.Network + "/",
	}
	if !cfg.Enabled {
		return f, nil
	}
	f.captcha = newCaptcha(cfg.Captcha)
	if b.Remote != nil {
		return f, nil
	}
	if f.cools, err = openCooldowns(cfg.Dir, cfg.Cooldown, time.Now, log); err != nil {
		return nil, err
	}
	f.signer = newSigner(b.Pool, b.Key, b.ChainID, cfg.Tip, cfg.ContractGas)
	return f, nil
}

// Mux is where the faucet's routes go: the node's HTTP server.
type Mux interface {
	Mount(prefix string, h fasthttp.RequestHandler)
}

// Mount registers the faucet's two path prefixes, not all of
// /api/{network}/, which other APIs (the explorer) may share.
func (f *Faucet) Mount(m Mux) {
	m.Mount(f.prefix+"faucet/", f.Handler)
	m.Mount(f.prefix+"chain-health", f.Handler)
}

// URL is the faucet's drip endpoint on base (scheme and host).
func (f *Faucet) URL(base string) string { return f.url(base, pathDrip) }

// HealthURL is the chain-health endpoint on base.
func (f *Faucet) HealthURL(base string) string { return f.url(base, pathHealth) }

func (f *Faucet) url(base, path string) string {
	return base + "/api/" + url.PathEscape(f.cfg.Network) + "/" + path
}

// Address is the account drips come from.
func (f *Faucet) Address() common.Address { return f.addr }

// Sealed notes a new head for chain-health; with Preconfirmed it makes
// the Faucet a sequencer.Listener.
func (f *Faucet) Sealed(_ *pending.Snapshot, block *types.Block) { f.health.sealed(block, time.Now()) }

// Preconfirmed implements sequencer.Listener; pre-confirmations do not
// move the head.
func (f *Faucet) Preconfirmed(*pending.Snapshot) {}

// Close closes the cooldown database; drips still arriving get 503. A nil
// Faucet closes as one that is off.
func (f *Faucet) Close() error {
	if f == nil || f.cools == nil {
		return nil
	}
	return f.cools.close()
}
