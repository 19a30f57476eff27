package main

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/workload"
)

// clients are the JSON-RPC clients of the running servers, by URL.
var clients sync.Map

// rpcCall runs one JSON-RPC method at url (loadtest's client, one
// keep-alive connection a server); a JSON-RPC error is named by its method.
func rpcCall(url string, result any, method string, params ...any) error {
	c, ok := clients.Load(url)
	if !ok {
		client, err := rpcclient.New(url, 1)
		if err != nil {
			return err
		}
		c, _ = clients.LoadOrStore(url, client)
	}
	err := c.(*rpcclient.Client).Call(result, method, params...)
	if rpcErr := (*rpcclient.Error)(nil); errors.As(err, &rpcErr) {
		return fmt.Errorf("%s: %w", method, err)
	}
	return err
}

// checkState verifies, at latest and at pending, what the genesis says: the
// chain ID, the last development account's balance, and ETH and LoadToken
// balances of read addresses.
func checkState(url string) error {
	var id hexutil.Big
	if err := rpcCall(url, &id, "eth_chainId"); err != nil {
		return err
	}
	if id.ToInt().Int64() != chainID {
		return fmt.Errorf("chain ID %v, want %d", id.ToInt(), chainID)
	}
	dev := workload.DevAddress(len(workload.DevKeys) - 1)
	for _, tag := range []string{"latest", "pending"} {
		var bal hexutil.Big
		if err := rpcCall(url, &bal, "eth_getBalance", dev, tag); err != nil {
			return err
		}
		if bal.ToInt().Cmp(workload.DevBalance) != 0 {
			return fmt.Errorf("eth_getBalance(%s, %s) = %v, want %v", dev, tag, bal.ToInt(), workload.DevBalance)
		}
		for _, i := range []int{0, 511, workload.NumAddresses - 1} {
			a := workload.Address(i)
			if err := rpcCall(url, &bal, "eth_getBalance", a, tag); err != nil {
				return err
			}
			if bal.ToInt().Cmp(workload.EthBalance) != 0 {
				return fmt.Errorf("eth_getBalance(%s, %s) = %v, want %v", a, tag, bal.ToInt(), workload.EthBalance)
			}
			var ret hexutil.Bytes
			data := hexutil.MustDecode("0x" + workload.BalanceOfSelector + strings.Repeat("00", 12) + common.Bytes2Hex(a[:]))
			if err := rpcCall(url, &ret, "eth_call", map[string]any{"to": workload.Token, "data": hexutil.Bytes(data)}, tag); err != nil {
				return err
			}
			if got := new(big.Int).SetBytes(ret); len(ret) != 32 || got.Cmp(workload.TokenBalance(i)) != 0 {
				return fmt.Errorf("balanceOf(%s) at %s = %x, want %v", a, tag, []byte(ret), workload.TokenBalance(i))
			}
		}
	}
	return nil
}
