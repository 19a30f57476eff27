package index

import (
	"context"
	"crypto/ecdsa"
	"io"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newChain opens an in-memory preview chain.
func newChain(t testing.TB) *chain.Chain {
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
	return c
}

// env is a running preview chain: a sequencer sealing a block every 20 ms
// over a pool, and the keys that send the generated history.
type env struct {
	t      *testing.T
	chain  *chain.Chain
	pool   *txpool.Pool
	store  *pending.Store
	signer types.Signer
	keys   []*ecdsa.PrivateKey // the development accounts, then the example issuer
	nonces map[common.Address]uint64
	stop   func()
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := newChain(t)
	pool, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	keys, err := chain.DevKeys(chain.DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, chain: c, pool: pool, store: new(pending.Store), signer: types.LatestSigner(c.Config()),
		keys: append(keys, chain.ExampleIssuerKey()), nonces: map[common.Address]uint64{}, stop: func() {}}
}

// start runs the sequencer, which tells listener (if any) of every block,
// until stop or the end of the test.
func (e *env) start(listener sequencer.Listener) {
	e.t.Helper()
	seq, err := sequencer.New(sequencer.Config{BlockTime: 20 * time.Millisecond, PreconfInterval: 20 * time.Millisecond,
		GasCeil: chain.PreviewGasLimit}, e.chain, e.pool, e.store, quietLog())
	if err != nil {
		e.t.Fatal(err)
	}
	if listener != nil {
		seq.SetListener(listener)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := seq.Run(ctx); err != nil {
			e.t.Errorf("sequencer: %v", err)
		}
	})
	e.stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
	})
	e.t.Cleanup(e.stop)
}

// generate runs a sequencer over a new chain until the generated history
// is in it, and returns the chain, no longer growing.
func generate(t *testing.T, seed uint64, rounds int) *chain.Chain {
	t.Helper()
	e := newEnv(t)
	e.start(nil)
	e.history(rand.New(rand.NewPCG(seed, seed)), rounds)
	e.stop()
	return e.chain
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// send signs and pools a transaction from key.
func (e *env) send(key *ecdsa.PrivateKey, to *common.Address, value *big.Int, gas uint64, data []byte) {
	e.t.Helper()
	from := addrOf(key)
	tx, err := types.SignNewTx(key, e.signer, &types.DynamicFeeTx{
		ChainID: e.chain.Config().ChainID, Nonce: e.nonces[from], GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: gas, To: to, Value: value, Data: data,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.pool.Add(tx); err != nil {
		e.t.Fatalf("pool %s nonce %d: %v", from, tx.Nonce(), err)
	}
	e.nonces[from]++
}

// sendSigned pools transactions signed elsewhere, from key, nonces on.
func (e *env) sendSigned(key *ecdsa.PrivateKey, txs []*types.Transaction) {
	e.t.Helper()
	for _, tx := range txs {
		if err := e.pool.Add(tx); err != nil {
			e.t.Fatal(err)
		}
	}
	e.nonces[addrOf(key)] += uint64(len(txs))
}

// settle waits until every transaction sent is in a sealed block.
func (e *env) settle() {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if e.included() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatal("transactions not included in 30 s")
}

func (e *env) included() bool {
	snap := e.store.Load()
	if snap == nil {
		return false
	}
	for addr, nonce := range e.nonces {
		acct, err := snap.LatestReader().Account(addr)
		if err != nil {
			e.t.Fatal(err)
		}
		if acct == nil || acct.Nonce < nonce {
			return false
		}
	}
	return true
}

// fakeTransfers is runtime code that logs, for any call, a Transfer event
// whose topics 1 and 2 are the first two words of the call data and whose
// data is the rest: any "token" transfer between any two addresses, with
// data of any length. Calls shorter than two words run out of gas.
var fakeTransfers = append(append([]byte{
	0x36, 0x60, 0x00, 0x60, 0x00, 0x37, // CALLDATACOPY(0, 0, CALLDATASIZE)
	0x60, 0x20, 0x51, // topic2 = mload(32)
	0x60, 0x00, 0x51, // topic1 = mload(0)
	0x7f, // PUSH32 topic0
}, transferTopic[:]...),
	0x60, 0x40, 0x36, 0x03, // size = CALLDATASIZE - 64
	0x60, 0x40, // offset 64
	0xa3, // LOG3
	0x00, // STOP
)

// deployCode is init code that deploys runtime.
func deployCode(runtime []byte) []byte {
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 12, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

// revertingInit is init code that reverts: a failed creation.
var revertingInit = []byte{0x60, 0x00, 0x60, 0x00, 0xfd}

// history sends a generated history through e: the example tokens minted
// to every development account, then rounds of random ETH transfers among
// about twenty accounts, contract creations (some failing), token
// transfers (some failing), transfers logged by a contract that fakes them
// (zero addresses, self-transfers, amounts of the wrong length) and calls
// that run out of gas.
func (e *env) history(rng *rand.Rand, rounds int) {
	e.t.Helper()
	issuer := e.keys[len(e.keys)-1]
	var holders []common.Address
	for _, k := range e.keys[:len(e.keys)-1] {
		holders = append(holders, addrOf(k))
	}
	examples, err := preview.Transactions(e.chain.Config().ChainID, issuer, holders)
	if err != nil {
		e.t.Fatal(err)
	}
	e.sendSigned(issuer, examples)
	faker := crypto.CreateAddress(addrOf(e.keys[0]), e.nonces[addrOf(e.keys[0])])
	e.send(e.keys[0], nil, nil, 200_000, deployCode(fakeTransfers))
	e.settle()

	var tokens []common.Address
	for _, ex := range preview.Examples() {
		tokens = append(tokens, contracts.B20Address(contracts.VariantAsset, addrOf(issuer), preview.Salt(ex)))
	}
	// About twenty addresses: the senders, and ten that only receive.
	others := append([]common.Address(nil), holders...)
	for i := range 10 {
		others = append(others, common.Address{0xee, byte(i)})
	}
	r := &generator{e: e, rng: rng, tokens: tokens, others: others, faker: faker}
	for range rounds {
		for _, k := range e.keys[:len(e.keys)-1] {
			for range 1 + rng.IntN(3) {
				r.random(k)
			}
		}
		e.settle()
	}
}

type generator struct {
	e      *env
	rng    *rand.Rand
	tokens []common.Address
	others []common.Address
	faker  common.Address
}

var assetABI = contracts.MustLoad(contracts.B20Asset).ABI

// random sends one random transaction from k.
func (r *generator) random(k *ecdsa.PrivateKey) {
	e, rng := r.e, r.rng
	to := r.others[rng.IntN(len(r.others))]
	switch p := rng.IntN(100); {
	case p < 40:
		e.send(k, &to, big.NewInt(rng.Int64N(1e15)), params.TxGas, nil)
	case p < 45:
		self := addrOf(k)
		e.send(k, &self, big.NewInt(1), params.TxGas, nil)
	case p < 50:
		e.send(k, nil, big.NewInt(rng.Int64N(2)), 200_000, deployCode([]byte{0x00}))
	case p < 53:
		e.send(k, nil, nil, 100_000, revertingInit)
	case p < 78:
		// A token transfer; one in five asks for more than anyone holds.
		amount := big.NewInt(rng.Int64N(1e6))
		if rng.IntN(5) == 0 {
			amount = new(big.Int).Lsh(big.NewInt(1), 200)
		}
		data, err := assetABI.Pack("transfer", to, amount)
		if err != nil {
			e.t.Fatal(err)
		}
		token := r.tokens[rng.IntN(len(r.tokens))]
		e.send(k, &token, nil, 300_000, data)
	default:
		r.fake(k)
	}
}

// fake logs a made-up transfer through the faker contract.
func (r *generator) fake(k *ecdsa.PrivateKey) {
	rng := r.rng
	word := func(a common.Address) []byte { return common.LeftPadBytes(a[:], 32) }
	from, to := r.others[rng.IntN(len(r.others))], r.others[rng.IntN(len(r.others))]
	switch rng.IntN(5) {
	case 0:
		from = common.Address{} // a mint
	case 1:
		to = common.Address{} // a burn
	case 2:
		to = from
	}
	data := append(word(from), word(to)...)
	switch rng.IntN(6) {
	case 0: // an amount of two words: not an ERC-20 transfer
		data = append(data, make([]byte, 64)...)
	case 1: // no data at all: out of gas, a failed transaction
		data = data[:10]
	default:
		data = append(data, common.LeftPadBytes(big.NewInt(rng.Int64N(1e9)).Bytes(), 32)...)
	}
	e := r.e
	e.send(k, &r.faker, nil, 100_000, data)
}
