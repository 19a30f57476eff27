package chain

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb"
)

// GCMode says which states the chain keeps on disk, in geth's words. It is
// a flag.Value, so that --gcmode parses straight into it.
type GCMode string

const (
	// GCArchive keeps the state of every block: go-ethereum's hash scheme,
	// every block's trie committed to disk.
	GCArchive GCMode = "archive"
	// GCFull keeps the states that recent reads need and prunes the rest:
	// go-ethereum's path scheme, 128 states in memory over one on disk, and
	// reverse state diffs of a window of blocks (StateHistory) that keep the
	// window's states readable.
	GCFull GCMode = "full"
)

// DefaultGCMode is the mode of a new datadir when none is given. Full: a
// third of archive's disk at the same sealing speed, for a restart after a
// crash that replays at most 129 blocks (PERFORMANCE.md, "Disk growth and
// crash recovery by gc mode").
const DefaultGCMode = GCFull

// DefaultStateHistory is the window of blocks whose states a full node keeps
// readable: geth's default (90,000 blocks). At five blocks a second that is
// five hours, long enough for a client, explorer or indexer that fell behind
// to catch up with historical eth_call; its reverse diffs are about 23 MB on
// an idle chain (260 bytes a block), 130 MB at 200 transfers a second.
const DefaultStateHistory = 90_000

// ErrStatePruned is the error of a read of a state that a full node no
// longer keeps.
var ErrStatePruned = errors.New("state not available: pruned")

// String implements flag.Value.
func (m *GCMode) String() string { return string(*m) }

// Set implements flag.Value.
func (m *GCMode) Set(s string) error {
	switch mode := GCMode(s); mode {
	case GCFull, GCArchive:
		*m = mode
		return nil
	}
	return fmt.Errorf("gc mode %q: want %q or %q", s, GCFull, GCArchive)
}

// scheme is the go-ethereum state scheme the mode stores states with.
func (m GCMode) scheme() string {
	if m == GCArchive {
		return rawdb.HashScheme
	}
	return rawdb.PathScheme
}

// modeOf is the mode a state scheme stores states in.
func modeOf(scheme string) GCMode {
	if scheme == rawdb.HashScheme {
		return GCArchive
	}
	return GCFull
}

// resolveGCMode decides the mode to open db in: the one it was created
// with, which a requested mode must match (a datadir keeps its scheme, as
// in geth), or for an empty database the requested mode or the default.
func resolveGCMode(db ethdb.Database, requested GCMode) (GCMode, error) {
	stored := rawdb.ReadStateScheme(db)
	if stored == "" {
		if requested == "" {
			return DefaultGCMode, nil
		}
		return requested, nil
	}
	have := modeOf(stored)
	if requested == "" || requested == have {
		return have, nil
	}
	return "", &ModeMismatchError{Have: have, Requested: requested}
}

// ModeMismatchError is the error of opening a database with a gc mode other
// than the one it was created with.
type ModeMismatchError struct {
	Have, Requested GCMode
}

func (e *ModeMismatchError) Error() string {
	if e.Have == GCArchive {
		return "it holds an archive-mode chain (hash scheme: the state of every block on disk) and cannot run with --gcmode full: " +
			"start it with --gcmode archive (or without --gcmode), or export it (stocknode export) and import the file into a new --datadir with --gcmode full"
	}
	return "it holds a full-mode chain (path scheme: old states pruned) and cannot run with --gcmode archive, the pruned states are gone: " +
		"start it with --gcmode full (or without --gcmode), or export it (stocknode export) and import the file into a new --datadir with --gcmode archive, which re-executes every block"
}
