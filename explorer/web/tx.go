package web

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/stocks"
)

// maxLogs bounds the logs a transaction page decodes.
const maxLogs = 200

// txData is the transaction page.
type txData struct {
	Hash   common.Hash
	Status string // statusSealed, statusPreconfirmed, statusPool
	Tx     *types.Transaction
	Type   string
	From   common.Address
	// ToToken is set when the transaction calls a B20 token.
	ToToken *stocks.Token
	Created *common.Address // a contract creation's new contract

	Block         uint64 // sealed or pre-confirmed in
	BlockHash     common.Hash
	Index         int
	Time          uint64
	Confirmations uint64
	PreconfIndex  int // the pending block's pre-confirmations so far

	Receipt *types.Receipt // nil in the pool
	Failed  bool
	Fees    fees

	Input []byte
	Call  *Call
	Logs  []logRow
	// MoreLogs counts the logs beyond maxLogs.
	MoreLogs int
}

// fees are a transaction's fees as its receipt settles them.
type fees struct {
	GasUsed  uint64
	Price    *big.Int // effective gas price
	BaseFee  *big.Int
	Tip      *big.Int // per gas, to the sequencer
	Paid     *big.Int // gas used × price
	Burnt    *big.Int // gas used × base fee
	TipTotal *big.Int // gas used × tip
}

// logRow is one log of a transaction, decoded when its event is known.
type logRow struct {
	Index   uint
	Address common.Address
	Token   *stocks.Token
	Event   *Event
	Topics  []common.Hash
	Data    string
}

var txTypeNames = map[uint8]string{
	types.LegacyTxType:     "legacy (0)",
	types.AccessListTxType: "access list (1, EIP-2930)",
	types.DynamicFeeTxType: "dynamic fee (2, EIP-1559)",
	types.BlobTxType:       "blob (3, EIP-4844)",
	types.SetCodeTxType:    "set code (4, EIP-7702)",
}

func (e *Explorer) tx(r *request) (result, error) {
	id, err := segment(r, "/tx/")
	if err != nil {
		return result{}, err
	}
	hash, ok := parseHash(id)
	if !ok {
		return result{}, badRequest("A transaction is named by its hash: 0x and 64 hex digits.")
	}
	found, err := e.findTx(r.snap, hash)
	if err != nil {
		return result{}, err
	}
	tx := found.tx
	tokens := e.tokenSet()
	d := txData{Hash: hash, Status: found.status, Tx: tx, Type: txTypeNames[tx.Type()], Index: found.index, Input: tx.Data()}
	signer := types.LatestSignerForChainID(e.deps.Chain.Config().ChainID)
	d.From, _ = types.Sender(signer, tx)
	d.ToToken = tokens.get(tx.To())
	d.Call = e.decoder.call(tx.To(), d.ToToken, tx.Data())
	if h := found.header; h != nil {
		d.Block, d.Time = h.Number.Uint64(), h.Time
		if found.status == statusSealed {
			d.BlockHash = h.Hash()
			d.Confirmations = r.snap.Head.NumberU64() - d.Block + 1
		} else {
			d.PreconfIndex = r.snap.Pending.Index
		}
	}
	if rc := found.receipt; rc != nil {
		d.Receipt = rc
		d.Failed = rc.Status != types.ReceiptStatusSuccessful
		if tx.To() == nil {
			d.Created = &rc.ContractAddress
		}
		d.Fees = settle(tx, rc.GasUsed, found.header.BaseFee)
		d.Logs, d.MoreLogs = e.logRows(rc.Logs, tokens)
	}
	return result{page: "tx", title: "Transaction " + short(hash), data: d}, nil
}

// settle works out the fees of a transaction that used gasUsed in a block
// with baseFee.
func settle(tx *types.Transaction, gasUsed uint64, baseFee *big.Int) fees {
	price := effectivePrice(tx, baseFee)
	gas := new(big.Int).SetUint64(gasUsed)
	f := fees{GasUsed: gasUsed, Price: price, BaseFee: baseFee, Paid: new(big.Int).Mul(gas, price)}
	f.Burnt = burnt(gasUsed, baseFee)
	f.TipTotal = new(big.Int).Sub(f.Paid, f.Burnt)
	f.Tip = new(big.Int).Set(price)
	if baseFee != nil {
		f.Tip.Sub(f.Tip, baseFee)
	}
	return f
}

// logRows decodes the first maxLogs logs.
func (e *Explorer) logRows(logs []*types.Log, tokens tokenSet) ([]logRow, int) {
	rows := make([]logRow, 0, min(len(logs), maxLogs))
	for _, l := range logs[:min(len(logs), maxLogs)] {
		row := logRow{Index: l.Index, Address: l.Address, Token: tokens.get(&l.Address)}
		row.Event = e.decoder.event(l, row.Token)
		if row.Event == nil {
			row.Topics, row.Data = l.Topics, hexClip(l.Data)
		}
		rows = append(rows, row)
	}
	return rows, len(logs) - len(rows)
}
