package abuse

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

	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/workload"
)

// abuseDevAccount is the development account that sends the battery's
// transactions: the last one, which the flood (accounts 0 to 7 fund it)
// and ws-logs leave alone.
const abuseDevAccount = 9

// txSender signs and sends transactions from one development account.
type txSender struct {
	rpc     *rpcclient.Client
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
		s, err := newTxSender(b.cfg.URL, abuseDevAccount)
		if err != nil {
			return nil, err
		}
		b.tx = s
	}
	return b.tx, b.tx.readNonce()
}

// newTxSender is a sender from development account i.
func newTxSender(url string, i int) (*txSender, error) {
	rpc, err := rpcclient.New(url, 2)
	if err != nil {
		return nil, err
	}
	chainID, signer, err := rpc.ChainSigner()
	if err != nil {
		return nil, err
	}
	key := workload.DevKey(i)
	return &txSender{rpc: rpc, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
		chainID: chainID, signer: signer}, nil
}

// readNonce reads the sender's next nonce, its pooled transactions counted.
func (s *txSender) readNonce() error {
	var nonce hexutil.Uint64
	if err := s.rpc.Call(&nonce, "eth_getTransactionCount", s.from, "pending"); err != nil {
		return err
	}
	s.nonce = uint64(nonce)
	return nil
}

// send signs a transaction (a contract creation when to is nil) and sends it.
func (s *txSender) send(to *common.Address, data []byte, gas uint64) (common.Hash, error) {
	tx, err := s.signAt(s.nonce, fees{tip: big.NewInt(params.GWei), cap: big.NewInt(100 * params.GWei)}, to, new(big.Int), data, gas)
	if err != nil {
		return common.Hash{}, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return common.Hash{}, err
	}
	var hash common.Hash
	if err := s.rpc.Call(&hash, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
		return common.Hash{}, fmt.Errorf("nonce %d: %w", s.nonce, err)
	}
	s.nonce++
	return hash, nil
}

// fees are a transaction's priority fee and fee cap, per gas.
type fees struct{ tip, cap *big.Int }

// signAt signs a dynamic-fee transaction at nonce.
func (s *txSender) signAt(nonce uint64, f fees, to *common.Address, value *big.Int, data []byte, gas uint64) (*types.Transaction, error) {
	tx, err := types.SignNewTx(s.key, s.signer, &types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce,
		GasTipCap: f.tip, GasFeeCap: f.cap, Gas: gas, To: to, Data: data, Value: value})
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return tx, nil
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
		if err := s.rpc.Call(&r, "eth_getTransactionReceipt", hash); err == nil && r != nil {
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
		if err := s.rpc.Call(&n, "eth_getTransactionCount", s.from, "latest"); err == nil && uint64(n) >= s.nonce {
			return nil
		}
		if !sleepCtx(ctx, 200*time.Millisecond) {
			return fmt.Errorf("transactions up to nonce %d not sealed: %w", s.nonce, ctx.Err())
		}
	}
}

func (s *txSender) head() (uint64, error) {
	var n hexutil.Uint64
	err := s.rpc.Call(&n, "eth_blockNumber")
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
