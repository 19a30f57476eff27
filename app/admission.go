package app

import (
	"errors"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/txpool"
)

// relayForwarder is a replica's pool's way to the sequencer's
// (txpool.Forwarder over node/relay).
type relayForwarder struct{ c *relay.Client }

func (f relayForwarder) Send(tx *types.Transaction) error { return f.c.Send(tx) }

func (f relayForwarder) Submit(tx *types.Transaction) (txpool.Admission, error) {
	adm, err := f.c.Submit(tx)
	var blocked *relay.BlockedError
	if errors.As(err, &blocked) {
		return txpool.Admission{}, &txpool.OverdraftError{Err: errors.New(blocked.Text), Next: blocked.Next}
	}
	return txpool.Admission{Queued: adm.Queued, Next: adm.Next}, err
}

// relaySubmit answers a replica's Client.Submit on the sequencer.
func (n *Node) relaySubmit(_ string, tx *types.Transaction) (relay.Admission, error) {
	adm, err := n.pool.Submit(tx)
	var over *txpool.OverdraftError
	if errors.As(err, &over) {
		return relay.Admission{}, &relay.BlockedError{Text: over.Error(), Next: over.Next}
	}
	return relay.Admission{Queued: adm.Queued, Next: adm.Next}, err
}
