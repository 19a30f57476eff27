package app

import (
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/seqlog"
)

// fdReserve is what the connection budget leaves of the file-descriptor
// limit besides the databases' handles (chain, address index, faucet,
// the sequencer's log): the listener, log files, the admin
// listener, and the descriptors go-ethereum and the runtime open.
const fdReserve = 128

// connBudget is how many connections fit in fdLimit descriptors.
func connBudget(fdLimit int, onDisk bool) int {
	reserve := fdReserve
	if onDisk {
		reserve += chain.DatabaseHandles + index.DatabaseHandles + faucet.DatabaseHandles + seqlog.FileHandles
	}
	if fdLimit-reserve < fdLimit/2 {
		return fdLimit / 2 // a small limit: still leave half for the rest
	}
	return fdLimit - reserve
}

// capConns derives the connection caps from the descriptor limit where the
// configuration does not set them: with more connections than descriptors,
// accept fails (EMFILE) and so does everything else that opens a file.
func (n *Node) capConns() {
	budget := 0
	if n.cfg.FDLimit > 0 {
		budget = connBudget(n.cfg.FDLimit, !n.cfg.Dev)
	}
	if n.cfg.HTTP.MaxConns == 0 {
		n.cfg.HTTP.MaxConns = budget
	} else if budget > 0 && n.cfg.HTTP.MaxConns > budget {
		n.logger.Warn("--http.maxconns exceeds what the file-descriptor limit leaves; past it, accepting backs off until connections close",
			"maxconns", n.cfg.HTTP.MaxConns, "fdLimit", n.cfg.FDLimit, "budget", budget)
	}
	if all := n.cfg.HTTP.MaxConns; all > 0 && n.cfg.WS.MaxConns > all {
		n.cfg.WS.MaxConns = all
	}
}
