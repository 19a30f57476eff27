package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nats-io/nats.go"
)

// A transaction request that carries headerAdmission asks the sequencer
// whether the transaction can run now, beside pooling it: its reply is
// then
//
//	0, queued (0 or 1), next nonce (8 bytes, big-endian)  accepted
//	1, text                                               refused
//	2, next nonce (8 bytes), text                         refused: it cannot run at its position
//
// A sequencer that predates the header answers 0 alone, which reads as an
// Admission it could not give: runnable, next nonce unknown (0). Only a
// request with the header gets status 2, so older replicas never see it.
const headerAdmission = "Stocknode-Admission"

const statusBlocked byte = 2

// Admission is the sequencer's word on a transaction it accepted
// (txpool.Admission): whether it waits for an earlier nonce, and its
// sender's next one.
type Admission struct {
	Queued bool
	Next   uint64
}

// BlockedError is the sequencer's refusal of a transaction that cannot
// run at its position (txpool.OverdraftError), worded as the sequencer
// worded it, with the sender's next nonce.
type BlockedError struct {
	Text string
	Next uint64
}

func (e *BlockedError) Error() string { return e.Text }

// Submit hands tx to the sequencer's pool, as Send, and returns its word
// on whether tx can run now. A refusal at its position is a
// *BlockedError; any other, as Send's.
func (c *Client) Submit(tx *types.Transaction) (Admission, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return Admission{}, err
	}
	m, err := c.message("tx", raw)
	if err != nil {
		return Admission{}, err
	}
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	m.Header.Set(headerAdmission, "1")
	status, body, retried, err := c.send(context.Background(), m, true)
	if c.takenBefore(retried, err, tx.Hash()) {
		return Admission{}, nil // its admission went with the attempt that was taken
	}
	if err != nil {
		return Admission{}, err
	}
	return decodeAdmission(status, body, tx)
}

func decodeAdmission(status byte, body []byte, tx *types.Transaction) (Admission, error) {
	switch {
	case status == statusOK && len(body) == 0:
		return Admission{}, nil // a sequencer without the header's support
	case status == statusOK && len(body) == 9:
		return Admission{Queued: body[0] == 1, Next: binary.BigEndian.Uint64(body[1:])}, nil
	case status == statusBlocked && len(body) >= 8:
		return Admission{}, &BlockedError{Text: string(body[8:]), Next: binary.BigEndian.Uint64(body[:8])}
	}
	return Admission{}, fmt.Errorf("unexpected reply to transaction %s", tx.Hash())
}

// submitReply is the sequencer's reply to a request with headerAdmission.
func submitReply(adm Admission, err error) []byte {
	var blocked *BlockedError
	switch {
	case errors.As(err, &blocked):
		out := binary.BigEndian.AppendUint64([]byte{statusBlocked}, blocked.Next)
		return append(out, blocked.Text...)
	case err != nil:
		return refused(err)
	}
	queued := byte(0)
	if adm.Queued {
		queued = 1
	}
	return binary.BigEndian.AppendUint64([]byte{statusOK, queued}, adm.Next)
}
