// Package seqlog is the sequencer's log: every decision the sequencer makes
// (a block opened, a pre-confirmation tick, a block sealed, a transaction
// accepted) appended in order to a NATS JetStream stream and acknowledged
// before it is announced, so that a pre-confirmation survives a crash and
// read replicas can follow the sequencer.
//
// # Deployments
//
// One code path serves three deployments (see Config): an in-process
// JetStream server with no TCP listener (the default; file storage under
// <datadir>/nats, or memory for --dev), the same server exposed on a TCP
// address for replicas, or an external NATS cluster with the stream
// replicated 1, 3 or 5 times. The embedded server syncs every write
// (nats-server's sync_interval: always, server.Options.SyncAlways): an
// acknowledged entry is on disk, and survives kill -9 and power loss. On a
// cluster an entry is acknowledged once a majority of the replicas stored it.
//
// # Stream and subjects
//
// One stream per chain, STOCKNODE_<chainID>, holds the subjects
// stocknode.<chainID>.log.<kind>, one kind per entry type: opened,
// preconfirmed, sealed, accepted. Entries are RLP; the subject carries the
// kind. The stream keeps entries by limits (no consumer acknowledges them
// away), discards the oldest when full, and denies deleting and purging: its
// sequence numbers are contiguous from its first entry, so a reader that
// sees a gap knows retention dropped what it asked for (ErrTruncated).
//
// Read replicas (node/replica) read the stream with ordered consumers and
// send what they cannot do themselves (transactions, faucet drips) to the
// sequencer by request-reply on stocknode.<chainID>.relay.*, outside the
// stream (node/relay). A reader opens the log with Config.Reader: it never
// creates the stream and cannot append.
//
// # One writer
//
// Every append expects the sequence it last saw to still be the stream's
// last (JetStream's Nats-Expected-Last-Sequence). A second sequencer that
// appended since makes this one's next append fail with ErrFenced: the
// stale sequencer stops instead of forking the log.
//
// # Retention and sizes
//
// Measured sizes as stored (payload plus about 110 bytes of subject and
// record framing): an Opened entry 266 bytes; a Preconfirmed tick that
// executed nothing 127 bytes, of 50 transfers 5.9 KB; a Sealed empty block
// 772 bytes, of 1,000 transfers 120 KB. A transfer costs about 230 bytes in
// all, once pre-confirmed and once sealed.
//
//   - Idle, 200 ms blocks: about 1 KB per block (opened and sealed, more
//     if empty ticks are logged), 432,000 blocks a day: about 450 MB a
//     day, 3.1 GB a week.
//   - Under a 5,000 transfers/s flood: about 1.2 MB/s, 4 GB an hour.
//
// The defaults, MaxAge 7 days and MaxBytes 16 GiB (512 MiB in memory),
// keep a week of a mostly idle preview chain, so a replica started empty
// catches up from genesis through the log for a week after the chain
// started (or the log was created); after that, or after more than about
// four hours of sustained flood, a replica starts from a copy of another
// node's datadir and follows from its head. Entries are at most
// MaxEntryBytes (8 MiB by default: go-ethereum's largest block, and the
// largest payload NATS recommends); an external server's max_payload must
// allow as much.
//
// # File descriptors
//
// JetStream's file store keeps one descriptor open per stream (the message
// block being written; blocks are 8 MB) and opens older blocks only
// while reading them. The embedded server without a listener uses no
// socket; with one, it holds the listener and one socket per client.
package seqlog
