package app

import (
	"errors"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txwait"
	"github.com/stocknode/stocknode/node/ws"
)

// startAPI binds the HTTP listener (so a taken port fails the start) and
// builds the RPC server; serving starts in Run.
func (n *Node) startAPI() error {
	n.capConns()
	n.cfg.HTTP.Logger = n.logger
	n.cfg.Calls.Lend = n.producesNoBlocks
	n.calls = callbound.New(n.cfg.Calls)
	n.cfg.RPC.BlockTime = n.cfg.Sequencer.BlockTime // eth_simulateV1 spaces its blocks by it
	// A sender is shown the chain before its block for the receipt hold:
	// the store keeps those views as long, and a block's worth more.
	n.store.Retain(n.cfg.RPC.ReceiptHold + n.cfg.Sequencer.BlockTime)
	n.txwait = txwait.New(n.cfg.TxWait)
	backend := rpc.Backend{Chain: n.chain, Pool: n.pool, Snapshots: n.store, Calls: n.calls, TxWait: n.txwait}
	if n.relay != nil { // a replica: the sequencer knows what it has not seen
		backend.Known = n.relay.Known
	}
	n.rpc = rpc.New(n.cfg.RPC, backend, n.reg)
	n.http = httpserver.New(n.cfg.HTTP, n.rpc, n.health)
	n.http.HandleRPC("/preconf", n.rpc.In(rpc.Preconf))
	// The waiters first: their wake-up is the answer of
	// eth_sendRawTransactionSync. The RPC server then marks the sends the
	// block sealed, which its requests do themselves if it has not yet.
	listeners := sequencer.Listeners{n.txwait, n.rpc}
	if err := n.startServices(&listeners); err != nil {
		n.closeServices()
		return err
	}
	if !n.cfg.WSDisabled {
		n.cfg.WS.Peer = n.http.Peer
		n.hub = ws.New(n.cfg.WS, n.rpc, n.chain, n.logger)
		if n.sequencerLog != nil {
			n.hub.ResumeFlashblocksFrom(n.sequencerLog)
		}
		n.http.Handle("/ws", n.hub.Handler)
		n.http.Handle("/preconf/ws", n.hub.PreconfHandler)
		listeners = append(listeners, n.hub)
		if n.follower != nil {
			listeners = append(listeners, &preconfirmedTxs{hub: n.hub})
		}
	}
	n.listeners = listeners
	if n.follower != nil {
		n.replay.SetListener(listeners)
	} else {
		n.seq.SetListener(listeners)
	}
	if err := n.serveRelay(); err != nil {
		n.closeServices()
		return err
	}
	if err := n.http.Listen(); err != nil {
		n.closeServices()
		return err
	}
	n.registerGauges()
	return nil
}

// startServices starts what the port serves besides JSON-RPC: the REST
// API, the faucet and the explorer.
func (n *Node) startServices(listeners *sequencer.Listeners) error {
	if err := n.startREST(listeners); err != nil {
		return err
	}
	if err := n.startFaucet(listeners); err != nil {
		return err
	}
	return n.startExplorer(listeners)
}

// closeServices closes what startServices and startAPI opened.
func (n *Node) closeServices() error {
	n.rpc.Close()
	var errs []error
	if n.faucet != nil {
		errs = append(errs, n.faucet.Close())
	}
	if n.etherscan != nil {
		n.etherscan.Close()
	}
	if n.index != nil {
		errs = append(errs, n.index.Close())
	}
	return errors.Join(errs...)
}

// WSStats reports WebSocket connections, subscriptions and slow subscribers
// dropped (zeros with the endpoint off).
func (n *Node) WSStats() (conns, subs int64, slowDropped uint64) {
	if n.hub == nil {
		return 0, 0, 0
	}
	return n.hub.Stats()
}

// HTTPAddr is the address the JSON-RPC endpoint listens on.
func (n *Node) HTTPAddr() string { return n.http.Addr().String() }

// producesNoBlocks reports whether the node produces no blocks now: a
// replica, a standby, or a node started without blocks (--block-time 0).
// The slot the call bound keeps from heavy clients is for block production
// as much as for short calls, so such a node lends it to them while no
// short call waits (callbound.Config.Lend).
func (n *Node) producesNoBlocks() bool {
	return n.cfg.Sequencer.BlockTime == 0 || n.role() != roleSequencer
}
