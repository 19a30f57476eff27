package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// envOps are what the echo contract reports of its environment, a word each.
var envOps = []vm.OpCode{vm.BASEFEE, vm.BLOBBASEFEE, vm.GASPRICE, vm.NUMBER, vm.TIMESTAMP, vm.GASLIMIT, vm.COINBASE, vm.PREVRANDAO, vm.CHAINID}

// echoEnv is creation code that returns envOps' values (a call without a
// "to" runs it and answers what it returns).
func echoEnv() []byte {
	p := program.New()
	for i, op := range envOps {
		p.Op(op).Push(i * 32).Op(vm.MSTORE)
	}
	return p.Return(0, len(envOps)*32).Bytes()
}

var (
	// revertIfNoBaseFee reverts when BASEFEE reads 0, and stops otherwise:
	// BASEFEE PUSH1 7 JUMPI PUSH0 PUSH0 REVERT JUMPDEST STOP.
	revertIfNoBaseFee = []byte{byte(vm.BASEFEE), byte(vm.PUSH1), 7, byte(vm.JUMPI), byte(vm.PUSH0), byte(vm.PUSH0), byte(vm.REVERT), byte(vm.JUMPDEST), byte(vm.STOP)}
	// touched is the account touchIfNoBaseFee reads the balance of.
	touched = common.HexToAddress("0x000000000000000000000000000000000000beef")
)

// touchIfNoBaseFee reads touched's balance when BASEFEE reads 0: touched
// is then in the access list.
func touchIfNoBaseFee() []byte {
	// BASEFEE PUSH1 27 JUMPI PUSH20 touched BALANCE POP JUMPDEST STOP
	code := []byte{byte(vm.BASEFEE), byte(vm.PUSH1), 27, byte(vm.JUMPI), byte(vm.PUSH20)}
	code = append(code, touched.Bytes()...)
	return append(code, byte(vm.BALANCE), byte(vm.POP), byte(vm.JUMPDEST), byte(vm.STOP))
}

// callFees are the fee fields of a call object (nil: omitted).
type callFees struct {
	gasPrice, maxFee, maxTip, maxBlobFee *big.Int
}

func (f callFees) object(from common.Address, input []byte) map[string]any {
	o := map[string]any{"from": from, "input": hexutil.Bytes(input), "gas": hexutil.Uint64(1_000_000)}
	for name, v := range map[string]*big.Int{"gasPrice": f.gasPrice, "maxFeePerGas": f.maxFee, "maxPriorityFeePerGas": f.maxTip, "maxFeePerBlobGas": f.maxBlobFee} {
		if v != nil {
			o[name] = (*hexutil.Big)(v)
		}
	}
	return o
}

// gethEcho runs echoEnv as geth's eth_call does on header's block
// (internal/ethapi doCall and applyMessage): the message from
// TransactionArgs' defaults, and the block context's base fee lowered to 0
// when the gas price is 0, its blob base fee when the blob fee cap is a
// given 0.
func gethEcho(t *testing.T, n *testNode, header *types.Header, from common.Address, f callFees) []byte {
	t.Helper()
	msg := &core.Message{From: from, GasLimit: 1_000_000, Value: new(uint256.Int), Data: echoEnv(),
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int)}
	switch {
	case f.gasPrice != nil:
		msg.GasPrice, msg.GasFeeCap, msg.GasTipCap = uint256.MustFromBig(f.gasPrice), uint256.MustFromBig(f.gasPrice), uint256.MustFromBig(f.gasPrice)
	case f.maxFee != nil || f.maxTip != nil:
		if f.maxFee != nil {
			msg.GasFeeCap = uint256.MustFromBig(f.maxFee)
		}
		if f.maxTip != nil {
			msg.GasTipCap = uint256.MustFromBig(f.maxTip)
		}
		if !msg.GasFeeCap.IsZero() || !msg.GasTipCap.IsZero() {
			price := new(uint256.Int).Add(msg.GasTipCap, uint256.MustFromBig(header.BaseFee))
			if price.Cmp(msg.GasFeeCap) > 0 {
				price = msg.GasFeeCap
			}
			msg.GasPrice = price
		}
	}
	if f.maxBlobFee != nil {
		msg.BlobGasFeeCap = uint256.MustFromBig(f.maxBlobFee)
	}
	msg.SkipNonceCheck().SkipEOACheck()
	ctx := core.NewEVMBlockContext(header, n.chain.BlockChain(), nil)
	if msg.GasPrice.Sign() == 0 {
		ctx.BaseFee = new(big.Int)
	}
	if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.BitLen() == 0 {
		ctx.BlobBaseFee = new(big.Int)
	}
	st, err := n.store.Load().LatestState()
	if err != nil {
		t.Fatal(err)
	}
	evm := vm.NewEVM(ctx, st, n.chain.Config(), vm.Config{NoBaseFee: true})
	res, err := core.ApplyMessage(evm, msg, core.NewGasPool(msg.GasLimit))
	if err != nil || res.Err != nil {
		t.Fatalf("geth's echo: %v %v", err, res.Err)
	}
	return res.ReturnData
}

// header is the header eth_getBlockByNumber answers for tag, as the EVM
// sees it (the pending block's hash-derived fields do not matter here).
func (n *testNode) envHeader(tag string) *types.Header {
	n.t.Helper()
	snap := n.store.Load()
	if tag == "pending" {
		return snap.Pending.Header
	}
	return snap.HeadHeader
}

// A contract that reads its environment reads the same through eth_call as
// through geth's: BASEFEE is 0 for a call that pays no gas price, the
// block's base fee otherwise; BLOBBASEFEE is 0 only for a given zero blob
// fee cap. Calls at latest and pending share a block context per snapshot:
// a call that lowers its base fee must not lower the next one's.
func TestCallSeesGethsEnvironment(t *testing.T) {
	n := newTestNode(t, time.Hour, 50*time.Millisecond) // block 1 stays open: fixed headers
	from := n.addr(1)
	gwei := func(x int64) *big.Int { return big.NewInt(x * params.GWei) }
	cases := []struct {
		name string
		fees callFees
	}{
		{"no fees", callFees{}},
		{"gas price", callFees{gasPrice: gwei(2)}},
		{"1559 fees", callFees{maxFee: gwei(3), maxTip: gwei(1)}},
		{"zero 1559 fees", callFees{maxFee: new(big.Int), maxTip: new(big.Int)}},
		{"zero gas price", callFees{gasPrice: new(big.Int)}},
		{"zero blob fee cap", callFees{maxBlobFee: new(big.Int)}},
		{"blob fee cap", callFees{maxBlobFee: big.NewInt(5), gasPrice: gwei(2)}},
	}
	for _, tag := range []string{"latest", "pending"} {
		header := n.envHeader(tag)
		// Twice, so that each case runs after every other on the shared context.
		for round := 0; round < 2; round++ {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/%s", tag, tc.name), func(t *testing.T) {
					resp := n.call("eth_call", tc.fees.object(from, echoEnv()), tag)
					if resp.Error != nil {
						t.Fatalf("error %d %s", resp.Error.Code, resp.Error.Message)
					}
					var got hexutil.Bytes
					json.Unmarshal(resp.Result, &got)
					if want := gethEcho(t, n, header, from, tc.fees); string(got) != string(want) {
						t.Fatalf("environment\n got %x\nwant %x", got, want)
					}
				})
			}
		}
	}
	t.Run("concurrent", func(t *testing.T) {
		header := n.envHeader("pending")
		want := map[int][]byte{}
		for i, tc := range cases {
			want[i] = gethEcho(t, n, header, from, tc.fees)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 40 {
					tc := cases[(g+i)%len(cases)]
					p, _ := json.Marshal([]any{tc.fees.object(from, echoEnv()), "pending"})
					var resp rpcResponse
					json.Unmarshal(n.srv.Handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":`+string(p)+`}`), nil), &resp)
					var got hexutil.Bytes
					json.Unmarshal(resp.Result, &got)
					if string(got) != string(want[(g+i)%len(cases)]) {
						errs <- fmt.Errorf("%s: got %x", tc.name, got)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}

// eth_estimateGas and eth_createAccessList run with geth's environment too:
// code that reverts when BASEFEE is 0 cannot be estimated without a gas
// price, and code that reads an account only when BASEFEE is 0 lists it.
func TestEstimateAndAccessListSeeGethsEnvironment(t *testing.T) {
	n := newTestNode(t, time.Hour, 50*time.Millisecond)
	from := n.addr(1)
	priced := callFees{gasPrice: big.NewInt(2 * params.GWei)}
	for _, tag := range []string{"latest", "pending"} {
		resp := n.call("eth_estimateGas", callFees{}.object(from, revertIfNoBaseFee), tag)
		if resp.Error == nil || resp.Error.Message != "execution reverted" {
			t.Fatalf("%s: estimate of code that reverts on BASEFEE 0, without fees: %s %+v", tag, resp.Result, resp.Error)
		}
		var gas hexutil.Uint64
		n.result(&gas, "eth_estimateGas", priced.object(from, revertIfNoBaseFee), tag)
		if uint64(gas) < params.TxGasContractCreation {
			t.Fatalf("%s: estimate with a gas price = %d", tag, gas)
		}

		var al accessListResult
		n.result(&al, "eth_createAccessList", callFees{}.object(from, touchIfNoBaseFee()), tag)
		if len(al.AccessList) != 1 || al.AccessList[0].Address != touched || al.Error != "" {
			t.Fatalf("%s: access list without fees = %+v, want %s listed", tag, al, touched)
		}
		n.result(&al, "eth_createAccessList", priced.object(from, touchIfNoBaseFee()), tag)
		if len(al.AccessList) != 0 || al.Error != "" {
			t.Fatalf("%s: access list with a gas price = %+v, want empty", tag, al)
		}
	}
}
