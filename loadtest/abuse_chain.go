package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// abuseDevAccount is the development account that sends the battery's
// transactions: the last one, which the flood (accounts 0 to 7 fund it)
// and ws-logs leave alone.
const abuseDevAccount = 9

// txSender signs and sends transactions from one development account.
type txSender struct {
	rpc     *fastRPC
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	signer  types.Signer
	nonce   uint64
}

// sender returns the battery's sender with its nonce read again (someone
// else may have used the account since).
func (b *battery) sender() (*txSender, error) {
	if b.tx == nil {
		rpc, err := newFastRPC(b.cfg.URL, 2)
		if err != nil {
			return nil, err
		}
		var chainID hexutil.Big
		if err := rpc.call(&chainID, "eth_chainId"); err != nil {
			return nil, err
		}
		key := workload.DevKey(abuseDevAccount)
		b.tx = &txSender{rpc: rpc, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
			chainID: chainID.ToInt(), signer: types.LatestSignerForChainID(chainID.ToInt())}
	}
	var nonce hexutil.Uint64
	if err := b.tx.rpc.call(&nonce, "eth_getTransactionCount", b.tx.from, "pending"); err != nil {
		return nil, err
	}
	b.tx.nonce = uint64(nonce)
	return b.tx, nil
}

// send signs a transaction (a contract creation when to is nil) and sends it.
func (s *txSender) send(to *common.Address, data []byte, gas uint64) (common.Hash, error) {
	tx, err := types.SignNewTx(s.key, s.signer, &types.DynamicFeeTx{ChainID: s.chainID, Nonce: s.nonce,
		GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei), Gas: gas, To: to, Data: data, Value: new(big.Int)})
	if err != nil {
		return common.Hash{}, fmt.Errorf("sign: %w", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return common.Hash{}, err
	}
	var hash common.Hash
	if err := s.rpc.call(&hash, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
		return common.Hash{}, fmt.Errorf("nonce %d: %w", s.nonce, err)
	}
	s.nonce++
	return hash, nil
}

// smallReceipt is the part of a receipt the battery reads.
type smallReceipt struct {
	BlockNumber     hexutil.Uint64  `json:"blockNumber"`
	Status          hexutil.Uint64  `json:"status"`
	ContractAddress *common.Address `json:"contractAddress"`
}

// receipt waits for hash's receipt (only for transactions with few logs:
// a receipt carries them all).
func (s *txSender) receipt(ctx context.Context, hash common.Hash) (*smallReceipt, error) {
	for {
		var r *smallReceipt
		if err := s.rpc.call(&r, "eth_getTransactionReceipt", hash); err == nil && r != nil {
			if r.Status != 1 {
				return r, fmt.Errorf("transaction %s failed", hash)
			}
			return r, nil
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return nil, fmt.Errorf("transaction %s: no receipt: %w", hash, ctx.Err())
		}
	}
}

// sealed waits until every transaction the sender sent is in a sealed block.
func (s *txSender) sealed(ctx context.Context) error {
	for {
		var n hexutil.Uint64
		if err := s.rpc.call(&n, "eth_getTransactionCount", s.from, "latest"); err == nil && uint64(n) >= s.nonce {
			return nil
		}
		if !sleepCtx(ctx, 200*time.Millisecond) {
			return fmt.Errorf("transactions up to nonce %d not sealed: %w", s.nonce, ctx.Err())
		}
	}
}

func (s *txSender) head() (uint64, error) {
	var n hexutil.Uint64
	err := s.rpc.call(&n, "eth_blockNumber")
	return uint64(n), err
}

// logSet is the logs the get-logs attack reads: all of one contract's, in
// a block range.
type logSet struct {
	address  common.Address
	from, to uint64
	logs     int
	setup    time.Duration
}

// logsPerTx is what one emitting transaction emits: 10.5M gas, two
// transactions to a 30M block.
const logsPerTx = 25_000

// emitLogs deploys a log emitter and has it emit n logs.
func (b *battery) emitLogs(ctx context.Context, n int) (*logSet, error) {
	start := time.Now()
	s, err := b.sender()
	if err != nil {
		return nil, err
	}
	deploy, err := s.send(nil, deployCode(logEmitterRuntime()), 200_000)
	if err != nil {
		return nil, fmt.Errorf("deploy the log emitter: %w", err)
	}
	r, err := s.receipt(ctx, deploy)
	if err != nil {
		return nil, fmt.Errorf("deploy the log emitter: %w", err)
	}
	set := &logSet{address: *r.ContractAddress, from: uint64(r.BlockNumber)}
	for left := n; left > 0; {
		k := min(left, logsPerTx)
		gas := uint64(k)*logEmitterGasPerLog + 60_000
		if _, err := s.send(&set.address, common.LeftPadBytes(big.NewInt(int64(k)).Bytes(), 32), gas); err != nil {
			return nil, fmt.Errorf("emit logs: %w", err)
		}
		left -= k
		set.logs += k
	}
	if err := s.sealed(ctx); err != nil {
		return nil, fmt.Errorf("emit logs: %w", err)
	}
	if set.to, err = s.head(); err != nil {
		return nil, err
	}
	set.setup = time.Since(start)
	return set, nil
}
