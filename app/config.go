package app

import (
	"crypto/ecdsa"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/explorer/etherscan"
	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/lease"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/node/txwait"
	"github.com/stocknode/stocknode/node/ws"
	"github.com/stocknode/stocknode/rest"
)

// Config is everything the node needs to start.
type Config struct {
	// DataDir holds the database (ignored with Dev).
	DataDir string
	// Dev keeps the chain in memory and starts it fresh.
	Dev bool
	// GenesisFile is a geth-format genesis.json; empty means the built-in
	// preview genesis.
	GenesisFile string
	// GCMode and StateHistory say which states the chain keeps (--gcmode,
	// --history.state; see chain.Config).
	GCMode       chain.GCMode
	StateHistory uint64
	// FaucetKey is the faucet's hex private key; empty derives a development key.
	FaucetKey string
	// Sequencer is the block and pre-confirmation rhythm.
	Sequencer sequencer.Config
	// TxPool tunes the pool.
	TxPool txpool.Config
	// HTTP is the front end; RPC the method set's limits; Calls the eth_call bound.
	HTTP  httpserver.Config
	RPC   rpc.Config
	Calls callbound.Config
	// TxWait bounds eth_sendRawTransactionSync's waiters (--rpc.txsync.max,
	// --rpc.txsync.per-client).
	TxWait txwait.Config
	// WS configures the WebSocket endpoint at /ws; WSDisabled turns it off
	// (the spec's main and test networks offer HTTP only).
	WS         ws.Config
	WSDisabled bool
	// Network names the node's own chain in the REST API's chains list
	// (--network.name); Registry lists the other chains there (--registry).
	Network  string
	Registry []rest.Chain
	// PreviewExamples issues the example stock tokens in the first block
	// of a new chain on the built-in preview genesis.
	PreviewExamples bool
	// ExplorerDisabled turns off the block explorer and its address index
	// (--explorer=false).
	ExplorerDisabled bool
	// ExplorerRenders and ExplorerRenderWait bound the pages rendered at
	// once and a page's wait for its turn (web.Config.Renders, RenderWait).
	ExplorerRenders    int
	ExplorerRenderWait time.Duration
	// ExplorerAPI bounds the Etherscan-compatible API's history requests
	// (etherscan.Config; its Peer is the front end's).
	ExplorerAPI etherscan.Config
	// Faucet configures the faucet API under /api/{Network}/ (its
	// Network and Dir are the node's); the zero Config has it off,
	// faucet.DefaultConfig() on.
	Faucet faucet.Config
	// SequencerLog configures the sequencer's log (its Dir and InMemory follow the
	// datadir and Dev); blocks are produced only with it.
	SequencerLog seqlog.Config
	// Follow makes the node a read replica of the sequencer whose log
	// Log.URLs reach (node/replica): it produces no blocks, replays the
	// log, and relays transactions and drips to the sequencer, waiting
	// RelayTimeout at most for its answer (0: relay.DefaultTimeout).
	Follow       bool
	RelayTimeout time.Duration
	// HA makes the node a sequencer candidate on Log.URLs: a standby
	// that follows the log as a replica does until it holds the leader
	// lease (Lease: its name, TTL and renewal), then the sequencer.
	HA    bool
	Lease lease.Config
	// NATS is how the node authenticates to Log.URLs: an nkey or
	// credentials file, TLS (--nats.nkey, --nats.creds, --nats.tls.*).
	NATS natsauth.Client
	// TrustedReplicas are the replicas (their names in the admitted
	// list, or their identities) whose word on a drip's client address
	// the faucet's cooldowns take (--faucet.trust-replicas); any other
	// replica's drips share one cooldown.
	TrustedReplicas []string
	// FDLimit is the process's file-descriptor limit (0: unknown). Unless
	// HTTP.MaxConns is set, connections are capped at what it leaves after
	// the database's handles and a reserve (connBudget).
	FDLimit int
}

// ChainConfig resolves which chain a datadir holds or gets: the given genesis
// file (checked against a datadir that already has a chain) or the built-in
// preview genesis (used only when the datadir is new).
func ChainConfig(dataDir string, dev bool, genesisFile string, faucet common.Address) (chain.Config, error) {
	cfg := chain.Config{DataDir: dataDir, InMemory: dev, StateHistory: chain.DefaultStateHistory}
	if genesisFile != "" {
		genesis, err := chain.LoadGenesis(genesisFile)
		if err != nil {
			return cfg, err
		}
		cfg.Genesis, cfg.CheckGenesis = genesis, true
		return cfg, nil
	}
	genesis, err := chain.PreviewGenesis(faucet)
	if err != nil {
		return cfg, err
	}
	cfg.Genesis = genesis
	cfg.Rules = chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}
	return cfg, nil
}

// DevAccounts lists the funded development accounts' keys.
func DevAccounts() ([]*ecdsa.PrivateKey, error) { return chain.DevKeys(chain.DevAccountCount) }
