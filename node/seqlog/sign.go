package seqlog

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Every entry is signed by the sequencer that appended it, with its nkey
// (ed25519), over the entry's sequence, subject and payload: an entry that
// something else published on the log's subjects (a server whose
// permissions let it), or a sequencer's entry published again elsewhere in
// the log, does not verify. Readers skip such entries with a warning
// instead of stopping on them, and the sequencer appends after them: a
// forged entry stops nothing. The stream's metadata lists the keys whose
// signatures count, and the sequence from which entries are signed
// (entries that a version before signatures wrote are read as they are).

const (
	headerSigner    = "Stocknode-Signer"
	headerSignature = "Stocknode-Signature"
	metaSigners     = "stocknode_signers"
	metaSignedFrom  = "stocknode_signed_from"
)

// ErrForeign is what reading an entry that no sequencer of this chain
// signed returns (wrapped in a *ForeignError).
var ErrForeign = errors.New("not signed by this chain's sequencer")

// ForeignError names the entry and why it does not count.
type ForeignError struct {
	Seq     uint64
	Subject string
	Reason  string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("entry %d on %s is %v (%s)", e.Seq, e.Subject, ErrForeign, e.Reason)
}

// Is makes errors.Is(err, ErrForeign) hold.
func (e *ForeignError) Is(target error) bool { return target == ErrForeign }

// nkeyAuth authenticates a connection with kp's key.
func nkeyAuth(kp nkeys.KeyPair) nats.Option {
	pub, _ := kp.PublicKey()
	return nats.Nkey(pub, kp.Sign)
}

// derivedKey is a writer's nkeys key pair with its ed25519 private key and
// its public key derived once. nkeys derives both from the seed again at
// every Sign and PublicKey call, a scalar multiplication each: under a
// flood the accept log signs thousands of entries a second, and those
// derivations were three quarters of what signing cost the sequencer.
type derivedKey struct {
	nkeys.KeyPair
	pub  string
	priv ed25519.PrivateKey
}

// deriveKey returns kp with its keys derived, or kp itself if they are.
func deriveKey(kp nkeys.KeyPair) (nkeys.KeyPair, error) {
	if _, ok := kp.(*derivedKey); ok {
		return kp, nil
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, fmt.Errorf("sequencer key: %w", err)
	}
	_, raw, err := nkeys.DecodeSeed(seed)
	if err != nil {
		return nil, fmt.Errorf("sequencer key: %w", err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("sequencer key: %w", err)
	}
	return &derivedKey{KeyPair: kp, pub: pub, priv: ed25519.NewKeyFromSeed(raw)}, nil
}

func (k *derivedKey) PublicKey() (string, error) { return k.pub, nil }

func (k *derivedKey) Sign(input []byte) ([]byte, error) { return ed25519.Sign(k.priv, input), nil }

// Wipe clears the derived private key with the seed.
func (k *derivedKey) Wipe() {
	clear(k.priv)
	k.KeyPair.Wipe()
}

// signedBytes is what an entry's signature signs: the SHA-256 of its
// sequence, subject and payload. Ed25519 would hash the whole entry twice
// with SHA-512; signing its digest costs a sealed block of 1,000
// transfers (120 KB) tens of microseconds, not hundreds.
func signedBytes(seq uint64, subject string, data []byte) []byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], seq)
	h.Write(n[:])
	h.Write([]byte(subject))
	h.Write([]byte{0})
	h.Write(data)
	return h.Sum(nil)
}

// sign returns the headers that sign the entry appended as sequence seq.
func sign(kp nkeys.KeyPair, seq uint64, subject string, data []byte) (nats.Header, error) {
	sig, err := kp.Sign(signedBytes(seq, subject, data))
	if err != nil {
		return nil, fmt.Errorf("sign entry %d: %w", seq, err)
	}
	pub, _ := kp.PublicKey()
	return nats.Header{
		headerSigner:    []string{pub},
		headerSignature: []string{base64.RawURLEncoding.EncodeToString(sig)},
	}, nil
}

// signers are the keys whose signatures the log trusts, from the stream's
// metadata, which only the sequencer may change (node/natsauth).
type signers struct {
	mu        sync.Mutex
	keys      map[string]nkeys.KeyPair
	from      uint64    // the first sequence that must be signed; 0: none yet
	refreshed time.Time // when a reader last read them again for an unknown signer
}

// load reads the signers from a stream's metadata.
func (s *signers) load(meta map[string]string) error {
	keys := make(map[string]nkeys.KeyPair)
	for _, pub := range strings.Split(meta[metaSigners], ",") {
		if pub == "" {
			continue
		}
		kp, err := nkeys.FromPublicKey(pub)
		if err != nil {
			return fmt.Errorf("stream metadata %s: %q: %w", metaSigners, pub, err)
		}
		keys[pub] = kp
	}
	var from uint64
	if v := meta[metaSignedFrom]; v != "" {
		var err error
		if from, err = strconv.ParseUint(v, 10, 64); err != nil {
			return fmt.Errorf("stream metadata %s: %w", metaSignedFrom, err)
		}
	}
	s.mu.Lock()
	s.keys, s.from = keys, from
	s.mu.Unlock()
	return nil
}

// check verifies the entry seq. unknown reports a well-formed signature by
// a key not (yet) listed: a reader reads the list again before it gives
// up on the entry.
func (s *signers) check(seq uint64, subject string, data []byte, h nats.Header) (unknown bool, err error) {
	s.mu.Lock()
	from, keys := s.from, s.keys
	s.mu.Unlock()
	foreign := func(reason string) error { return &ForeignError{Seq: seq, Subject: subject, Reason: reason} }
	if from == 0 || seq < from {
		return false, nil // written before the log was signed
	}
	pub, enc := h.Get(headerSigner), h.Get(headerSignature)
	if pub == "" || enc == "" {
		return false, foreign("no signature")
	}
	kp, ok := keys[pub]
	if !ok {
		return true, foreign("signed by " + pub + ", not a sequencer of this log")
	}
	sig, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || kp.Verify(signedBytes(seq, subject, data), sig) != nil {
		return false, foreign("its signature does not verify")
	}
	return false, nil
}

// verify checks an entry read from the stream; a signature by a key it
// does not know makes it read the signers again (at most once a second: a
// new sequencer announced itself in the metadata) before refusing it.
func (l *Log) verify(ctx context.Context, seq uint64, subject string, data []byte, h nats.Header) error {
	unknown, err := l.signers.check(seq, subject, data, h)
	if !unknown || !l.mayRefreshSigners() {
		return err
	}
	info, ierr := l.stream.Info(ctx)
	if ierr != nil {
		return err
	}
	if lerr := l.signers.load(info.Config.Metadata); lerr != nil {
		return err
	}
	_, err = l.signers.check(seq, subject, data, h)
	return err
}

func (l *Log) mayRefreshSigners() bool {
	s := &l.signers
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.refreshed) < time.Second {
		return false
	}
	s.refreshed = time.Now()
	return true
}

// enrolSigner lists this writer's key in the stream's metadata, and makes
// a stream that had no signer signed from its next entry on.
func (l *Log) enrolSigner(ctx context.Context, info *jetstream.StreamInfo) error {
	pub, _ := l.cfg.Signer.PublicKey()
	cfg := info.Config
	meta := make(map[string]string, len(cfg.Metadata)+2)
	for k, v := range cfg.Metadata {
		meta[k] = v
	}
	var keys []string
	if list := meta[metaSigners]; list != "" {
		keys = strings.Split(list, ",")
	}
	if !slices.Contains(keys, pub) {
		keys = append(keys, pub)
		meta[metaSigners] = strings.Join(keys, ",")
		if meta[metaSignedFrom] == "" {
			meta[metaSignedFrom] = strconv.FormatUint(info.State.LastSeq+1, 10)
		}
		cfg.Metadata = meta
		if _, err := l.js.UpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("sequencer log: list this sequencer's key in stream %s's metadata (its NATS user needs $JS.API.STREAM.UPDATE.%s): %w",
				cfg.Name, cfg.Name, err)
		}
	}
	return l.signers.load(meta)
}

// signerMetadata is a new stream's metadata: kp signs it from sequence
// from on.
func signerMetadata(kp nkeys.KeyPair, from uint64) map[string]string {
	if kp == nil {
		return nil
	}
	pub, _ := kp.PublicKey()
	return map[string]string{metaSigners: pub, metaSignedFrom: strconv.FormatUint(from, 10)}
}

// skipForeign is called when an append finds that the log moved past the
// last entry this writer knows of. If no sequencer signed any of the
// entries since, it warns about them and has the append go after them:
// true. If a sequencer did, another sequencer writes the log and this one
// is fenced: false.
func (l *Log) skipForeign(ctx context.Context) bool {
	info, err := l.stream.Info(ctx)
	if err != nil || info.State.LastSeq <= l.last {
		return false
	}
	for seq := l.last + 1; seq <= info.State.LastSeq; seq++ {
		_, err := l.get(ctx, seq)
		if !errors.Is(err, ErrForeign) {
			return false
		}
		l.warnForeign(err)
	}
	l.last = info.State.LastSeq
	return true
}

// foreignWarnings keeps the warnings about foreign entries to one line a
// second, whatever their number.
type foreignWarnings struct {
	mu      sync.Mutex
	last    time.Time
	skipped int
}

// warnForeign says that an entry is ignored, why, and what to do.
func (l *Log) warnForeign(err error) {
	w := &l.foreign
	w.mu.Lock()
	if time.Since(w.last) < time.Second {
		w.skipped++
		w.mu.Unlock()
		return
	}
	skipped := w.skipped
	w.last, w.skipped = time.Now(), 0
	w.mu.Unlock()
	l.log.Warn("Sequencer log entry ignored: something other than this chain's sequencer published it on the log's subjects. "+
		"Give the NATS server credentials (README, \"Log credentials\"); `stocknode log-repair` removes such entries from the log",
		"entry", err, "alsoIgnoredSinceLastWarning", skipped)
}
