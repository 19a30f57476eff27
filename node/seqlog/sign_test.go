package seqlog

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// intruder connects to l's server with every permission (a server whose
// permissions were left open) and publishes on the log's subjects.
type intruder struct {
	t   *testing.T
	key nkeys.KeyPair
	nc  *nats.Conn
	js  jetstream.JetStream
	l   *Log
}

// openWithIntruder opens the log in dir with signer as the sequencer's key
// and an intruder beside it.
func openWithIntruder(t *testing.T, dir string, signer nkeys.KeyPair) (*Log, *intruder) {
	t.Helper()
	keys, users := writers(t, 2)
	pub, _ := signer.PublicKey()
	keys[0], users[0].Nkey = signer, pub
	l := openTest(t, Config{Dir: dir, Listen: "127.0.0.1:0", Signer: keys[0], Users: users})
	nc, err := nats.Connect(l.URL(), connectAs(keys[1])...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return l, &intruder{t: t, key: keys[1], nc: nc, js: js, l: l}
}

func newSigner(t *testing.T) nkeys.KeyPair {
	t.Helper()
	keys, _ := writers(t, 1)
	return keys[0]
}

// publish stores msg on the log's stream as any client can.
func (x *intruder) publish(msg *nats.Msg) uint64 {
	x.t.Helper()
	ack, err := x.js.PublishMsg(context.Background(), msg)
	if err != nil {
		x.t.Fatalf("intruder's publish on %s: %v", msg.Subject, err)
	}
	return ack.Sequence
}

// TestForeignEntriesStopNothing: entries the sequencer did not sign (a
// 3-byte forgery, a well-formed Opened, a sequencer's entry published
// again) are skipped by readers and by the sequencer's recovery, and the
// sequencer appends after them instead of stopping as fenced.
func TestForeignEntriesStopNothing(t *testing.T) {
	dir, signer := t.TempDir(), newSigner(t)
	l, x := openWithIntruder(t, dir, signer)
	mustAppend(t, l, tick(1))
	opened := Opened{Number: 7, ParentHash: common.Hash{1}, Timestamp: 99, GasLimit: 1, ExtraData: []byte("forged"), BaseFee: common.Big1, HasBaseFee: true}
	genuine := mustAppend(t, l, opened)
	stored, err := l.stream.GetMsg(context.Background(), genuine)
	if err != nil {
		t.Fatal(err)
	}
	forgedOpened := opened
	forgedOpened.Coinbase = common.Address{0xba, 0xd}
	x.publish(&nats.Msg{Subject: l.subject + "preconfirmed", Data: []byte{1, 2, 3}})
	x.publish(&nats.Msg{Subject: l.subject + "opened", Data: mustEncode(t, forgedOpened)})
	replay := nats.Header{headerSigner: stored.Header[headerSigner], headerSignature: stored.Header[headerSignature]}
	x.publish(&nats.Msg{Subject: stored.Subject, Data: stored.Data, Header: replay})

	seq, err := l.Append(context.Background(), tick(6))
	if err != nil {
		t.Fatalf("append after foreign entries: %v, want it to go after them", err)
	}
	if seq != 6 {
		t.Errorf("appended at %d, want 6 (after the 3 foreign entries)", seq)
	}
	want := []uint64{1, 2, 6}
	var got []uint64
	for _, rec := range readAll(t, l, 1) {
		got = append(got, rec.Seq)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read sequences %v, want %v (the foreign ones skipped)", got, want)
	}
	last, err := l.LastOf(context.Background(), KindOpened)
	if err != nil || last.Seq != genuine || !reflect.DeepEqual(last.Entry, opened) {
		t.Errorf("LastOf(opened) = %d %+v, %v; want the sequencer's at %d", last.Seq, last.Entry, err, genuine)
	}
	for _, s := range []uint64{3, 4, 5} {
		if _, err := l.Get(context.Background(), s); !errors.Is(err, ErrForeign) {
			t.Errorf("Get(%d): %v, want ErrForeign", s, err)
		}
	}

	// A forged last entry: the reopened log starts after it, with the
	// sequencer's own last entry as Opened.
	x.publish(&nats.Msg{Subject: l.subject + "opened", Data: mustEncode(t, forgedOpened)})
	l.Close()
	reopened, _ := openWithIntruder(t, dir, signer)
	if rec := reopened.Opened(); rec.Seq != 6 {
		t.Errorf("reopened log's last good entry %d, want 6", rec.Seq)
	}
	if seq := mustAppend(t, reopened, tick(8)); seq != 8 {
		t.Errorf("reopened log appended at %d, want 8", seq)
	}
}

// TestFollowSkipsForeign: a follower never sees a foreign entry.
func TestFollowSkipsForeign(t *testing.T) {
	l, x := openWithIntruder(t, t.TempDir(), newSigner(t))
	mustAppend(t, l, tick(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	recs := make(chan Record, 4)
	go func() {
		for rec, err := range l.Follow(ctx, 1) {
			if err != nil {
				return
			}
			recs <- rec
		}
	}()
	if rec := <-recs; rec.Seq != 1 {
		t.Fatalf("first followed %d", rec.Seq)
	}
	x.publish(&nats.Msg{Subject: l.subject + "sealed", Data: []byte{0xc0}})
	mustAppend(t, l, tick(3))
	if rec := <-recs; rec.Seq != 3 || !reflect.DeepEqual(rec.Entry, tick(3)) {
		t.Fatalf("followed %d %+v after a foreign entry, want the sequencer's 3", rec.Seq, rec.Entry)
	}
}

// TestUnsignedLogFromBefore: a stream that an older version wrote, without
// signatures, keeps its entries readable; entries from the first signing
// writer on are signed, and unsigned ones after that are foreign.
func TestUnsignedLogFromBefore(t *testing.T) {
	dir := t.TempDir()
	l, x := openWithIntruder(t, dir, newSigner(t))
	// As an older version left it: no signer in the metadata, entries
	// without signatures.
	cfg := l.stream.CachedInfo().Config
	cfg.Metadata = nil
	if _, err := x.js.UpdateStream(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 3; i++ {
		x.publish(&nats.Msg{Subject: l.subject + "preconfirmed", Data: mustEncode(t, tick(i))})
	}
	l.Close()
	l, x = openWithIntruder(t, dir, newSigner(t))
	if seq := mustAppend(t, l, tick(4)); seq != 4 {
		t.Fatalf("appended at %d, want 4", seq)
	}
	x.publish(&nats.Msg{Subject: l.subject + "preconfirmed", Data: mustEncode(t, tick(5))})
	recs := readAll(t, l, 1)
	if len(recs) != 4 {
		t.Fatalf("read %d entries, want the 3 old ones and the signed one (the unsigned 5th skipped)", len(recs))
	}
	checkTicks(t, recs, 1)
}

// A derived key signs and names itself exactly as the nkeys key pair it
// comes from, and refuses a key without its seed.
func TestDerivedKey(t *testing.T) {
	kp := newSigner(t)
	derived, err := deriveKey(kp)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := deriveKey(derived); again != derived {
		t.Error("deriving a derived key again made a new one")
	}
	for _, msg := range [][]byte{nil, []byte("entry"), make([]byte, 4096)} {
		want, _ := kp.Sign(msg)
		got, err := derived.Sign(msg)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("signature of %d bytes: %x, %v; nkeys gives %x", len(msg), got, err, want)
		}
		if err := kp.Verify(msg, got); err != nil {
			t.Errorf("nkeys does not verify the derived key's signature: %v", err)
		}
	}
	wantPub, _ := kp.PublicKey()
	if pub, _ := derived.PublicKey(); pub != wantPub {
		t.Errorf("public key %s, nkeys gives %s", pub, wantPub)
	}
	public, _ := nkeys.FromPublicKey(wantPub)
	if _, err := deriveKey(public); err == nil {
		t.Error("derived a signing key from a public key")
	}
}
