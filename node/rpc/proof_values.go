package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
)

// eth_getStorageValues({address: [slots]}, block): many slots of many
// accounts in one read of one state, as geth 1.17 answers it (an object of
// address to the 32-byte values, in the order asked). The proof-less
// sibling of eth_getProof, with the same cap on keys.

// slotRequest is one account's slots.
type slotRequest struct {
	addr  common.Address
	slots []common.Hash
}

// errCodeClientLimit is geth's code for a request over a client limit.
const errCodeClientLimit = -38026

func ethGetStorageValues(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	raw, err := r.required(0)
	if err != nil {
		return err
	}
	reqs, err := s.slotRequests(raw)
	if err != nil {
		return err
	}
	v, err := s.stateView(r, 1)
	if err != nil {
		return err
	}
	out := make(map[common.Address][]hexutil.Bytes, len(reqs))
	var readErr error
	if err := s.bounded(r, func(task *callbound.Task) {
		for _, req := range reqs {
			values := make([]hexutil.Bytes, len(req.slots))
			for i, slot := range req.slots {
				if err := task.Err(); err != nil {
					readErr = s.aborted(err)
					return
				}
				value, err := v.reader.Storage(req.addr, slot)
				if err != nil {
					readErr = fmt.Errorf("read slot %s of %s: %w", slot.Hex(), req.addr.Hex(), err)
					return
				}
				values[i] = value.Bytes()
			}
			out[req.addr] = values
		}
	}); err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	return r.writeJSON(out)
}

// slotRequests parses the request object: addresses as geth's
// common.Address reads them, slots as leniently as eth_getStorageAt's,
// at most MaxStorageKeys in all and at least one.
func (s *Server) slotRequests(raw []byte) ([]slotRequest, error) {
	it, err := codec.Object(raw)
	if err != nil {
		return nil, argError(0, errors.New("json: cannot unmarshal "+kindOf(raw)+" into Go value of type map[common.Address][]common.Hash"))
	}
	var reqs []slotRequest
	total := 0
	for it.Next() {
		addr, err := codec.ParseAddress(quoted(it.Key()))
		if err != nil {
			return nil, argError(0, err)
		}
		slots, err := codec.Array(it.Value())
		if err != nil {
			return nil, argError(0, fmt.Errorf("slots of %s: json: cannot unmarshal %s into Go value of type []common.Hash", addr.Hex(), kindOf(it.Value())))
		}
		req := slotRequest{addr: addr}
		for slots.Next() {
			if total++; s.cfg.MaxStorageKeys > 0 && total > s.cfg.MaxStorageKeys {
				return nil, &codec.Error{Code: errCodeClientLimit, Message: fmt.Sprintf("too many slots (max %d): --rpc.maxstoragekeys raises the cap", s.cfg.MaxStorageKeys)}
			}
			slot, err := storageKey(slots.Value())
			if err != nil {
				return nil, argError(0, fmt.Errorf("slot of %s: %w", addr.Hex(), err))
			}
			req.slots = append(req.slots, slot)
		}
		if err := slots.Err(); err != nil {
			return nil, argError(0, err)
		}
		reqs = append(reqs, req)
	}
	if err := it.Err(); err != nil {
		return nil, argError(0, err)
	}
	if total == 0 {
		return nil, &invalidParamsError{errors.New("empty request")}
	}
	return reqs, nil
}

// quoted puts an object key back between its quotes, as the codec's
// parsers take JSON strings.
func quoted(key []byte) []byte {
	out := make([]byte, 0, len(key)+2)
	out = append(out, '"')
	out = append(out, key...)
	return append(out, '"')
}
