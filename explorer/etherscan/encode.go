package etherscan

import (
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/explorer/index"
)

// The usual size of an answer's entry (an input adds twice its length to
// a transaction's), so that an answer's buffer is allocated once.
const (
	txSize       = 800
	transferSize = 900
)

// appendHead appends an answer's envelope up to its result.
func appendHead(dst []byte, status, message string) []byte {
	dst = append(dst, `{"status":"`...)
	dst = append(dst, status...)
	dst = append(dst, `","message":`...)
	dst = codec.AppendString(dst, message)
	return append(dst, `,"result":`...)
}

// writeError answers Etherscan's error envelope: status 0, NOTOK, the
// message as the result, HTTP 200 as Etherscan does.
func writeError(ctx *fasthttp.RequestCtx, msg string) {
	out := codec.AppendString(appendHead(nil, "0", "NOTOK"), msg)
	write(ctx, append(out, '}'))
}

// noneAnswer is Etherscan's answer to an empty history.
func noneAnswer() []byte { return append(appendHead(nil, "0", msgNoTxs), "[]}"...) }

func write(ctx *fasthttp.RequestCtx, body []byte) {
	// Every answer changes with the next block (confirmations, balances).
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.SetContentType("application/json")
	ctx.Response.SetBodyRaw(body)
}

// object appends a JSON object whose values are all strings, as
// Etherscan's are.
type object struct {
	b    []byte
	open bool
}

func (o *object) key(k string) {
	if o.open {
		o.b = append(o.b, ',')
	} else {
		o.b, o.open = append(o.b, '{'), true
	}
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, `":`...)
}

func (o *object) uint(k string, v uint64) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = strconv.AppendUint(o.b, v, 10)
	o.b = append(o.b, '"')
}

func (o *object) big(k string, v *big.Int) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = v.Append(o.b, 10)
	o.b = append(o.b, '"')
}

func (o *object) str(k, v string) {
	o.key(k)
	o.b = codec.AppendString(o.b, v)
}

func (o *object) data(k string, v []byte) {
	o.key(k)
	o.b = codec.AppendBytes(o.b, v)
}

func (o *object) addr(k string, a common.Address) {
	o.key(k)
	o.b = codec.AppendAddress(o.b, a)
}

func (o *object) hash(k string, h common.Hash) {
	o.key(k)
	o.b = codec.AppendHash(o.b, h)
}

// flag is "1" when v, else "0".
func (o *object) flag(k string, v bool) {
	o.key(k)
	if v {
		o.b = append(o.b, `"1"`...)
	} else {
		o.b = append(o.b, `"0"`...)
	}
}

func (o *object) end() []byte { return append(o.b, '}') }

// confirmations counts the blocks on top of block, as Etherscan does: a
// transaction in the head has none.
func confirmations(head, block uint64) uint64 {
	if head < block {
		return 0
	}
	return head - block
}

// blockHashes remembers the hash of the block last asked for: a page's
// entries come block by block.
type blockHashes struct {
	x      *index.Index
	number uint64
	hash   common.Hash
	ok     bool
}

func (h *blockHashes) of(number uint64) (common.Hash, error) {
	if h.ok && h.number == number {
		return h.hash, nil
	}
	hash, err := h.x.BlockHash(number)
	if err != nil {
		return common.Hash{}, err
	}
	h.number, h.hash, h.ok = number, hash, true
	return hash, nil
}

// appendTxs appends txs as txlist's result entries.
func (a *API) appendTxs(dst []byte, txs []index.Tx, head uint64) ([]byte, error) {
	hashes := blockHashes{x: a.index}
	for i := range txs {
		t := &txs[i]
		blockHash, err := hashes.of(t.Block)
		if err != nil {
			return nil, err
		}
		var input []byte
		if t.InputLen > 0 {
			if input, err = a.index.Input(t.Block, t.Index); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendTx(dst, t, blockHash, input, head)
	}
	return dst, nil
}

func appendTx(dst []byte, t *index.Tx, blockHash common.Hash, input []byte, head uint64) []byte {
	o := object{b: dst}
	o.uint("blockNumber", t.Block)
	o.uint("timeStamp", t.Time)
	o.hash("hash", t.Hash)
	o.uint("nonce", t.Nonce)
	o.hash("blockHash", blockHash)
	o.uint("transactionIndex", uint64(t.Index))
	o.addr("from", t.From)
	if t.To != nil {
		o.addr("to", *t.To)
	} else {
		o.str("to", "")
	}
	o.big("value", t.Value)
	o.uint("gas", t.Gas)
	o.big("gasPrice", t.GasPrice)
	o.flag("isError", t.Status == 0)
	o.flag("txreceipt_status", t.Status == 1)
	o.data("input", input)
	if t.To == nil {
		o.addr("contractAddress", t.Created)
	} else {
		o.str("contractAddress", "")
	}
	o.uint("cumulativeGasUsed", t.CumulativeGasUsed)
	o.uint("gasUsed", t.GasUsed)
	o.uint("confirmations", confirmations(head, t.Block))
	o.data("methodId", t.Selector[:min(4, t.InputLen)])
	o.str("functionName", "") // the node knows no contract's ABI
	return o.end()
}

// token is what a page says of one token.
type token struct {
	name, symbol, decimals string
}

// appendTransfers appends trs as tokentx's result entries.
func (a *API) appendTransfers(dst []byte, trs []index.Transfer, head uint64) ([]byte, error) {
	hashes := blockHashes{x: a.index}
	tokens := map[common.Address]token{}
	for i := range trs {
		t := &trs[i]
		blockHash, err := hashes.of(t.Block)
		if err != nil {
			return nil, err
		}
		tok, ok := tokens[t.Token]
		if !ok {
			tok = a.token(t.Token)
			tokens[t.Token] = tok
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendTransfer(dst, t, blockHash, tok, head)
	}
	return dst, nil
}

// token names addr; an unknown token has empty strings, decimals too.
func (a *API) token(addr common.Address) token {
	name, symbol, decimals, ok := a.tokens.Token(addr)
	if !ok {
		return token{}
	}
	return token{name: name, symbol: symbol, decimals: strconv.Itoa(int(decimals))}
}

func appendTransfer(dst []byte, t *index.Transfer, blockHash common.Hash, tok token, head uint64) []byte {
	o := object{b: dst}
	o.uint("blockNumber", t.Block)
	o.uint("timeStamp", t.Time)
	o.hash("hash", t.TxHash)
	o.uint("nonce", t.Nonce)
	o.hash("blockHash", blockHash)
	o.addr("from", t.From)
	o.addr("contractAddress", t.Token)
	o.addr("to", t.To)
	o.big("value", t.Value)
	o.str("tokenName", tok.name)
	o.str("tokenSymbol", tok.symbol)
	o.str("tokenDecimal", tok.decimals)
	o.uint("transactionIndex", uint64(t.TxIndex))
	o.uint("gas", t.Gas)
	o.big("gasPrice", t.GasPrice)
	o.uint("gasUsed", t.GasUsed)
	o.uint("cumulativeGasUsed", t.CumulativeGasUsed)
	o.str("input", "deprecated") // as Etherscan answers
	o.uint("confirmations", confirmations(head, t.Block))
	return o.end()
}
