package seqlog

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A repair rebuilds the log without the entries that trouble its readers:
// those no sequencer signed (skipped anyway, but they stay in the stream
// and in every reader's warnings) and those that do not decode (a newer
// version's entry after a downgrade, damage), which stop a sequencer and
// its replicas. Every other entry is kept, in order, from the log's first
// sequence on, so a replica at any head still finds the sealed blocks it
// needs; each is signed again by the sequencer for its (possibly new)
// sequence. The stream denies deleting entries, so the repair saves the
// good entries to a file, deletes the stream, creates it again with the
// same configuration and appends them; a repair that stops half way is
// completed by the next from that file.

// ErrRebuilt is what a reader returns when the stream it read was rebuilt
// (by a repair) under it: its sequences may now name other entries, so
// the reader must find its place again (node/replica does, by block). The
// log has taken the new stream on: Read and Follow read it.
var ErrRebuilt = errors.New("sequencer log: the stream was rebuilt (stocknode log-repair); find the place to read from again")

// checkRebuilt reports ErrRebuilt, once, when the stream is not the one
// the log last saw, and takes the new one on (its creation time, its
// signers).
func (l *Log) checkRebuilt(ctx context.Context) error { return l.compareCreated(ctx, false) }

// rebuilt is checkRebuilt that also fails when the stream does not answer.
func (l *Log) rebuilt(ctx context.Context) error { return l.compareCreated(ctx, true) }

func (l *Log) compareCreated(ctx context.Context, mustAnswer bool) error {
	info, err := l.stream.Info(ctx)
	switch {
	case err != nil && mustAnswer:
		return err
	case err != nil:
		return nil // the consumer's creation will say why
	}
	l.createdMu.Lock()
	defer l.createdMu.Unlock()
	if info.Created.Equal(l.created) {
		return nil
	}
	l.created = info.Created
	if err := l.signers.load(info.Config.Metadata); err != nil {
		return err
	}
	return ErrRebuilt
}

// WaitRebuilt waits until the stream is rebuilt (a reader stopped at an
// entry it cannot decode waits for the repair), checking every interval.
func (l *Log) WaitRebuilt(ctx context.Context, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if err := l.checkRebuilt(ctx); errors.Is(err, ErrRebuilt) {
			return nil
		}
	}
}

// RepairReport is what a repair found and did.
type RepairReport struct {
	Entries uint64     // the log's entries before
	Dropped []BadEntry // the entries left out
	Kept    uint64     // the entries the rebuilt log holds
	Resumed bool       // an interrupted repair was completed
	Rebuilt bool       // the stream was rebuilt (false: nothing to repair, or a dry run)
	Stream  string     // the stream's name
	First   uint64     // the rebuilt log's first sequence
}

// BadEntry is an entry a repair leaves out, and why.
type BadEntry struct {
	Seq     uint64
	Subject string
	Reason  string
}

// Repair checks the log of cfg (the sequencer's configuration, its Signer
// the sequencer's key) and, unless dryRun, rebuilds it without its bad
// entries, saving them first to the file work. The sequencer must not run.
func Repair(ctx context.Context, cfg Config, work string, dryRun bool, log *slog.Logger) (RepairReport, error) {
	if cfg.Signer == nil {
		return RepairReport{}, errors.New("sequencer log: a repair signs the kept entries again: it needs the sequencer's key")
	}
	signer, err := deriveKey(cfg.Signer)
	if err != nil {
		return RepairReport{}, fmt.Errorf("sequencer log: %w", err)
	}
	cfg.Signer = signer
	if cfg.embedded() {
		// This process alone runs the server, without a listener: its
		// own connection may do everything, the stream's deletion too.
		pub, _ := cfg.Signer.PublicKey()
		cfg.Listen, cfg.ListenTLS, cfg.Users = "", nil, []*server.NkeyUser{{Nkey: pub}}
	}
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return RepairReport{}, fmt.Errorf("sequencer log: %w", err)
	}
	l := &Log{cfg: cfg, log: log, subject: subjectPrefix(cfg.ChainID)}
	defer l.Close()
	if err := l.connect(); err != nil {
		return RepairReport{}, err
	}
	saved, err := readSaved(work)
	switch {
	case err == nil:
		return l.rebuild(ctx, saved, work, RepairReport{Resumed: true})
	case !errors.Is(err, fs.ErrNotExist):
		return RepairReport{}, err
	}
	saved, rep, err := l.scan(ctx)
	if err != nil || len(rep.Dropped) == 0 || dryRun {
		return rep, err
	}
	if err := writeSaved(work, saved); err != nil {
		return rep, err
	}
	return l.rebuild(ctx, saved, work, rep)
}

// savedLog is the good entries of a log and the stream they go back to.
type savedLog struct {
	Config  jetstream.StreamConfig `json:"config"`
	First   uint64                 `json:"first"`
	Entries uint64                 `json:"entries"`
	entries []savedEntry
}

type savedEntry struct {
	subject string
	data    []byte
}

// scan reads every entry and sorts the good from the bad.
func (l *Log) scan(ctx context.Context) (*savedLog, RepairReport, error) {
	name := StreamName(l.cfg.ChainID)
	rep := RepairReport{Stream: name}
	stream, err := l.js.Stream(ctx, name)
	if err != nil {
		return nil, rep, fmt.Errorf("sequencer log: stream %s: %w", name, err)
	}
	l.stream = stream
	info, err := stream.Info(ctx)
	if err != nil {
		return nil, rep, fmt.Errorf("sequencer log: stream %s: %w", name, err)
	}
	if err := l.signers.load(info.Config.Metadata); err != nil {
		return nil, rep, err
	}
	s := &savedLog{Config: info.Config, First: max(info.State.FirstSeq, 1)}
	rep.Entries, rep.First = info.State.Msgs, s.First
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, rep, fmt.Errorf("sequencer log: entry %d: %w", seq, err)
		}
		if _, err := l.record(ctx, msg); err != nil {
			rep.Dropped = append(rep.Dropped, BadEntry{Seq: seq, Subject: msg.Subject, Reason: err.Error()})
			continue
		}
		s.entries = append(s.entries, savedEntry{subject: msg.Subject, data: msg.Data})
	}
	s.Entries = uint64(len(s.entries))
	rep.Kept = s.Entries
	return s, rep, nil
}

// rebuild deletes the stream, creates it again as it was and appends the
// saved entries, signed for their sequences; then removes the file.
func (l *Log) rebuild(ctx context.Context, s *savedLog, work string, rep RepairReport) (RepairReport, error) {
	rep.Stream, rep.First, rep.Kept = s.Config.Name, s.First, s.Entries
	if err := l.js.DeleteStream(ctx, s.Config.Name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return rep, fmt.Errorf("sequencer log: delete stream %s to rebuild it (the NATS user needs $JS.API.STREAM.DELETE): %w", s.Config.Name, err)
	}
	cfg := s.Config
	cfg.FirstSeq = s.First
	cfg.Metadata = signerMetadata(l.cfg.Signer, s.First)
	stream, err := l.createAgain(ctx, cfg)
	if err != nil {
		return rep, fmt.Errorf("sequencer log: create stream %s again (the saved entries stay in %s; run the repair again): %w", cfg.Name, work, err)
	}
	l.stream = stream
	if err := l.appendSaved(ctx, s); err != nil {
		return rep, fmt.Errorf("%w (the saved entries stay in %s; run the repair again)", err, work)
	}
	if err := os.Remove(work); err != nil {
		return rep, fmt.Errorf("sequencer log: rebuilt; remove %s: %w", work, err)
	}
	rep.Rebuilt = true
	return rep, nil
}

// createAgain creates the deleted stream anew. nats-server, enabling an
// account's JetStream while its streams directory is missing, creates and
// then removes that directory and the account's (server/jetstream.go); a
// create that races it fails with "could not create storage directory".
// Nothing was created then, so a few tries a moment apart are safe.
func (l *Log) createAgain(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	const tries = 5
	for i := 1; ; i++ {
		stream, err := l.js.CreateStream(ctx, cfg)
		if err == nil || i == tries {
			return stream, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// repairWindow is how many appends a rebuild has in flight.
const repairWindow = 256

// appendSaved appends the saved entries in order, each expecting its
// predecessor, with a window of acknowledgements outstanding.
func (l *Log) appendSaved(ctx context.Context, s *savedLog) error {
	acks := make([]jetstream.PubAckFuture, 0, repairWindow)
	wait := func() error {
		for _, a := range acks {
			select {
			case <-a.Ok():
			case err := <-a.Err():
				return fmt.Errorf("sequencer log: append a kept entry: %w", err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		acks = acks[:0]
		return nil
	}
	for i, e := range s.entries {
		seq := s.First + uint64(i)
		hdr, err := sign(l.cfg.Signer, seq, e.subject, e.data)
		if err != nil {
			return err
		}
		a, err := l.js.PublishMsgAsync(&nats.Msg{Subject: e.subject, Data: e.data, Header: hdr}, jetstream.WithExpectLastSequence(seq-1))
		if err != nil {
			return fmt.Errorf("sequencer log: append a kept entry: %w", err)
		}
		if acks = append(acks, a); len(acks) == repairWindow {
			if err := wait(); err != nil {
				return err
			}
		}
	}
	return wait()
}

// The saved file: a JSON line (savedLog), then per entry the subject's and
// the payload's lengths (4 bytes each, big-endian) and bytes. It is
// written to work+".partial" and renamed when complete and synced, so
// that the file work is always whole.

func writeSaved(work string, s *savedLog) error {
	tmp := work + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("sequencer log: save the good entries: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	head, err := json.Marshal(s)
	if err != nil {
		return err
	}
	w.Write(append(head, '\n'))
	for _, e := range s.entries {
		var n [8]byte
		binary.BigEndian.PutUint32(n[:4], uint32(len(e.subject)))
		binary.BigEndian.PutUint32(n[4:], uint32(len(e.data)))
		w.Write(n[:])
		w.WriteString(e.subject)
		w.Write(e.data)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("sequencer log: save the good entries: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sequencer log: save the good entries: %w", err)
	}
	if err := os.Rename(tmp, work); err != nil {
		return fmt.Errorf("sequencer log: save the good entries: %w", err)
	}
	return nil
}

func readSaved(work string) (*savedLog, error) {
	f, err := os.Open(work)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("sequencer log: saved entries %s: %w", work, err)
	}
	s := new(savedLog)
	if err := json.Unmarshal(head, s); err != nil {
		return nil, fmt.Errorf("sequencer log: saved entries %s: %w", work, err)
	}
	for range s.Entries {
		var n [8]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return nil, fmt.Errorf("sequencer log: saved entries %s: %w", work, err)
		}
		buf := make([]byte, binary.BigEndian.Uint32(n[:4])+binary.BigEndian.Uint32(n[4:]))
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("sequencer log: saved entries %s: %w", work, err)
		}
		cut := binary.BigEndian.Uint32(n[:4])
		s.entries = append(s.entries, savedEntry{subject: string(buf[:cut]), data: buf[cut:]})
	}
	return s, nil
}
