package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/params"
)

type forkJSON struct {
	ActivationTime  uint64                    `json:"activationTime"`
	BlobSchedule    *params.BlobConfig        `json:"blobSchedule"`
	ChainID         hexutil.Big               `json:"chainId"`
	ForkID          hexutil.Bytes             `json:"forkId"`
	Precompiles     map[string]common.Address `json:"precompiles"`
	SystemContracts map[string]common.Address `json:"systemContracts"`
}

// eth_config on the preview chain: Prague from genesis and nothing
// scheduled after it.
func TestEthConfig(t *testing.T) {
	n := newTestNode(t, 0, 0)
	var out struct{ Current, Next, Last *forkJSON }
	n.result(&out, "eth_config")
	c := out.Current
	if c == nil || out.Next != nil || out.Last != nil {
		t.Fatalf("eth_config = %+v", out)
	}
	genesis := n.chain.BlockChain().Genesis()
	id := forkid.NewID(n.chain.Config(), genesis, ^uint64(0), genesis.Time())
	if c.ActivationTime != 0 || c.ChainID.ToInt().Cmp(n.chain.Config().ChainID) != 0 || c.ForkID.String() != hexutil.Encode(id.Hash[:]) {
		t.Errorf("current = %+v, want activation 0, chain %s, fork ID %x", c, n.chain.Config().ChainID, id.Hash)
	}
	if *c.BlobSchedule != *params.DefaultPragueBlobConfig {
		t.Errorf("blob schedule %+v", c.BlobSchedule)
	}
	// Prague's precompiles: 0x01 to 0x11; its system contracts.
	if len(c.Precompiles) != 17 || c.Precompiles["ECREC"] != common.BytesToAddress([]byte{1}) || c.Precompiles["BLS12_MAP_FP2_TO_G2"] != common.BytesToAddress([]byte{0x11}) {
		t.Errorf("precompiles %v", c.Precompiles)
	}
	if c.SystemContracts["HISTORY_STORAGE_ADDRESS"] != params.HistoryStorageAddress || c.SystemContracts["BEACON_ROOTS_ADDRESS"] != params.BeaconRootsAddress || len(c.SystemContracts) != 5 {
		t.Errorf("system contracts %v", c.SystemContracts)
	}
	// activationTime is a JSON number, as in geth and EIP-7910.
	if raw := n.raw(`{"jsonrpc":"2.0","id":1,"method":"eth_config"}`); !strings.Contains(raw, `"activationTime":0,`) {
		t.Errorf("eth_config = %s", raw)
	}
	if resp := n.call("eth_config", 1); resp.Error == nil || resp.Error.Code != -32602 {
		t.Errorf("eth_config(1) = %+v", resp.Error)
	}
}

// A fork scheduled after the head is next (and last), with its own fork
// ID and precompiles.
func TestEthConfigScheduledFork(t *testing.T) {
	const osaka = 4_000_000_000
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		config := *tc.chain.Genesis.Config
		config.OsakaTime = new(uint64)
		*config.OsakaTime = osaka
		tc.chain.Genesis.Config = &config
	})
	var out struct{ Current, Next, Last *forkJSON }
	n.result(&out, "eth_config")
	if out.Current == nil || out.Next == nil || out.Last == nil {
		t.Fatalf("eth_config = %+v", out)
	}
	genesis := n.chain.BlockChain().Genesis()
	id := forkid.NewID(n.chain.Config(), genesis, ^uint64(0), osaka)
	if out.Next.ActivationTime != osaka || out.Next.ForkID.String() != hexutil.Encode(id.Hash[:]) || out.Next.ForkID.String() == out.Current.ForkID.String() {
		t.Errorf("next = %+v, want activation %d and fork ID %x", out.Next, uint64(osaka), id.Hash)
	}
	if _, ok := out.Next.Precompiles["P256VERIFY"]; !ok {
		t.Errorf("Osaka's precompiles lack P256VERIFY: %v", out.Next.Precompiles)
	}
	if _, ok := out.Current.Precompiles["P256VERIFY"]; ok {
		t.Errorf("Prague's precompiles have P256VERIFY")
	}
	if b, _ := json.Marshal(out.Next); string(b) != mustJSON(t, out.Last) {
		t.Errorf("last %+v differs from next %+v though Osaka is both", out.Last, out.Next)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// eth_blobBaseFee is the head's blob base fee: this chain carries no
// blobs, so the minimum.
func TestBlobBaseFee(t *testing.T) {
	n := newTestNode(t, 0, 0)
	var fee string
	n.result(&fee, "eth_blobBaseFee")
	if fee != "0x1" {
		t.Errorf("eth_blobBaseFee = %s, want 0x1", fee)
	}
	if resp := n.call("eth_blobBaseFee", "latest"); resp.Error == nil || resp.Error.Code != -32602 {
		t.Errorf("eth_blobBaseFee(latest) = %+v", resp.Error)
	}
}
