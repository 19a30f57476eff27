package etherscan

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
)

// env is a small real chain: a sequencer sealing every 20 ms, the address
// index following it, and the API over both.
type env struct {
	*chaintest.Env
	t     *testing.T
	index *index.Index
	api   *API
}

// fakeTokens knows the example tokens, but for the last.
type fakeTokens map[common.Address]preview.Example

func (f fakeTokens) Token(addr common.Address) (string, string, uint8, bool) {
	e, ok := f[addr]
	return e.Name, e.Symbol, 18, ok
}

// newEnv starts a chain with its index; follow says whether the index
// follows the sequencer (otherwise it does not run at all).
func newEnv(t *testing.T, follow bool) *env {
	t.Helper()
	c := chaintest.New(t, chaintest.Config{BlockTime: 20 * time.Millisecond})
	x, err := index.Open(index.Config{InMemory: true}, c.Chain, chaintest.Quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	issuer := addrOf(chain.ExampleIssuerKey())
	tokens := fakeTokens{}
	for _, ex := range preview.Examples()[:2] {
		tokens[contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(ex))] = ex
	}
	e := &env{Env: c, t: t, index: x}
	e.api = e.newAPI(DefaultConfig(), tokens)
	if !follow {
		e.Run()
		return e
	}
	// The index runs to the end of the test, after the sequencer stops.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { x.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	e.Run(x)
	return e
}

// newAPI is an API on e's index with cfg's bounds, stopped at the test's end.
func (e *env) newAPI(cfg Config, tokens Tokens) *API {
	e.t.Helper()
	api, err := New(cfg, e.index, e.Store, e.Chain, tokens, chaintest.Quiet())
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(api.Close)
	return api
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// history sends a little of everything from the first development
// account (a): an ETH transfer, a contract creation, a failed creation,
// the example tokens minted to a and b, and token transfers of a known
// and of the unknown token to c. It then stops the chain and waits for
// the index.
func (e *env) history() {
	e.t.Helper()
	a, b, c := e.Addr(0), e.Addr(1), e.Addr(2)
	e.Send(0, &b, big.NewInt(12345), params.TxGas, nil)
	e.Send(0, nil, big.NewInt(0), 200_000, []byte{0x60, 0x01, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x01, 0x60, 0x00, 0xf3, 0x00})
	e.Send(0, nil, big.NewInt(0), 100_000, []byte{0x60, 0x00, 0x60, 0x00, 0xfd})
	issuer := chain.ExampleIssuerKey()
	examples, err := preview.Transactions(e.ChainID, issuer, []common.Address{a, b})
	if err != nil {
		e.t.Fatal(err)
	}
	e.Add(examples...)
	e.Settle()
	for _, ex := range []preview.Example{preview.Examples()[0], preview.Examples()[2]} {
		token := contracts.B20Address(contracts.VariantAsset, addrOf(issuer), preview.Salt(ex))
		data, err := contracts.MustLoad(contracts.B20Asset).ABI.Pack("transfer", c, big.NewInt(77))
		if err != nil {
			e.t.Fatal(err)
		}
		e.Send(0, &token, big.NewInt(0), 300_000, data)
	}
	e.Settle()
	e.Stop()
	e.WaitFor("the index", func(*pending.Snapshot) bool {
		indexed, head := e.index.Progress()
		return indexed == head
	})
}

// get runs a GET of /api?query through the handler.
func (e *env) get(query string) (int, []byte) {
	ctx := e.serve(e.api, query)
	return ctx.Response.StatusCode(), append([]byte(nil), ctx.Response.Body()...)
}

// serve runs a GET of /api?query through api's handler.
func (e *env) serve(api *API, query string) *fasthttp.RequestCtx {
	ctx := new(fasthttp.RequestCtx)
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI(Path + "?" + query)
	api.Handler(ctx)
	return ctx
}

// answer is an answer decoded.
type answer struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Result  json.RawMessage `json:"result"`
}

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// wantTxs is txlist's answer for addr computed from the chain, oldest
// first.
func (e *env) wantTxs(addr common.Address) []map[string]string {
	bc := e.Chain.BlockChain()
	head := e.Chain.Head().Number.Uint64()
	signer := types.LatestSigner(e.Chain.Config())
	var out []map[string]string
	for n := uint64(1); n <= head; n++ {
		block := bc.GetBlockByNumber(n)
		receipts := bc.GetReceiptsByHash(block.Hash())
		for i, tx := range block.Transactions() {
			from, _ := types.Sender(signer, tx)
			r := receipts[i]
			to, contract := "", lower(r.ContractAddress)
			if tx.To() != nil {
				to, contract = lower(*tx.To()), ""
			}
			if from != addr && to != lower(addr) && contract != lower(addr) {
				continue
			}
			isError, status := "0", "1"
			if r.Status == 0 {
				isError, status = "1", "0"
			}
			out = append(out, map[string]string{
				"blockNumber": dec(n), "timeStamp": dec(block.Time()), "hash": tx.Hash().Hex(), "nonce": dec(tx.Nonce()),
				"blockHash": block.Hash().Hex(), "transactionIndex": dec(uint64(i)), "from": lower(from), "to": to,
				"value": tx.Value().String(), "gas": dec(tx.Gas()), "gasPrice": r.EffectiveGasPrice.String(),
				"isError": isError, "txreceipt_status": status, "input": hexutil.Encode(tx.Data()), "contractAddress": contract,
				"cumulativeGasUsed": dec(r.CumulativeGasUsed), "gasUsed": dec(r.GasUsed), "confirmations": dec(head - n),
				"methodId": hexutil.Encode(tx.Data()[:min(4, len(tx.Data()))]), "functionName": "",
			})
		}
	}
	return out
}

// wantTransfers is tokentx's answer for addr computed from the chain,
// oldest first.
func (e *env) wantTransfers(addr common.Address, tokens Tokens) []map[string]string {
	bc := e.Chain.BlockChain()
	head := e.Chain.Head().Number.Uint64()
	topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	var out []map[string]string
	for n := uint64(1); n <= head; n++ {
		block := bc.GetBlockByNumber(n)
		receipts := bc.GetReceiptsByHash(block.Hash())
		for i, tx := range block.Transactions() {
			r := receipts[i]
			for _, l := range r.Logs {
				if len(l.Topics) != 3 || l.Topics[0] != topic || len(l.Data) != 32 {
					continue
				}
				from, to := common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:])
				if from != addr && to != addr {
					continue
				}
				name, symbol, decimals, ok := tokens.Token(l.Address)
				decimalText := ""
				if ok {
					decimalText = dec(uint64(decimals))
				}
				out = append(out, map[string]string{
					"blockNumber": dec(n), "timeStamp": dec(block.Time()), "hash": tx.Hash().Hex(), "nonce": dec(tx.Nonce()),
					"blockHash": block.Hash().Hex(), "from": lower(from), "contractAddress": lower(l.Address), "to": lower(to),
					"value": new(big.Int).SetBytes(l.Data).String(), "tokenName": name, "tokenSymbol": symbol,
					"tokenDecimal": decimalText, "transactionIndex": dec(uint64(i)), "gas": dec(tx.Gas()),
					"gasPrice": r.EffectiveGasPrice.String(), "gasUsed": dec(r.GasUsed),
					"cumulativeGasUsed": dec(r.CumulativeGasUsed), "input": "deprecated", "confirmations": dec(head - n),
				})
			}
		}
	}
	return out
}

func dec(v uint64) string { return new(big.Int).SetUint64(v).String() }
