package index

import (
	"fmt"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/common"
)

// Snapshot is the index as of one moment: all its reads see the same
// blocks, the genesis to Indexed, whatever Run writes meanwhile. A page
// that reads several things (counts, a page of history, holdings) reads
// them through one Snapshot and adds what the chain sealed above Indexed
// itself: read one by one, the index could move between the reads, and
// the page count a block twice or not at all.
//
// A Snapshot holds off Close of the index until it is closed; do not call
// the Index's own read methods while holding one (Close waiting between
// the two would deadlock them).
type Snapshot struct {
	x       *Index
	snap    *pebble.Snapshot
	indexed uint64
	ok      bool
}

// Snapshot takes a snapshot of the index; Close it when done.
func (x *Index) Snapshot() (*Snapshot, error) {
	if err := x.acquire(); err != nil {
		return nil, err
	}
	snap := x.db.NewSnapshot()
	// The marker is written in each block's batch: read from the same
	// snapshot, it names exactly the blocks the snapshot holds.
	m, _, err := readMarker(snap)
	if err != nil {
		snap.Close()
		x.release()
		return nil, err
	}
	return &Snapshot{x: x, snap: snap, indexed: m.number, ok: m.ok}, nil
}

// Indexed reports the last block the snapshot holds; ok is false when it
// holds none (a new index, or one being rebuilt).
func (s *Snapshot) Indexed() (number uint64, ok bool) { return s.indexed, s.ok }

// Close releases the snapshot.
func (s *Snapshot) Close() error {
	defer s.x.release()
	if err := s.snap.Close(); err != nil {
		return fmt.Errorf("close address index snapshot: %w", err)
	}
	return nil
}

func (s *Snapshot) reads() reads { return reads{s.snap} }

// Transactions is Index.Transactions as of the snapshot.
func (s *Snapshot) Transactions(addr common.Address, before Cursor, limit int) ([]Tx, Cursor, error) {
	return s.reads().transactions(addr, before, limit)
}

// Transfers is Index.Transfers as of the snapshot.
func (s *Snapshot) Transfers(addr common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	return s.reads().transfers(addr, before, limit)
}

// TokenTransfers is Index.TokenTransfers as of the snapshot.
func (s *Snapshot) TokenTransfers(token common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	return s.reads().tokenTransfers(token, before, limit)
}

// Counts is Index.Counts as of the snapshot.
func (s *Snapshot) Counts(addr common.Address) (Counts, error) { return s.reads().counts(addr) }

// Tokens is Index.Tokens as of the snapshot.
func (s *Snapshot) Tokens(addr, after common.Address, limit int) ([]common.Address, error) {
	return s.reads().pairs(tableHolding, addr, after, limit)
}

// Holders is Index.Holders as of the snapshot.
func (s *Snapshot) Holders(token, after common.Address, limit int) ([]common.Address, error) {
	return s.reads().pairs(tableHolder, token, after, limit)
}
