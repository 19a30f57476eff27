package flood

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// The flood signs its first transfers before sending starts. On a machine
// that runs the generator beside the server, as every run in PERFORMANCE.md
// does, a signature made while sending (tens of microseconds of secp256k1)
// is CPU the server under test does not get: the flood then measured the
// generator's signing as much as the server's intake, and every server's
// rate was capped by it alike. A client on another machine signs on its
// own CPU. Transfers past the presigned ones, and any whose nonce the
// server made the account read again, are signed while sending, as before.

// DefaultPresign is how many transfers of each account are signed before
// sending starts: with the default 1,024 accounts, 64 each cover six
// seconds at 10,900 accepted a second, above what the default 30M-gas
// blocks every 200 ms hold.
const DefaultPresign = 64

// presignBudget bounds the transfers presigned in all: 64 for each of
// 1,024 accounts. A flood from many more accounts presigns fewer of each,
// so that presigning takes seconds and tens of MB, not minutes and GB.
const presignBudget = 64 * 1024

// presignCount is how many transfers of each of accounts to presign when
// perAccount are asked for.
func presignCount(perAccount, accounts int) int {
	return max(0, min(perAccount, presignBudget/max(accounts, 1)))
}

// signedTransfer is one transfer ready to send: its request body and hash.
type signedTransfer struct {
	nonce uint64
	hash  common.Hash
	body  []byte
}

// transfer is the next transfer an account sends, at nonce a.nonce:
// presigned when one is, signed now otherwise.
type transfer struct {
	value         *big.Int
	feeCap, tip   *big.Int
	signer        types.Signer
	chainID       *big.Int
	body, scratch []byte // reused for transfers signed now
}

func newTransfer(signer types.Signer, chainID, feeCap, tip *big.Int) *transfer {
	return &transfer{signer: signer, chainID: chainID, feeCap: feeCap, tip: tip, value: big.NewInt(1), body: make([]byte, 0, 512)}
}

// next returns a's transfer of nonce a.nonce. The body stays valid until
// the next call.
func (t *transfer) next(a *floodAccount, to common.Address) (common.Hash, []byte, error) {
	for len(a.presigned) > 0 && a.presigned[0].nonce < a.nonce {
		a.presigned = a.presigned[1:] // the server made the account skip them
	}
	if len(a.presigned) > 0 && a.presigned[0].nonce == a.nonce && a.presignedTo == to {
		s := a.presigned[0]
		return s.hash, s.body, nil
	}
	tx, err := workload.SignTransfer(t.signer, t.chainID, a.key, a.nonce, to, t.value, t.feeCap, t.tip)
	if err != nil {
		return common.Hash{}, nil, err
	}
	t.scratch, _ = tx.MarshalBinary()
	t.body = appendSendBody(t.body[:0], t.scratch)
	return tx.Hash(), t.body, nil
}

// sent drops a's transfer of nonce a.nonce once the server took it.
func (a *floodAccount) sent() {
	if len(a.presigned) > 0 && a.presigned[0].nonce == a.nonce {
		a.presigned = a.presigned[1:]
	}
	a.nonce++
}

func appendSendBody(body, raw []byte) []byte {
	body = append(body, sendPrefix...)
	body = hex.AppendEncode(body, raw)
	return append(body, sendSuffix...)
}

// presign signs n transfers of every account, from its current nonce to
// recipient(a), on every core.
func presign(t *transfer, accounts []*floodAccount, n int, recipient func(*floodAccount) common.Address) error {
	if n <= 0 {
		return nil
	}
	work := make(chan *floodAccount)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range work {
				if err := presignAccount(t, a, n, recipient(a)); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, a := range accounts {
		work <- a
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func presignAccount(t *transfer, a *floodAccount, n int, to common.Address) error {
	a.presigned, a.presignedTo = make([]signedTransfer, n), to
	for i := range a.presigned {
		nonce := a.nonce + uint64(i)
		tx, err := workload.SignTransfer(t.signer, t.chainID, a.key, nonce, to, t.value, t.feeCap, t.tip)
		if err != nil {
			return fmt.Errorf("presign %s nonce %d: %w", a.addr, nonce, err)
		}
		raw, _ := tx.MarshalBinary()
		a.presigned[i] = signedTransfer{nonce: nonce, hash: tx.Hash(), body: appendSendBody(nil, raw)}
	}
	return nil
}
