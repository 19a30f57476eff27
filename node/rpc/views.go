package rpc

import (
	"time"

	"github.com/stocknode/stocknode/peer"
)

// View is the semantics a request is answered with. The node serves both on
// one port: every chain's at / (and /ws), Base's Flashblocks RPC at
// /preconf (and /preconf/ws), which a client opts into.
type View uint8

const (
	// Standard is every chain's, as geth, anvil and the execution-apis
	// define them: a receipt, a transaction's block fields, a block by hash
	// name sealed blocks only, so that a client that saw a receipt reads
	// its effects at latest. The pending tag still reads the pre-confirmed
	// state, as the spec asks.
	Standard View = iota
	// Preconf is Base's Flashblocks RPC (flashblocks.go): a pre-confirmed
	// transaction has its receipt and block fields, and the block being
	// built a hash, before it is sealed.
	Preconf
)

func (v View) String() string {
	if v == Preconf {
		return "preconf"
	}
	return "standard"
}

// ViewServer answers HTTP's JSON-RPC bodies in one view (httpserver.RPC).
type ViewServer struct {
	s    *Server
	view View
}

// In is s answering in view v.
func (s *Server) In(v View) *ViewServer { return &ViewServer{s: s, view: v} }

// Serve is HandleFrom in the server's view, without extra methods.
func (v *ViewServer) Serve(p *peer.Peer, body, dst []byte) ([]byte, time.Duration) {
	return v.s.HandleFrom(p, v.view, body, dst, nil)
}

// effective is the view a request is answered in: Config.PreconfirmedReceipts
// makes / answer as /preconf (an operator's choice for clients that cannot
// change their URL).
func (s *Server) effective(v View) View {
	if v == Standard && s.cfg.PreconfirmedReceipts {
		return Preconf
	}
	return v
}
