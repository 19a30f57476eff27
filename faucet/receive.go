package faucet

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/codec"
)

// RPC answers JSON-RPC bodies in-process: the node's server (node/rpc),
// whose eth_call runs under the node's call bound like a client's.
type RPC interface {
	Handle(body, dst []byte) []byte
}

// receives asks the node for t as an eth_call on the pending state: from
// the faucet, the drip's amount and gas. An address that cannot receive
// ether (a precompile, whose work costs more than a transfer's gas; a
// contract without a payable receive or fallback function) would be sent
// a transaction that fails, which costs the faucet its gas and the client
// its cooldown; it is refused with 400 instead.
func (f *Faucet) receives(t transfer) error {
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":%q,"to":%q,"value":%q,"gas":%q},"pending"]}`,
		f.addr.Hex(), t.to.Hex(), hexutil.EncodeBig(t.amount), hexutil.EncodeUint64(t.gas))
	var resp struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(f.b.RPC.Handle(body, nil), &resp); err != nil {
		return unavailable("the drip could not be checked (%v); retry in a moment", err)
	}
	switch e := resp.Error; {
	case e == nil:
		return nil
	// -32000 is the call's own failure; geth's words for a message that
	// could not even be applied begin with "err: " (funds the faucet
	// lacks, which plan has checked).
	case e.Code == codec.CodeServer && !strings.HasPrefix(e.Message, "err: "):
		return badRequest("address: %s cannot receive ether: a transfer of %s to it fails (%s); name an account that can",
			t.to.Hex(), FormatEther(t.amount), e.Message)
	default: // the node is busy, shutting down, ...
		return unavailable("the drip could not be checked (%s); retry in a moment", e.Message)
	}
}
