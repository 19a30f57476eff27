package etherscan

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
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
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// env is a small real chain: a sequencer sealing every 20 ms, the address
// index following it, and the API over both.
type env struct {
	t      *testing.T
	chain  *chain.Chain
	pool   *txpool.Pool
	store  *pending.Store
	index  *index.Index
	api    *API
	keys   []*ecdsa.PrivateKey
	nonces map[common.Address]uint64
	stop   func()
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
	genesis, err := chain.PreviewGenesis(common.Address{0xfa})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	pool, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	x, err := index.Open(index.Config{InMemory: true}, c, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	keys, err := chain.DevKeys(chain.DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, chain: c, pool: pool, store: new(pending.Store), index: x, keys: keys, nonces: map[common.Address]uint64{}}
	issuer := addrOf(chain.ExampleIssuerKey())
	tokens := fakeTokens{}
	for _, ex := range preview.Examples()[:2] {
		tokens[contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(ex))] = ex
	}
	e.api = New(x, e.store, c, tokens, quietLog())
	seq, err := sequencer.New(sequencer.Config{BlockTime: 20 * time.Millisecond, PreconfInterval: 20 * time.Millisecond,
		GasCeil: chain.PreviewGasLimit}, c, pool, e.store, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if follow {
		// The index runs to the end of the test, after stop.
		seq.SetListener(x)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { x.Run(ctx) })
		t.Cleanup(func() {
			cancel()
			wg.Wait()
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := seq.Run(ctx); err != nil {
			t.Errorf("sequencer: %v", err)
		}
	})
	e.stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
	})
	t.Cleanup(e.stop)
	return e
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func (e *env) send(key *ecdsa.PrivateKey, to *common.Address, value int64, gas uint64, data []byte) *types.Transaction {
	e.t.Helper()
	from := addrOf(key)
	tx, err := types.SignNewTx(key, types.LatestSigner(e.chain.Config()), &types.DynamicFeeTx{
		ChainID: e.chain.Config().ChainID, Nonce: e.nonces[from], GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: gas, To: to, Value: big.NewInt(value), Data: data,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.pool.Add(tx); err != nil {
		e.t.Fatal(err)
	}
	e.nonces[from]++
	return tx
}

// waitFor polls until cond holds.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("no %s in 30 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settle waits until every transaction sent is sealed.
func (e *env) settle() {
	e.t.Helper()
	e.waitFor("inclusion", func() bool {
		snap := e.store.Load()
		if snap == nil {
			return false
		}
		for addr, nonce := range e.nonces {
			acct, err := snap.LatestReader().Account(addr)
			if err != nil || acct == nil || acct.Nonce < nonce {
				return false
			}
		}
		return true
	})
}

// history sends a little of everything from the first development
// account (a): an ETH transfer, a contract creation, a failed creation,
// the example tokens minted to a and b, and token transfers of a known
// and of the unknown token to c. It then stops the chain and waits for
// the index.
func (e *env) history() {
	e.t.Helper()
	a, b, c := e.keys[0], addrOf(e.keys[1]), addrOf(e.keys[2])
	e.send(a, &b, 12345, params.TxGas, nil)
	e.send(a, nil, 0, 200_000, []byte{0x60, 0x01, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x01, 0x60, 0x00, 0xf3, 0x00})
	e.send(a, nil, 0, 100_000, []byte{0x60, 0x00, 0x60, 0x00, 0xfd})
	issuer := chain.ExampleIssuerKey()
	examples, err := preview.Transactions(e.chain.Config().ChainID, issuer, []common.Address{addrOf(a), b})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, tx := range examples {
		if err := e.pool.Add(tx); err != nil {
			e.t.Fatal(err)
		}
	}
	e.nonces[addrOf(issuer)] = uint64(len(examples))
	e.settle()
	for _, ex := range []preview.Example{preview.Examples()[0], preview.Examples()[2]} {
		token := contracts.B20Address(contracts.VariantAsset, addrOf(issuer), preview.Salt(ex))
		data, err := contracts.MustLoad(contracts.B20Asset).ABI.Pack("transfer", c, big.NewInt(77))
		if err != nil {
			e.t.Fatal(err)
		}
		e.send(a, &token, 0, 300_000, data)
	}
	e.settle()
	e.stop()
	e.waitFor("index", func() bool {
		indexed, head := e.index.Progress()
		return indexed == head
	})
}

// get runs a GET of /api?query through the handler.
func (e *env) get(query string) (int, []byte) {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI(Path + "?" + query)
	e.api.Handler(&ctx)
	return ctx.Response.StatusCode(), append([]byte(nil), ctx.Response.Body()...)
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
	bc := e.chain.BlockChain()
	head := e.chain.Head().Number.Uint64()
	signer := types.LatestSigner(e.chain.Config())
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
	bc := e.chain.BlockChain()
	head := e.chain.Head().Number.Uint64()
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
