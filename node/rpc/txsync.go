package rpc

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/node/txwait"
)

// eth_sendRawTransactionSync (EIP-7966; geth 1.16.6+, reth, Base) sends a
// transaction as eth_sendRawTransaction does and answers with its receipt:
// the sealed one in the Standard view, the pre-confirmed one in the
// Preconf view, each exactly what eth_getTransactionReceipt answers there
// at that moment. The request waits in a txwait.Registry that the
// sequencer's listeners wake (a replica's: its own replay of the log),
// never polling.

// Error codes of EIP-7966.
const (
	codeTxSyncTimeout  = 4 // pooled, but not processed within the wait
	codeTxSyncNotReady = 5 // it cannot run now: a nonce gap, or no funds at its position
)

// errTxSyncOff answers on a server built without a registry.
var errTxSyncOff = errors.New("eth_sendRawTransactionSync is not available on this node")

func ethSendRawTransactionSync(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	tx, err := s.rawTxArg(r)
	if err != nil {
		return err
	}
	if s.b.TxWait == nil {
		return errTxSyncOff
	}
	until := txwait.Sealed
	if r.view == Preconf {
		until = txwait.Preconfirmed
	}
	// Registered before the transaction is sent, so that its
	// pre-confirmation cannot come first; a client over its bound has
	// sent nothing.
	w, err := s.b.TxWait.Register(tx.Hash(), r.clientKey(), until)
	if err != nil {
		return err
	}
	defer w.Release()
	adm, err := s.b.Pool.Submit(tx)
	if err != nil {
		return notReadyOr(tx, err)
	}
	if adm.Queued {
		return notReady(tx, adm.Next, fmt.Sprintf("The transaction was added to the transaction pool but cannot be processed yet: its nonce %d leaves a gap after the sender's next nonce %d; send the missing transactions first", tx.Nonce(), adm.Next))
	}
	return s.awaitReceipt(r, w, tx.Hash(), s.syncTimeout(r.arg(1)))
}

// awaitReceipt waits up to timeout (and no later than the request's
// deadline) for the transaction and writes its receipt.
func (s *Server) awaitReceipt(r *request, w *txwait.Waiter, hash common.Hash, timeout time.Duration) error {
	if !r.deadline.IsZero() {
		timeout = min(timeout, time.Until(r.deadline))
	}
	var p txwait.Peer
	if r.peer != nil {
		p = r.peer
	}
	snap, err := w.Wait(timeout, p)
	switch {
	case errors.Is(err, txwait.ErrTimeout):
		return &codec.Error{Code: codeTxSyncTimeout, Data: quotedHash(hash),
			Message: fmt.Sprintf("The transaction was added to the transaction pool but wasn't processed in %v", timeout.Round(time.Millisecond))}
	case errors.Is(err, txwait.ErrClosed):
		return &codec.Error{Code: codec.CodeServer, Data: quotedHash(hash),
			Message: "the node is shutting down: the transaction was pooled and may still be included; look its hash up"}
	case err != nil:
		return err
	}
	r.snap, r.current = snap, snap
	found, err := s.writeReceipt(r, hash)
	if err == nil && !found {
		err = fmt.Errorf("transaction %s was included, but its receipt is not found", hash)
	}
	return err
}

// notReadyOr answers a refusal at the transaction's position (a
// txpool.OverdraftError) with code 5, any other refusal as
// eth_sendRawTransaction does.
func notReadyOr(tx *types.Transaction, err error) error {
	var over *txpool.OverdraftError
	if !errors.As(err, &over) {
		return err
	}
	return notReady(tx, over.Next, "The transaction cannot be processed at its position: "+over.Error()+" (its sender's pooled transactions before it take the funds it needs)")
}

// notReady is code 5, with the transaction's hash and the nonce the
// sender's next transaction must have.
func notReady(tx *types.Transaction, next uint64, msg string) error {
	data := append([]byte(`{"transactionHash":`), quotedHash(tx.Hash())...)
	data = append(data, `,"expectedNonce":`...)
	data = append(codec.AppendUint64(data, next), '}')
	return &codec.Error{Code: codeTxSyncNotReady, Message: msg, Data: data}
}

func quotedHash(h common.Hash) []byte { return codec.AppendHash(nil, h) }

// syncTimeout is the wait raw asks for in milliseconds, a JSON number
// (ethclient) or a hex quantity (viem): the default when it is absent or
// not a positive integer (EIP-7966: an invalid timeout falls back to the
// default), at most the maximum.
func (s *Server) syncTimeout(raw []byte) time.Duration {
	def, limit := s.cfg.TxSyncDefaultTimeout, s.cfg.TxSyncMaxTimeout
	ms, ok := parseMillis(raw)
	switch {
	case !ok:
		return def
	case ms >= uint64(limit/time.Millisecond):
		return limit
	}
	return time.Duration(ms) * time.Millisecond
}

// parseMillis parses a positive integer; one too large for 64 bits reads
// as the largest.
func parseMillis(raw []byte) (uint64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var (
		ms  uint64
		err error
	)
	if raw[0] == '"' {
		ms, err = codec.ParseUint64(raw)
		if errors.Is(err, hexutil.ErrUint64Range) {
			return math.MaxUint64, true
		}
	} else {
		ms, err = parseDecimal(raw)
	}
	return ms, err == nil && ms > 0
}

// parseDecimal takes digits only: no sign, fraction or exponent.
func parseDecimal(raw []byte) (uint64, error) {
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, errors.New("not an integer")
		}
	}
	v, err := strconv.ParseUint(string(raw), 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return math.MaxUint64, nil
	}
	return v, err
}

// clientKey is the key per-client limits count the request against; local
// callers share the zero address.
func (o *origin) clientKey() netip.Addr {
	if o.peer == nil {
		return netip.Addr{}
	}
	return o.peer.Key()
}
