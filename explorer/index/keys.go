package index

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
)

// The key layout. Every key starts with its table's byte; numbers are
// big-endian, so that keys sort as their positions do and a page of a
// history, newest first, is one seek and then one step per entry.
//
//	'm'                                      → marker: version, number, hash
//	'b' block                                → the block's hash (blocks with entries)
//	'a' addr block txindex                   → Tx (addr sent, received or was created)
//	't' addr block txindex logindex          → Transfer (addr sent or received)
//	'e' token block txindex logindex         → Transfer (token emitted it)
//	'y' addr token block txindex logindex    → nothing: the Transfer is under 't'
//	'i' block txindex                        → the transaction's input (when not empty)
//	'h' token holder                         → nothing: holder received token
//	'k' addr token                           → nothing: addr sent or received token
//	'c' addr                                 → Counts
const (
	tableMarker   = 'm'
	tableBlock    = 'b'
	tableTx       = 'a'
	tableTransfer = 't'
	tableEmitted  = 'e'
	tableByToken  = 'y'
	tableInput    = 'i'
	tableHolder   = 'h'
	tableHolding  = 'k'
	tableCount    = 'c'
)

const (
	addrLen = common.AddressLength
	// txPosLen is a transaction's position: block and index in the block.
	txPosLen = 8 + 4
	// logPosLen is a log's position: its transaction's, and its index in the block.
	logPosLen = txPosLen + 4

	txKeyLen       = 1 + addrLen + txPosLen
	transferKeyLen = 1 + addrLen + logPosLen
	byTokenKeyLen  = 1 + 2*addrLen + logPosLen
	pairKeyLen     = 1 + 2*addrLen
)

var markerKey = []byte{tableMarker}

// appendTxPos appends a transaction's position.
func appendTxPos(dst []byte, block uint64, index uint32) []byte {
	dst = binary.BigEndian.AppendUint64(dst, block)
	return binary.BigEndian.AppendUint32(dst, index)
}

func appendLogPos(dst []byte, block uint64, index, log uint32) []byte {
	return binary.BigEndian.AppendUint32(appendTxPos(dst, block, index), log)
}

// prefixKey is a table byte followed by addresses: a history's prefix, or
// a pair's whole key.
func prefixKey(table byte, addrs ...common.Address) []byte {
	k := make([]byte, 1, 1+len(addrs)*addrLen+logPosLen)
	k[0] = table
	for _, a := range addrs {
		k = append(k, a[:]...)
	}
	return k
}

func txKey(addr common.Address, block uint64, index uint32) []byte {
	return appendTxPos(prefixKey(tableTx, addr), block, index)
}

func transferKey(addr common.Address, block uint64, index, log uint32) []byte {
	return appendLogPos(prefixKey(tableTransfer, addr), block, index, log)
}

func emittedKey(token common.Address, block uint64, index, log uint32) []byte {
	return appendLogPos(prefixKey(tableEmitted, token), block, index, log)
}

func byTokenKey(addr, token common.Address, block uint64, index, log uint32) []byte {
	return appendLogPos(prefixKey(tableByToken, addr, token), block, index, log)
}

func inputKey(block uint64, index uint32) []byte {
	return appendTxPos([]byte{tableInput}, block, index)
}

func blockKey(block uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tableBlock}, block)
}

// prefixEnd is the smallest key above every key that starts with prefix,
// nil when there is none (prefix is all 0xff).
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// The decoders take keys of their table's length, which the iterators'
// bounds guarantee.

func txPosOf(key []byte) (block uint64, index uint32) {
	pos := key[len(key)-txPosLen:]
	return binary.BigEndian.Uint64(pos), binary.BigEndian.Uint32(pos[8:])
}

func logPosOf(key []byte) (block uint64, index, log uint32) {
	pos := key[len(key)-logPosLen:]
	return binary.BigEndian.Uint64(pos), binary.BigEndian.Uint32(pos[8:]), binary.BigEndian.Uint32(pos[12:])
}

// lastAddr is the address that ends a pair key ('h' and 'k').
func lastAddr(key []byte) common.Address {
	return common.BytesToAddress(key[len(key)-addrLen:])
}
