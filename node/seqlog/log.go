package seqlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// ErrFenced is returned by Append when another writer appended to the log
// since this one last did: this writer is stale and must stop.
var ErrFenced = errors.New("sequencer log: another writer appended (fenced)")

// ErrTruncated is returned by Read and Follow when the entries asked for are
// no longer in the log (retention dropped them).
var ErrTruncated = errors.New("sequencer log: entries dropped by retention")

// ErrReader is returned by Append on a log opened with Config.Reader.
var ErrReader = errors.New("sequencer log: opened to read only (a replica does not append)")

// ErrUndecodable is what reading an entry that a sequencer signed (or
// that predates signatures) but that does not decode returns: a newer
// version's entry after a downgrade, or damage. Nothing can skip a
// sequencer's decision; Repair rebuilds the log without it.
var ErrUndecodable = errors.New("does not decode")

func undecodable(seq uint64, err error) error {
	return fmt.Errorf("sequencer log: entry %d %w: %w", seq, ErrUndecodable, err)
}

// ErrEmpty is returned by Last when the log holds no entry.
var ErrEmpty = errors.New("sequencer log: empty")

// Log is the sequencer's log on one JetStream stream. Append is for the one
// writer; any number of goroutines may read.
type Log struct {
	cfg       Config
	log       *slog.Logger
	server    *embedded // nil with an external cluster
	nc        *nats.Conn
	js        jetstream.JetStream
	stream    jetstream.Stream
	subject   string // prefix of the entries' subjects, with its trailing dot
	opened    Record
	signers   signers
	foreign   foreignWarnings
	createdMu sync.Mutex
	created   time.Time // the stream's, to notice it rebuilt (ErrRebuilt)

	writerID string // unique to this opening of the log, in its entries' IDs

	mu      sync.Mutex // serialises appends
	last    uint64     // the stream's last sequence as this writer knows it
	unsure  bool       // the last append failed without saying whether it was stored
	pending []byte     // its subject and payload, to recognise it
	closed  sync.Once
}

// Open starts the embedded server (or connects to the external cluster),
// creates the chain's stream if needed and learns its last entry: Opened
// reports it, and the first Append expects it to still be the last.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*Log, error) {
	cfg, err := cfg.withDefaults().withKeys()
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sequencer log: %w", err)
	}
	l := &Log{cfg: cfg, log: log, subject: subjectPrefix(cfg.ChainID), writerID: nuid.Next()}
	if err := l.connect(); err != nil {
		l.Close()
		return nil, err
	}
	if err := l.openStream(ctx); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func (l *Log) connect() error {
	name := "stocknode sequencer log"
	if l.cfg.Reader {
		name = "stocknode replica"
	}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	url := strings.Join(l.cfg.URLs, ",")
	if l.cfg.embedded() {
		srv, err := startServer(l.cfg, l.log)
		if err != nil {
			return err
		}
		l.server = srv
		opts = append(opts, nats.InProcessServer(srv.srv), nkeyAuth(l.cfg.Signer))
		url = ""
	} else {
		opts = append(opts, l.cfg.Connect...)
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return fmt.Errorf("sequencer log: connect to NATS %s: %w", url, err)
	}
	l.nc = nc
	if max := nc.MaxPayload(); max < int64(l.cfg.MaxEntryBytes) {
		return fmt.Errorf("sequencer log: the NATS server's max_payload is %d bytes, entries may be %d (MaxEntryBytes): raise max_payload", max, l.cfg.MaxEntryBytes)
	}
	l.js, err = jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("sequencer log: %w", err)
	}
	return nil
}

// openStream binds to the chain's stream, creating it when it is missing.
// An existing stream is used as it is: its storage, replicas and limits are
// what it was created with (a replica opening the sequencer's log must not
// reconfigure it; an operator changes them with the nats CLI). A writer
// lists its key among the stream's signers.
func (l *Log) openStream(ctx context.Context) error {
	sc := streamConfig(l.cfg)
	stream, err := l.js.Stream(ctx, sc.Name)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound) && l.cfg.Reader:
		stream, err = l.awaitStream(ctx, sc.Name)
	case errors.Is(err, jetstream.ErrStreamNotFound):
		stream, err = l.js.CreateStream(ctx, sc)
	}
	if err != nil {
		return fmt.Errorf("sequencer log: stream %s: %w", sc.Name, err)
	}
	l.stream = stream
	info, err := stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("sequencer log: stream %s: %w", sc.Name, err)
	}
	if l.cfg.Reader {
		err = l.signers.load(info.Config.Metadata)
	} else {
		err = l.enrolSigner(ctx, info)
	}
	if err != nil {
		return err
	}
	l.last, l.created = info.State.LastSeq, info.Created
	l.opened = Record{Seq: l.last}
	if info.State.Msgs == 0 {
		return nil
	}
	rec, err := l.lastGood(ctx, info.State.FirstSeq, l.last)
	if err != nil {
		return err
	}
	l.opened = rec
	return nil
}

// lastGood is the newest entry from first to last that a sequencer signed,
// walking back over foreign ones; a Record without Entry if there is none.
func (l *Log) lastGood(ctx context.Context, first, last uint64) (Record, error) {
	for seq := last; seq >= first && seq > 0; seq-- {
		rec, err := l.get(ctx, seq)
		switch {
		case errors.Is(err, ErrForeign):
			l.warnForeign(err)
		case err != nil && !errors.Is(err, jetstream.ErrMsgNotFound):
			return Record{}, err
		case err == nil:
			return rec, nil
		}
	}
	return Record{Seq: last}, nil
}

// awaitStream waits for the sequencer to create the stream: a replica may
// start first.
func (l *Log) awaitStream(ctx context.Context, name string) (jetstream.Stream, error) {
	l.log.Info("Waiting for the sequencer to create its log", "stream", name, "nats", l.nc.ConnectedUrlRedacted())
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no stream %s yet (is the sequencer running, on this chain?): %w", name, ctx.Err())
		case <-tick.C:
		}
		stream, err := l.js.Stream(ctx, name)
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return stream, err
		}
	}
}

// Conn is the log's NATS connection, for request-reply beside the log
// (node/relay).
func (l *Log) Conn() *nats.Conn { return l.nc }

// StreamName is the stream of a chain's log.
func StreamName(chainID uint64) string { return "STOCKNODE_" + strconv.FormatUint(chainID, 10) }

func subjectPrefix(chainID uint64) string {
	return "stocknode." + strconv.FormatUint(chainID, 10) + ".log."
}

func streamConfig(cfg Config) jetstream.StreamConfig {
	storage := jetstream.FileStorage
	if cfg.InMemory {
		storage = jetstream.MemoryStorage
	}
	return jetstream.StreamConfig{
		Name:         StreamName(cfg.ChainID),
		Description:  "stocknode sequencer log of chain " + strconv.FormatUint(cfg.ChainID, 10),
		Subjects:     []string{subjectPrefix(cfg.ChainID) + ">"},
		Retention:    jetstream.LimitsPolicy,
		Discard:      jetstream.DiscardOld,
		MaxBytes:     cfg.MaxBytes,
		MaxAge:       cfg.MaxAge,
		MaxMsgSize:   cfg.MaxEntryBytes,
		MaxMsgs:      -1,
		MaxConsumers: -1,
		Storage:      storage,
		Replicas:     cfg.Replicas,
		DenyDelete:   true,
		DenyPurge:    true,
		Metadata:     signerMetadata(cfg.Signer, 1),
	}
}

// Opened is the log's last entry when Open found it; its Entry is nil when
// the log was empty (Seq is then 0, or the sequence of the last entry that
// MaxAge dropped).
func (l *Log) Opened() Record { return l.opened }

// URL is where other machines reach the log: the embedded server's bound
// listener (Config.Listen, its port resolved), or the external server this
// log is connected to; empty for an embedded server without a listener.
func (l *Log) URL() string {
	if l.server != nil {
		return l.server.url(l.cfg)
	}
	return l.nc.ConnectedUrlRedacted()
}

// Append stores e after the last entry this writer knows of and returns its
// sequence once JetStream acknowledged it (on disk, and on a majority of
// the replicas). It fails with ErrFenced if another writer appended since.
// While JetStream cannot take the entry (no stream leader, a lost server)
// it tries again, for Config.OutageTimeout at most: a cluster that lost
// one server of three elects another leader within seconds, and the
// sequencer must outlast that, not stop.
//
// After any other error the entry may or may not be stored: retry Append
// with the same entry (it is then not stored twice), or stop.
func (l *Log) Append(ctx context.Context, e Entry) (uint64, error) {
	if l.cfg.Reader {
		return 0, ErrReader
	}
	p, err := l.prepare(e)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	seq, err := l.appendRetrying(ctx, p)
	if err == nil && l.cfg.ObserveAppend != nil {
		l.cfg.ObserveAppend(time.Since(start))
	}
	return seq, err
}

// AppendAll stores entries, in order, after the last entry this writer
// knows of, as Append stores each, in one round trip to JetStream: all are
// sent at once, each expecting the one before it as the stream's last, and
// then their acknowledgements are awaited. An entry that is not
// acknowledged, and those after it, are then settled one at a time as
// Append settles a failed append: found stored, or sent again. On an error
// the entries up to the failed one may be stored; retry AppendAll with the
// same entries (those stored are not stored twice), or stop.
func (l *Log) AppendAll(ctx context.Context, entries ...Entry) error {
	if l.cfg.Reader {
		return ErrReader
	}
	prepared := make([]preparedEntry, len(entries))
	for i, e := range entries {
		p, err := l.prepare(e)
		if err != nil {
			return err
		}
		prepared[i] = p
	}
	start := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	acked := 0
	if !l.unsure {
		acked = l.appendAtOnce(ctx, prepared)
	}
	for i, p := range prepared[acked:] {
		if i > 0 {
			// Sent after one that was not acknowledged: it may be stored.
			l.unsure, l.pending = true, p.key()
		}
		if _, err := l.appendRetrying(ctx, p); err != nil {
			return err
		}
	}
	if l.cfg.ObserveAppend != nil {
		l.cfg.ObserveAppend(time.Since(start))
	}
	return nil
}

// preparedEntry is an entry encoded for the log.
type preparedEntry struct {
	kind    Kind
	subject string
	data    []byte
}

// key is how a stored entry is recognised (resolve).
func (p preparedEntry) key() []byte { return append([]byte(p.subject+"\x00"), p.data...) }

func (l *Log) prepare(e Entry) (preparedEntry, error) {
	data, err := encodeEntry(e)
	if err != nil {
		return preparedEntry{}, err
	}
	return preparedEntry{kind: e.Kind(), subject: l.subject + e.Kind().String(), data: data}, nil
}

// appendAtOnce sends entries without waiting between them and returns how
// many, from the first, were acknowledged in order; l.last is the last of
// those. The first that is not is marked unsure, for appendRetrying to
// settle. The caller holds l.mu.
func (l *Log) appendAtOnce(ctx context.Context, entries []preparedEntry) int {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.AckTimeout)
	defer cancel()
	futures := make([]jetstream.PubAckFuture, 0, len(entries))
	for i, p := range entries {
		seq := l.last + 1 + uint64(i)
		msg, err := l.message(seq, p)
		if err != nil {
			break
		}
		opts := []jetstream.PublishOpt{jetstream.WithExpectLastSequence(seq - 1), jetstream.WithMsgID(l.entryID(seq))}
		if i > 0 {
			// Only after this writer's entry before it: when the one
			// before was refused (another writer appended meanwhile),
			// this one must not take the other's entry as its
			// predecessor.
			opts = append(opts, jetstream.WithExpectLastMsgID(l.entryID(seq-1)))
		}
		f, err := l.js.PublishMsgAsync(msg, opts...)
		if err != nil {
			break
		}
		futures = append(futures, f)
	}
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			if ack.Sequence == l.last+1 {
				l.last = ack.Sequence
				continue
			}
		case err := <-f.Err():
			if isWrongLastSeq(err) {
				// Refused, so not stored: appendRetrying meets the
				// entries that moved the log (another writer's, or
				// foreign ones it skips).
				return i
			}
		case <-ctx.Done():
		}
		// Not acknowledged as the next entry: it may be stored or not.
		l.unsure, l.pending = true, entries[i].key()
		return i
	}
	return len(futures) // the rest were never sent
}

// appendRetrying is Append's work under l.mu: attempts of p while the log
// is unavailable, for Config.OutageTimeout at most.
func (l *Log) appendRetrying(ctx context.Context, p preparedEntry) (uint64, error) {
	giveUp := time.Now().Add(l.cfg.OutageTimeout)
	for attempt := 1; ; attempt++ {
		seq, err := l.append(ctx, p.kind, p.subject, p.data)
		if err == nil || !transient(err) || ctx.Err() != nil || time.Now().After(giveUp) {
			if err == nil && attempt > 1 {
				l.log.Info("Sequencer log available again", "kind", p.kind, "seq", seq, "attempts", attempt)
			}
			return seq, err
		}
		if attempt == 1 {
			l.log.Warn("Sequencer log unavailable, retrying the append", "kind", p.kind, "for", l.cfg.OutageTimeout, "err", err)
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(outageRetryWait):
		}
	}
}

// outageRetryWait is the pause between attempts of an append while the
// log is unavailable: short, as a replicated stream has a new leader
// within moments of a server's graceful exit.
const outageRetryWait = 50 * time.Millisecond

// append makes one attempt, bounded by AckTimeout.
func (l *Log) append(ctx context.Context, kind Kind, subject string, data []byte) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.AckTimeout)
	defer cancel()
	if l.unsure {
		seq, done, err := l.resolve(ctx, subject, data)
		if err != nil || done {
			return seq, err
		}
	}
	msg, err := l.message(l.last+1, preparedEntry{kind: kind, subject: subject, data: data})
	if err != nil {
		return 0, err
	}
	ack, err := l.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequence(l.last), jetstream.WithMsgID(l.entryID(l.last+1)))
	switch {
	case isWrongLastSeq(err) && l.skipForeign(ctx):
		return l.append(ctx, kind, subject, data)
	case isWrongLastSeq(err):
		return 0, fmt.Errorf("append %v after sequence %d: %w", kind, l.last, ErrFenced)
	case err != nil:
		l.unsure, l.pending = true, append([]byte(subject+"\x00"), data...)
		return 0, fmt.Errorf("append %v after sequence %d: %w", kind, l.last, err)
	}
	l.last = ack.Sequence
	return ack.Sequence, nil
}

// message is p signed as the entry of sequence seq.
func (l *Log) message(seq uint64, p preparedEntry) (*nats.Msg, error) {
	hdr, err := sign(l.cfg.Signer, seq, p.subject, p.data)
	if err != nil {
		return nil, err
	}
	return &nats.Msg{Subject: p.subject, Data: p.data, Header: hdr}, nil
}

// entryID is the ID of this writer's entry of sequence seq: its writer
// (this opening of the log: two sequencers with one key are still two
// writers) and place. An attempt again of an entry stored late is
// acknowledged as the duplicate it is.
func (l *Log) entryID(seq uint64) string { return l.writerID + ":" + strconv.FormatUint(seq, 10) }

// transient reports an append's failure that a later attempt may not meet:
// no answer (no stream leader while the replicas elect one, a request lost
// with its server), no responder, the connection moving to another server,
// or JetStream saying it is temporarily unavailable. A closed connection,
// a fenced writer or a refused entry are not.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, ErrFenced), errors.Is(err, nats.ErrConnectionClosed):
		return false
	case errors.As(err, &apiErr):
		// 503: JSClusterNotAvailErr and kin; 10158: the attempt before
		// is still being stored, and the next will be acknowledged as its
		// duplicate.
		return apiErr.Code == 503 || apiErr.ErrorCode == errCodeDuplicateInProcess
	}
	return errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrDisconnected)
}

// resolve finds out whether the append that failed was stored. done reports
// that it was, and that it was this very entry: seq is then its sequence.
func (l *Log) resolve(ctx context.Context, subject string, data []byte) (seq uint64, done bool, err error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("sequencer log: learn whether the failed append was stored: %w", err)
	}
	switch last := info.State.LastSeq; {
	case last == l.last:
		l.unsure = false
		return 0, false, nil
	case last > l.last:
		// The entry after the last this writer knows of: the failed one,
		// or another writer's. Entries after it are the failed one's
		// followers in an AppendAll, or another writer's, which the next
		// append meets.
		next := l.last + 1
		msg, err := l.stream.GetMsg(ctx, next)
		if err != nil {
			return 0, false, fmt.Errorf("sequencer log: learn whether the failed append was stored: %w", err)
		}
		stored := append([]byte(msg.Subject+"\x00"), msg.Data...)
		if !bytes.Equal(stored, l.pending) {
			return 0, false, fmt.Errorf("entry %d is not the one this writer failed to append: %w", next, ErrFenced)
		}
		l.unsure, l.last = false, next
		return next, bytes.Equal(stored, append([]byte(subject+"\x00"), data...)), nil
	default:
		return 0, false, fmt.Errorf("log moved back from sequence %d to %d: %w", l.last, last, ErrFenced)
	}
}

// errCodeDuplicateInProcess is JetStream's "duplicate message id is in
// process" (nats-server's JSStreamDuplicateMessageConflict).
const errCodeDuplicateInProcess = 10158

func isWrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// Last returns the newest entry; ErrEmpty if there is none.
func (l *Log) Last(ctx context.Context) (Record, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return Record{}, fmt.Errorf("sequencer log: %w", err)
	}
	if info.State.Msgs == 0 {
		return Record{}, ErrEmpty
	}
	return l.get(ctx, info.State.LastSeq)
}

// LastOf returns the newest entry of a kind (the last sealed block, say)
// that a sequencer signed; ErrEmpty if the log holds none.
func (l *Log) LastOf(ctx context.Context, k Kind) (Record, error) {
	subject := l.subject + k.String()
	msg, err := l.stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Record{}, ErrEmpty
	}
	if err != nil {
		return Record{}, fmt.Errorf("sequencer log: last %s entry: %w", k, err)
	}
	rec, err := l.record(ctx, msg)
	for seq := msg.Sequence; errors.Is(err, ErrForeign); {
		l.warnForeign(err)
		if rec, seq, err = l.previousOf(ctx, subject, seq); seq == 0 && err == nil {
			return Record{}, ErrEmpty
		}
	}
	return rec, err
}

// previousOf reads back from before seq to the entry on subject before it;
// seq 0 when there is none.
func (l *Log) previousOf(ctx context.Context, subject string, seq uint64) (Record, uint64, error) {
	for seq--; seq > 0; seq-- {
		msg, err := l.stream.GetMsg(ctx, seq)
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return Record{}, 0, nil // before the log's first entry
		case err != nil:
			return Record{}, seq, fmt.Errorf("sequencer log: entry %d: %w", seq, err)
		case msg.Subject == subject:
			rec, err := l.record(ctx, msg)
			return rec, seq, err
		}
	}
	return Record{}, 0, nil
}

// Get returns the entry of sequence seq; a *ForeignError if no sequencer
// signed it.
func (l *Log) Get(ctx context.Context, seq uint64) (Record, error) { return l.get(ctx, seq) }

func (l *Log) get(ctx context.Context, seq uint64) (Record, error) {
	msg, err := l.stream.GetMsg(ctx, seq)
	if err != nil {
		return Record{}, fmt.Errorf("sequencer log: entry %d: %w", seq, err)
	}
	return l.record(ctx, msg)
}

// record verifies and decodes a stored message.
func (l *Log) record(ctx context.Context, msg *jetstream.RawStreamMsg) (Record, error) {
	if err := l.verify(ctx, msg.Sequence, msg.Subject, msg.Data, msg.Header); err != nil {
		return Record{}, err
	}
	e, err := l.decode(msg.Subject, msg.Data)
	if err != nil {
		return Record{}, undecodable(msg.Sequence, err)
	}
	return Record{Seq: msg.Sequence, Time: msg.Time, Entry: e}, nil
}

func (l *Log) decode(subject string, data []byte) (Entry, error) {
	name, ok := strings.CutPrefix(subject, l.subject)
	if !ok {
		return nil, fmt.Errorf("subject %q is not under %s", subject, l.subject)
	}
	k, ok := kindOf(name)
	if !ok {
		return nil, fmt.Errorf("subject %q: unknown entry kind %q", subject, name)
	}
	return decodeEntry(k, data)
}

// Info is the log's extent.
type Info struct {
	FirstSeq, LastSeq uint64
	Entries           uint64
	Bytes             uint64
}

// Info reports the log's extent.
func (l *Log) Info(ctx context.Context) (Info, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return Info{}, fmt.Errorf("sequencer log: %w", err)
	}
	s := info.State
	return Info{FirstSeq: s.FirstSeq, LastSeq: s.LastSeq, Entries: s.Msgs, Bytes: s.Bytes}, nil
}

// SetUsers replaces the embedded server's users (Config.Users): a replica
// admitted, or one removed, whose connections are then closed.
func (l *Log) SetUsers(users []*server.NkeyUser) error {
	if l.server == nil {
		return errors.New("sequencer log: an external NATS server's users are its own configuration")
	}
	if !(Config{Users: users}).admits(l.cfg.Signer) {
		return errors.New("sequencer log: the new users do not admit the sequencer's own key")
	}
	return l.server.setUsers(users)
}

// Close disconnects and, for the embedded server, shuts it down and waits
// until its store is closed.
func (l *Log) Close() {
	l.closed.Do(func() {
		if l.nc != nil {
			l.nc.Close()
		}
		if l.server != nil {
			l.server.shutdown()
		}
	})
}

// Resync makes the stream's last entry the one the next Append expects,
// and returns its sequence: a standby that took the lead (app's --ha)
// appends after what it has read, not after what the stream held when it
// opened. Whoever appends after that is fenced, this writer included.
func (l *Log) Resync(ctx context.Context) (uint64, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("sequencer log: stream %s: %w", StreamName(l.cfg.ChainID), err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last, l.unsure, l.pending = info.State.LastSeq, false, nil
	return l.last, nil
}
