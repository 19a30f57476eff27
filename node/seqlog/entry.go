package seqlog

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// Kind is an entry's type; its name is the last token of the entry's subject.
type Kind uint8

// The entry kinds.
const (
	KindOpened Kind = iota + 1
	KindPreconfirmed
	KindSealed
	KindAccepted
)

var kindNames = map[Kind]string{
	KindOpened:       "opened",
	KindPreconfirmed: "preconfirmed",
	KindSealed:       "sealed",
	KindAccepted:     "accepted",
}

func (k Kind) String() string {
	if name, ok := kindNames[k]; ok {
		return name
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

func kindOf(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return k, true
		}
	}
	return 0, false
}

// Entry is one decision of the sequencer: Opened, Preconfirmed, Sealed or
// Accepted. Entries are RLP-encoded; the kind travels in the subject.
type Entry interface {
	Kind() Kind
}

// Record is an entry as stored: its stream sequence and the time JetStream
// stored it. Pending, on a record Read or Follow delivered, counts the
// entries stored after it at delivery (how far the reader is behind).
type Record struct {
	Seq     uint64
	Time    time.Time
	Pending uint64
	Entry   Entry
}

// PayloadID names one block being built, as the engine API's payload id
// and Flashblocks' payload_id do.
type PayloadID [8]byte

func (id PayloadID) String() string { return "0x" + hex.EncodeToString(id[:]) }

// NewPayloadID derives the id of the block whose pending header is h; the
// random prevrandao makes it unique even for a block rebuilt on the same
// parent at the same second.
func NewPayloadID(h *types.Header) PayloadID {
	var num [8]byte
	binary.BigEndian.PutUint64(num[:], h.Number.Uint64())
	sum := crypto.Keccak256(h.ParentHash[:], num[:], h.MixDigest[:])
	return PayloadID(sum[:8])
}

// Opened is a block opened for pre-confirmation: the environment a replica
// needs to rebuild the same pending header (Flashblocks' "base").
type Opened struct {
	Number     uint64
	ParentHash common.Hash
	PayloadID  PayloadID
	Timestamp  uint64
	Coinbase   common.Address
	GasLimit   uint64
	PrevRandao common.Hash
	ExtraData  []byte
	// Fork-dependent fields, nil before their fork. RLP cannot tell nil
	// from zero for a number, hence the flag.
	HasBaseFee       bool
	BaseFee          *big.Int
	ParentBeaconRoot *common.Hash `rlp:"optional"`
	ExcessBlobGas    *uint64      `rlp:"optional"`
}

// Kind implements Entry.
func (Opened) Kind() Kind { return KindOpened }

// NewOpened describes the freshly opened pending header h.
func NewOpened(h *types.Header, id PayloadID) Opened {
	o := Opened{
		Number:     h.Number.Uint64(),
		ParentHash: h.ParentHash,
		PayloadID:  id,
		Timestamp:  h.Time,
		Coinbase:   h.Coinbase,
		GasLimit:   h.GasLimit,
		PrevRandao: h.MixDigest,
		ExtraData:  common.CopyBytes(h.Extra),
		BaseFee:    new(big.Int),
	}
	if h.BaseFee != nil {
		o.HasBaseFee, o.BaseFee = true, new(big.Int).Set(h.BaseFee)
	}
	if h.ParentBeaconRoot != nil {
		root := *h.ParentBeaconRoot
		o.ParentBeaconRoot = &root
	}
	if h.ExcessBlobGas != nil {
		excess := *h.ExcessBlobGas
		o.ExcessBlobGas = &excess
	}
	return o
}

// Header rebuilds the pending header as it was when the block opened.
func (o Opened) Header() *types.Header {
	h := &types.Header{
		ParentHash: o.ParentHash,
		Number:     new(big.Int).SetUint64(o.Number),
		GasLimit:   o.GasLimit,
		Time:       o.Timestamp,
		Coinbase:   o.Coinbase,
		Extra:      common.CopyBytes(o.ExtraData),
		MixDigest:  o.PrevRandao,
		Difficulty: new(big.Int), // post-merge, as the engine prepares it
	}
	if o.HasBaseFee {
		h.BaseFee = new(big.Int).Set(o.BaseFee)
	}
	if o.ParentBeaconRoot != nil {
		root := *o.ParentBeaconRoot
		h.ParentBeaconRoot = &root
	}
	if o.ExcessBlobGas != nil {
		excess := *o.ExcessBlobGas
		h.ExcessBlobGas, h.BlobGasUsed = &excess, new(uint64)
	}
	return h
}

// Preconfirmed is what one pre-confirmation tick executed into the block
// (Flashblocks' "diff"): its transactions in execution order.
type Preconfirmed struct {
	Number    uint64
	PayloadID PayloadID
	// Index counts the block's pre-confirmations, as pending.Block.Index.
	Index uint64
	// GasUsed is the block's gas used after this tick: a replica that
	// re-executed the transactions checks it got the same.
	GasUsed uint64
	// Transactions are EIP-2718 encoded (tx.MarshalBinary).
	Transactions [][]byte
}

// Kind implements Entry.
func (Preconfirmed) Kind() Kind { return KindPreconfirmed }

// Sealed is a sealed block.
type Sealed struct {
	Number uint64
	Hash   common.Hash
	// Block is the block's RLP.
	Block []byte
	// ReceiptsHash is types.DeriveSha of the receipts, to cross-check a
	// replica's re-execution beyond the header's receipt root.
	ReceiptsHash common.Hash
}

// Kind implements Entry.
func (Sealed) Kind() Kind { return KindSealed }

// NewSealed encodes block and the hash of its receipts.
func NewSealed(block *types.Block, receipts types.Receipts) (Sealed, error) {
	enc, err := rlp.EncodeToBytes(block)
	if err != nil {
		return Sealed{}, fmt.Errorf("encode block %d: %w", block.NumberU64(), err)
	}
	return Sealed{
		Number:       block.NumberU64(),
		Hash:         block.Hash(),
		Block:        enc,
		ReceiptsHash: types.DeriveSha(receipts, trie.NewStackTrie(nil)),
	}, nil
}

// DecodeBlock decodes the block and checks it is the one named by Hash.
func (s Sealed) DecodeBlock() (*types.Block, error) {
	block := new(types.Block)
	if err := rlp.DecodeBytes(s.Block, block); err != nil {
		return nil, fmt.Errorf("decode sealed block %d: %w", s.Number, err)
	}
	if block.Hash() != s.Hash || block.NumberU64() != s.Number {
		return nil, fmt.Errorf("sealed block %d %s decodes to block %d %s", s.Number, s.Hash, block.NumberU64(), block.Hash())
	}
	return block, nil
}

// Accepted is transactions the pool accepted that are not pre-confirmed yet.
type Accepted struct {
	Transactions [][]byte // EIP-2718 encoded
}

// Kind implements Entry.
func (Accepted) Kind() Kind { return KindAccepted }

// EncodeTxs encodes transactions for Preconfirmed and Accepted.
func EncodeTxs(txs types.Transactions) ([][]byte, error) {
	out := make([][]byte, len(txs))
	for i, tx := range txs {
		enc, err := tx.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("encode transaction %s: %w", tx.Hash(), err)
		}
		out[i] = enc
	}
	return out, nil
}

// DecodeTxs decodes what EncodeTxs encoded.
func DecodeTxs(raw [][]byte) (types.Transactions, error) {
	txs := make(types.Transactions, len(raw))
	for i, enc := range raw {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(enc); err != nil {
			return nil, fmt.Errorf("decode transaction %d: %w", i, err)
		}
		txs[i] = tx
	}
	return txs, nil
}

func encodeEntry(e Entry) ([]byte, error) {
	if _, ok := kindNames[e.Kind()]; !ok {
		return nil, fmt.Errorf("unknown entry kind %v", e.Kind())
	}
	enc, err := rlp.EncodeToBytes(e)
	if err != nil {
		return nil, fmt.Errorf("encode %v entry: %w", e.Kind(), err)
	}
	return enc, nil
}

func decodeEntry(k Kind, data []byte) (Entry, error) {
	var (
		e   Entry
		err error
	)
	switch k {
	case KindOpened:
		e, err = decodeAs[Opened](data)
	case KindPreconfirmed:
		e, err = decodeAs[Preconfirmed](data)
	case KindSealed:
		e, err = decodeAs[Sealed](data)
	case KindAccepted:
		e, err = decodeAs[Accepted](data)
	default:
		return nil, fmt.Errorf("unknown entry kind %v", k)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %v entry: %w", k, err)
	}
	return e, nil
}

func decodeAs[T Entry](data []byte) (T, error) {
	var e T
	err := rlp.DecodeBytes(data, &e)
	return e, err
}
