package index

import (
	"crypto/ecdsa"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/preview"
)

func quietLog() *slog.Logger { return chaintest.Quiet() }

// newEnv is a preview chain whose sequencer, once started, seals a block
// every 20 ms.
func newEnv(t *testing.T) *chaintest.Env {
	t.Helper()
	return chaintest.New(t, chaintest.Config{BlockTime: 20 * time.Millisecond})
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// generate runs a sequencer over a new chain until the generated history
// is in it, and returns the chain, no longer growing.
func generate(t *testing.T, seed uint64, rounds int) *chain.Chain {
	t.Helper()
	e := newEnv(t)
	e.Run()
	history(t, e, rand.New(rand.NewPCG(seed, seed)), rounds)
	e.Stop()
	return e.Chain
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
func history(t *testing.T, e *chaintest.Env, rng *rand.Rand, rounds int) {
	t.Helper()
	issuer := chain.ExampleIssuerKey()
	var holders []common.Address
	for i := range e.Keys {
		holders = append(holders, e.Addr(i))
	}
	examples, err := preview.Transactions(e.ChainID, issuer, holders)
	if err != nil {
		t.Fatal(err)
	}
	e.Add(examples...)
	deploy := e.Send(0, nil, nil, 200_000, deployCode(fakeTransfers))
	faker := crypto.CreateAddress(e.Addr(0), deploy.Nonce())
	e.Settle()

	var tokens []common.Address
	for _, ex := range preview.Examples() {
		tokens = append(tokens, contracts.B20Address(contracts.VariantAsset, addrOf(issuer), preview.Salt(ex)))
	}
	// About twenty addresses: the senders, and ten that only receive.
	others := append([]common.Address(nil), holders...)
	for i := range 10 {
		others = append(others, common.Address{0xee, byte(i)})
	}
	r := &generator{t: t, e: e, rng: rng, tokens: tokens, others: others, faker: faker}
	for range rounds {
		for from := range e.Keys {
			for range 1 + rng.IntN(3) {
				r.random(from)
			}
		}
		e.Settle()
	}
}

type generator struct {
	t      *testing.T
	e      *chaintest.Env
	rng    *rand.Rand
	tokens []common.Address
	others []common.Address
	faker  common.Address
}

var assetABI = contracts.MustLoad(contracts.B20Asset).ABI

// random sends one random transaction from development account from.
func (r *generator) random(from int) {
	e, rng := r.e, r.rng
	to := r.others[rng.IntN(len(r.others))]
	switch p := rng.IntN(100); {
	case p < 40:
		e.Send(from, &to, big.NewInt(rng.Int64N(1e15)), params.TxGas, nil)
	case p < 45:
		self := e.Addr(from)
		e.Send(from, &self, big.NewInt(1), params.TxGas, nil)
	case p < 50:
		e.Send(from, nil, big.NewInt(rng.Int64N(2)), 200_000, deployCode([]byte{0x00}))
	case p < 53:
		e.Send(from, nil, nil, 100_000, revertingInit)
	case p < 78:
		// A token transfer; one in five asks for more than anyone holds.
		amount := big.NewInt(rng.Int64N(1e6))
		if rng.IntN(5) == 0 {
			amount = new(big.Int).Lsh(big.NewInt(1), 200)
		}
		data, err := assetABI.Pack("transfer", to, amount)
		if err != nil {
			r.t.Fatal(err)
		}
		token := r.tokens[rng.IntN(len(r.tokens))]
		e.Send(from, &token, nil, 300_000, data)
	default:
		r.fake(from)
	}
}

// fake logs a made-up transfer through the faker contract.
func (r *generator) fake(sender int) {
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
	r.e.Send(sender, &r.faker, nil, 100_000, data)
}
