package rpc

import (
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"

	"github.com/stocknode/stocknode/codec"
)

// ethBlobBaseFee answers, as geth does, the blob base fee of the head block
// from its excess blob gas under the blob schedule of its fork (null before
// Cancun). This chain takes no blob transactions, so its excess blob gas
// stays zero and the fee at its minimum, 1 wei; an imported chain's head
// may carry more.
func ethBlobBaseFee(s *Server, r *request) error {
	if err := r.maxParams(0); err != nil {
		return err
	}
	head := r.snap.HeadHeader
	if head.ExcessBlobGas == nil {
		return nil // null
	}
	r.out = codec.AppendBig(r.out, eip4844.CalcBlobFee(s.b.Chain.Config(), head))
	return nil
}
