package sequencer

import (
	"io"
	"log/slog"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// previewChain is the preview genesis in memory, without the base fee
// floor that go-ethereum's block generator does not know.
func previewChain(t *testing.T) (*chain.Chain, *core.Genesis) {
	t.Helper()
	faucet, _, err := chain.FaucetKey("")
	if err != nil {
		t.Fatal(err)
	}
	genesis, err := chain.PreviewGenesis(crypto.PubkeyToAddress(faucet.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, genesis
}

// block1 is a block 1 on genesis paying coinbase: blocks of different
// coinbases are siblings.
func block1(c *chain.Chain, genesis *core.Genesis, coinbase common.Address) *types.Block {
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, c.Engine(), 1, func(_ int, b *core.BlockGen) {
		b.SetCoinbase(coinbase)
		b.OffsetTime(-9) // one second after the parent, not ten
	})
	return blocks[0]
}

// A candidate that committed a block and died before logging it finds the
// next leader's block of that number in the log: with SetLogWins the
// replay replaces its head; a replica's replay refuses another chain.
func TestReplayLogWinsOverAnUnloggedHead(t *testing.T) {
	c, genesis := previewChain(t)
	mine, logged := block1(c, genesis, common.Address{1}), block1(c, genesis, common.Address{2})
	if err := c.Append(mine); err != nil {
		t.Fatal(err)
	}
	r := NewReplayer(c, new(pending.Store), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := r.Sealed(logged); err == nil {
		t.Fatal("a replica's replay replaced its head with another block of its number")
	}
	r.SetLogWins(true)
	if inserted, err := r.Sealed(logged); err != nil || !inserted {
		t.Fatalf("inserted %t, %v", inserted, err)
	}
	if head := c.Head(); head.Hash() != logged.Hash() {
		t.Fatalf("head %d %s, want the logged block %s", head.Number, head.Hash(), logged.Hash())
	}
}
