package rpc

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
)

// geth's txpool namespace, in its shapes: status counts, and the content
// as {"pending": {sender: {nonce: tx}}, "queued": {...}} with senders
// checksummed and nonces in decimal. Pending are the pool's executable
// transactions, pre-confirmed ones included until their block is sealed
// (as geth lists the transactions of its miner's pending block); queued
// wait behind a nonce gap.
//
// A full pool lists as tens of megabytes. A listing is refused with -32003
// before it is built when the fewest bytes it can take (leastSize) pass
// the response's room (--rpc.batch-response-max-size); one that may fit is
// written as it is read, and stops with -32003 "response too large" if it
// passes the room after all.

func txpoolStatus(s *Server, r *request) error {
	if err := r.maxParams(0); err != nil {
		return err
	}
	pending, queued := s.b.Pool.Stats()
	r.out = append(r.out, `{"pending":`...)
	r.out = codec.AppendUint64(r.out, uint64(pending))
	r.out = append(r.out, `,"queued":`...)
	r.out = codec.AppendUint64(r.out, uint64(queued))
	r.out = append(r.out, '}')
	return nil
}

func txpoolContent(s *Server, r *request) error {
	if err := r.maxParams(0); err != nil {
		return err
	}
	pending, queued := s.b.Pool.Content()
	return s.writePool(r, pending, queued, txEncoding{encode: s.txObject(r), least: leastTxObject},
		"txpool_contentFrom for one sender's transactions, txpool_inspect for a line on each")
}

func txpoolInspect(s *Server, r *request) error {
	if err := r.maxParams(0); err != nil {
		return err
	}
	pending, queued := s.b.Pool.Content()
	return s.writePool(r, pending, queued, txEncoding{encode: inspectLine, least: leastInspectLine},
		"txpool_contentFrom for one sender's transactions")
}

func txpoolContentFrom(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	addr, err := r.address(0)
	if err != nil {
		return err
	}
	pending, queued := s.b.Pool.ContentFrom(addr)
	enc := txEncoding{encode: s.txObject(r), least: leastTxObject}
	least := listingFraming + leastByNonce(enc, pending) + leastByNonce(enc, queued)
	if err := checkRoom(r, least, len(pending)+len(queued), "txpool_inspect for a line on each"); err != nil {
		return err
	}
	w := poolWriter{r: r, mark: len(r.out), encode: enc.encode}
	r.out = append(r.out, `{"pending":`...)
	if err := w.byNonce(pending); err != nil {
		return err
	}
	r.out = append(r.out, `,"queued":`...)
	if err := w.byNonce(queued); err != nil {
		return err
	}
	r.out = append(r.out, '}')
	return nil
}

// txEncoder appends one pooled transaction's JSON value.
type txEncoder func(dst []byte, tx *types.Transaction) ([]byte, error)

// txObject encodes a pooled transaction as eth_getTransactionByHash does
// (no block fields), its sender recovered with the head's signer.
func (s *Server) txObject(r *request) txEncoder {
	head, config := r.snap.HeadHeader, s.b.Chain.Config()
	return func(dst []byte, tx *types.Transaction) ([]byte, error) {
		b, err := json.Marshal(NewRPCTransaction(tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, config))
		if err != nil {
			return dst, fmt.Errorf("encode transaction %s: %w", tx.Hash().Hex(), err)
		}
		return append(dst, b...), nil
	}
}

// inspectLine is txpool_inspect's summary of a transaction, in geth's words.
func inspectLine(dst []byte, tx *types.Transaction) ([]byte, error) {
	var line string
	if to := tx.To(); to != nil {
		line = fmt.Sprintf("%s: %v wei + %v gas × %v wei", to.Hex(), tx.Value(), tx.Gas(), tx.GasPrice())
	} else {
		line = fmt.Sprintf("contract creation: %v wei + %v gas × %v wei", tx.Value(), tx.Gas(), tx.GasPrice())
	}
	return codec.AppendString(dst, line), nil
}

// writePool writes the listing of pending and queued with enc, or refuses
// it when it cannot fit; instead names the methods that answer less.
func (s *Server) writePool(r *request, pending, queued map[common.Address][]*types.Transaction, enc txEncoding, instead string) error {
	least := listingFraming + leastBySender(enc, pending) + leastBySender(enc, queued)
	if err := checkRoom(r, least, countTxs(pending, queued), instead); err != nil {
		return err
	}
	w := poolWriter{r: r, mark: len(r.out), encode: enc.encode}
	r.out = append(r.out, `{"pending":`...)
	if err := w.bySender(pending); err != nil {
		return err
	}
	r.out = append(r.out, `,"queued":`...)
	if err := w.bySender(queued); err != nil {
		return err
	}
	r.out = append(r.out, '}')
	return nil
}

// poolWriter writes pool listings into a response, within its room.
type poolWriter struct {
	r      *request
	mark   int // where the result starts in r.out
	encode txEncoder
}

// bySender writes {sender: {nonce: tx}}, senders in the order of their
// checksummed spelling (encoding/json's order of map keys).
func (w *poolWriter) bySender(txs map[common.Address][]*types.Transaction) error {
	type sender struct {
		key string
		txs []*types.Transaction
	}
	senders := make([]sender, 0, len(txs))
	for addr, list := range txs {
		senders = append(senders, sender{addr.Hex(), list})
	}
	slices.SortFunc(senders, func(a, b sender) int { return cmp.Compare(a.key, b.key) })
	r := w.r
	r.out = append(r.out, '{')
	for i, s := range senders {
		if i > 0 {
			r.out = append(r.out, ',')
		}
		r.out = codec.AppendString(r.out, s.key)
		r.out = append(r.out, ':')
		if err := w.byNonce(s.txs); err != nil {
			return err
		}
	}
	r.out = append(r.out, '}')
	return nil
}

// byNonce writes {nonce: tx} for one sender's transactions, in nonce order.
func (w *poolWriter) byNonce(txs []*types.Transaction) error {
	r := w.r
	r.out = append(r.out, '{')
	for i, tx := range txs {
		if i > 0 {
			r.out = append(r.out, ',')
		}
		r.out = append(r.out, '"')
		r.out = strconv.AppendUint(r.out, tx.Nonce(), 10)
		r.out = append(r.out, `":`...)
		var err error
		if r.out, err = w.encode(r.out, tx); err != nil {
			return err
		}
		if len(r.out)-w.mark > r.room {
			return errResponseTooLarge
		}
	}
	r.out = append(r.out, '}')
	return nil
}
