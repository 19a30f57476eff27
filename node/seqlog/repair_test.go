package seqlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// damagedLog writes, in dir, ticks 1 and 2, an entry no sequencer signed,
// tick 4, an entry the sequencer signed that does not decode (as a newer
// version's would not), and tick 6; then closes the log.
func damagedLog(t *testing.T, dir string, signer nkeys.KeyPair) {
	t.Helper()
	l, x := openWithIntruder(t, dir, signer)
	mustAppend(t, l, tick(1))
	mustAppend(t, l, tick(2))
	x.publish(&nats.Msg{Subject: l.subject + "preconfirmed", Data: []byte{1, 2, 3}})
	if seq := mustAppend(t, l, tick(4)); seq != 4 {
		t.Fatalf("tick 4 at %d", seq)
	}
	hdr, err := sign(signer, 5, l.subject+"sealed", []byte{0xc1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.js.PublishMsg(context.Background(), &nats.Msg{Subject: l.subject + "sealed", Data: []byte{0xc1}, Header: hdr}, jetstream.WithExpectLastSequence(4)); err != nil {
		t.Fatal(err)
	}
	l.last = 5
	mustAppend(t, l, tick(6))
	l.Close()
}

// TestRepair: a dry run lists the bad entries and changes nothing; a
// repair keeps every good entry, in order from the log's first sequence,
// signed for its new place, in a stream configured as before.
func TestRepair(t *testing.T) {
	dir, signer := t.TempDir(), newSigner(t)
	damagedLog(t, dir, signer)
	cfg := Config{ChainID: testChainID, Dir: dir, Signer: signer}
	work := filepath.Join(t.TempDir(), "repair")

	rep, err := Repair(context.Background(), cfg, work, true, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entries != 6 || rep.Kept != 4 || rep.Rebuilt || len(rep.Dropped) != 2 || rep.Dropped[0].Seq != 3 || rep.Dropped[1].Seq != 5 {
		t.Fatalf("dry run: %+v, want entries 3 and 5 dropped of 6, nothing rebuilt", rep)
	}
	if _, err := os.Stat(work); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run left %s: %v", work, err)
	}

	rep, err = Repair(context.Background(), cfg, work, false, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Rebuilt || rep.Kept != 4 || rep.First != 1 {
		t.Fatalf("repair: %+v", rep)
	}
	l := openTest(t, cfg)
	var got []Entry
	for _, rec := range readAll(t, l, 1) {
		got = append(got, rec.Entry)
	}
	want := []Entry{tick(1), tick(2), tick(4), tick(6)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rebuilt log: %+v, want %+v", got, want)
	}
	info := l.stream.CachedInfo()
	if !info.Config.DenyDelete || !info.Config.DenyPurge || info.Config.MaxAge != DefaultMaxAge {
		t.Errorf("rebuilt stream's configuration %+v, want the original's", info.Config)
	}
	if seq := mustAppend(t, l, tick(5)); seq != 5 {
		t.Errorf("the sequencer appends at %d after the repair, want 5", seq)
	}
}

// TestRepairResumes: a repair stopped after it deleted the stream is
// completed by the next one, from the saved entries.
func TestRepairResumes(t *testing.T) {
	dir, signer := t.TempDir(), newSigner(t)
	damagedLog(t, dir, signer)
	cfg := Config{ChainID: testChainID, Dir: dir, Signer: signer}
	work := filepath.Join(t.TempDir(), "repair")

	// The first repair's scan and save, then its stop right after the
	// stream's deletion.
	l := &Log{cfg: cfg.withDefaults(), log: testLogger(t), subject: subjectPrefix(testChainID)}
	pub, _ := signer.PublicKey()
	l.cfg.Users = []*server.NkeyUser{{Nkey: pub}}
	if err := l.connect(); err != nil {
		t.Fatal(err)
	}
	saved, _, err := l.scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := writeSaved(work, saved); err != nil {
		t.Fatal(err)
	}
	if err := l.js.DeleteStream(context.Background(), StreamName(testChainID)); err != nil {
		t.Fatal(err)
	}
	l.Close()

	rep, err := Repair(context.Background(), cfg, work, false, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || !rep.Rebuilt || rep.Kept != 4 {
		t.Fatalf("resumed repair: %+v", rep)
	}
	checkRecords := readAll(t, openTest(t, cfg), 1)
	if len(checkRecords) != 4 || !reflect.DeepEqual(checkRecords[3].Entry, tick(6)) {
		t.Fatalf("log after the resumed repair: %d entries", len(checkRecords))
	}
}

// TestFollowNoticesRebuild: a reader whose stream was rebuilt under it
// says so (ErrRebuilt) instead of reading other entries at its sequences,
// and reads the new stream afterwards.
func TestFollowNoticesRebuild(t *testing.T) {
	dir, signer := t.TempDir(), newSigner(t)
	l, x := openWithIntruder(t, dir, signer)
	mustAppend(t, l, tick(1))
	r := openTest(t, Config{URLs: []string{l.URL()}, Reader: true, Connect: connectAs(x.key)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 1)
	first := make(chan Record, 1)
	go func() {
		for rec, err := range r.Follow(ctx, 1) {
			if err != nil {
				errs <- err
				return
			}
			first <- rec
		}
	}()
	if rec := <-first; rec.Seq != 1 {
		t.Fatalf("followed %d first", rec.Seq)
	}
	// A repair's rebuild: the stream deleted and created again, holding
	// other entries at the same sequences.
	cfg := l.stream.CachedInfo().Config
	if err := x.js.DeleteStream(ctx, cfg.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := x.js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	hdr, err := sign(signer, 1, l.subject+"preconfirmed", mustEncode(t, tick(9)))
	if err != nil {
		t.Fatal(err)
	}
	x.publish(&nats.Msg{Subject: l.subject + "preconfirmed", Data: mustEncode(t, tick(9)), Header: hdr})
	select {
	case err := <-errs:
		if !errors.Is(err, ErrRebuilt) {
			t.Fatalf("follower's error after the rebuild: %v, want ErrRebuilt", err)
		}
	case rec := <-first:
		t.Fatalf("followed entry %d %+v of the rebuilt stream as if nothing happened", rec.Seq, rec.Entry)
	}
	for rec, err := range r.Follow(ctx, 1) {
		if err != nil || !reflect.DeepEqual(rec.Entry, tick(9)) {
			t.Fatalf("following the rebuilt stream: %+v, %v", rec.Entry, err)
		}
		break
	}
}
