//lint:file-ignore ST1005 a validation error starts with the Config field it is about, as callers set it

package seqlog

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// FileHandles is what the embedded server's file store keeps open, with
// room: one message block being written per stream (older blocks are
// opened only while read), its index and the server's own files (the node
// counts it in its file-descriptor budget).
const FileHandles = 16

// Defaults of the limits in Config; the package documentation explains the
// retention numbers.
const (
	DefaultMaxBytes       = 16 << 30  // file storage
	DefaultMemoryMaxBytes = 512 << 20 // InMemory (--dev)
	DefaultMaxAge         = 7 * 24 * time.Hour
	DefaultMaxEntryBytes  = 8 << 20 // a sealed block is at most params.MaxBlockSize (8 MiB) of RLP
	DefaultAckTimeout     = 5 * time.Second
	// DefaultClusterAckTimeout is a replicated stream's: an append whose
	// server died is tried again on another well inside a second, and
	// the message ID makes a retry of an entry that was stored after all
	// a duplicate, not a second entry (JetStream checks duplicates before
	// the expected last sequence on a replicated stream, so a slow
	// acknowledgement does not fence its own writer).
	DefaultClusterAckTimeout = 300 * time.Millisecond
	DefaultOutageTimeout     = 30 * time.Second // nats-server elects a stream leader within 4-9 s
	DefaultStartTimeout      = time.Minute      // an embedded server recovering a full store
	DefaultReplicas          = 1
	maxNATSPayload           = 64 << 20 // nats-server refuses a larger max_payload
)

// Config chooses one of three deployments of the same log:
//
//   - embedded (the default): an in-process JetStream server storing under
//     Dir (or in memory with InMemory), reachable only from this process;
//   - embedded and exposed: the same with Listen set, so replicas on other
//     machines can connect;
//   - external: URLs of a NATS cluster; no server runs in-process.
type Config struct {
	// ChainID names the stream and its subjects.
	ChainID uint64

	// Dir is where the embedded server keeps its files (<datadir>/nats).
	// Required for the embedded server unless InMemory is set.
	Dir string
	// InMemory keeps the embedded log in memory (--dev): it is gone when
	// the process ends. Dir is then ignored.
	InMemory bool
	// Listen, when set, exposes the embedded server on this TCP address
	// (host:port; port 0 picks a free one, see Log.URL). Empty: no listener.
	Listen string

	// URLs of an external NATS cluster, instead of the embedded server.
	URLs []string
	// Replicas of the stream when it is created: 1, 3 or 5. More than one
	// needs an external cluster of at least that many servers.
	Replicas int

	// MaxBytes caps the stream; the oldest entries go first when it is full.
	MaxBytes int64
	// MaxAge drops entries older than this.
	MaxAge time.Duration
	// MaxEntryBytes is the largest entry (the NATS message payload and its
	// headers). An external server's max_payload must allow it.
	MaxEntryBytes int32
	// AckTimeout bounds each attempt of an append to get JetStream's
	// acknowledgement when the caller's context has no earlier deadline.
	AckTimeout time.Duration
	// OutageTimeout is how long an append keeps trying while JetStream
	// cannot take an entry: the server that led the stream lost (its
	// replicas elect another within nats-server's 4-9 s election timeout),
	// the connection moving to another server. Past it the append fails.
	OutageTimeout time.Duration
	// StartTimeout bounds the embedded server's start, including the
	// recovery of its store.
	StartTimeout time.Duration

	// Reader opens the log to read it only (a replica, with URLs): the
	// stream is never created, Open waits for the sequencer to create it,
	// and Append is refused.
	Reader bool

	// Signer is the sequencer's key: it signs every entry appended (see
	// sign.go) and, with the embedded server, authenticates this
	// process's own connection. Nil makes a key for this run only (a
	// reader has no use for one).
	Signer nkeys.KeyPair
	// Users are the embedded server's users (node/natsauth), Signer's
	// among them; none admits only Signer's, with every permission. No
	// other client can connect.
	Users []*server.NkeyUser
	// Connect are the options of the connection to an external server
	// (URLs): its credentials and TLS (natsauth.Client).
	Connect []nats.Option
	// ListenTLS, when set, makes the embedded server's listener take TLS
	// connections only.
	ListenTLS *tls.Config

	// ObserveAppend, when set, hears how long each successful Append (or
	// AppendAll, as one) took,
	// from its call (waiting for an append in flight included) to
	// JetStream's acknowledgement, retries included. It is a plain
	// callback (the node passes a histogram's Observe) so that the log
	// knows nothing of metrics.
	ObserveAppend func(time.Duration)
}

func (c Config) embedded() bool { return len(c.URLs) == 0 }

// withDefaults fills the zero limits.
func (c Config) withDefaults() Config {
	if c.Replicas == 0 {
		c.Replicas = DefaultReplicas
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
		if c.InMemory {
			c.MaxBytes = DefaultMemoryMaxBytes
		}
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.MaxEntryBytes == 0 {
		c.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if c.AckTimeout == 0 {
		c.AckTimeout = DefaultAckTimeout
		if c.Replicas > 1 {
			c.AckTimeout = DefaultClusterAckTimeout
		}
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.OutageTimeout == 0 {
		c.OutageTimeout = DefaultOutageTimeout
	}
	return c
}

// withKeys gives a writer without a Signer a key for this run, and an
// embedded server without Users its Signer's as the only one.
func (c Config) withKeys() (Config, error) {
	if c.Signer == nil && !c.Reader {
		kp, err := nkeys.CreateUser()
		if err != nil {
			return c, fmt.Errorf("sequencer log: sequencer key: %w", err)
		}
		c.Signer = kp
	}
	if c.Signer != nil {
		kp, err := deriveKey(c.Signer)
		if err != nil {
			return c, fmt.Errorf("sequencer log: %w", err)
		}
		c.Signer = kp
	}
	if c.embedded() && len(c.Users) == 0 && c.Signer != nil {
		pub, _ := c.Signer.PublicKey()
		c.Users = []*server.NkeyUser{{Nkey: pub}}
	}
	return c, nil
}

// Validate reports a configuration that cannot run, naming the field to fix.
// It applies to the configuration after the defaults are filled in.
func (c Config) Validate() error {
	var errs []error
	if c.ChainID == 0 {
		errs = append(errs, errors.New("ChainID is required: it names the stream"))
	}
	if c.Reader && c.embedded() {
		errs = append(errs, errors.New("a reader (a replica) needs URLs: the sequencer's NATS server or cluster"))
	} else if c.embedded() {
		errs = append(errs, c.validateEmbedded()...)
	} else {
		errs = append(errs, c.validateExternal()...)
	}
	switch {
	case c.MaxBytes < 0:
		errs = append(errs, fmt.Errorf("MaxBytes %d is negative", c.MaxBytes))
	case c.MaxEntryBytes <= 0 || c.MaxEntryBytes > maxNATSPayload:
		errs = append(errs, fmt.Errorf("MaxEntryBytes %d must be between 1 and %d (NATS's largest max_payload)", c.MaxEntryBytes, maxNATSPayload))
	case c.MaxBytes > 0 && int64(c.MaxEntryBytes) > c.MaxBytes:
		errs = append(errs, fmt.Errorf("MaxEntryBytes %d exceeds MaxBytes %d", c.MaxEntryBytes, c.MaxBytes))
	}
	if c.MaxAge < 0 {
		errs = append(errs, fmt.Errorf("MaxAge %v is negative", c.MaxAge))
	}
	if c.AckTimeout < 0 {
		errs = append(errs, fmt.Errorf("AckTimeout %v is negative", c.AckTimeout))
	}
	if c.OutageTimeout < 0 {
		errs = append(errs, fmt.Errorf("OutageTimeout %v is negative", c.OutageTimeout))
	}
	if c.StartTimeout < 0 {
		errs = append(errs, fmt.Errorf("StartTimeout %v is negative", c.StartTimeout))
	}
	return errors.Join(errs...)
}

func (c Config) validateEmbedded() []error {
	var errs []error
	if c.Dir == "" && !c.InMemory {
		errs = append(errs, errors.New("the embedded log needs Dir (or InMemory, or URLs of an external NATS cluster)"))
	}
	if c.Replicas != 1 {
		errs = append(errs, fmt.Errorf("Replicas %d needs an external NATS cluster (URLs): the embedded server is a single node", c.Replicas))
	}
	if c.Listen != "" {
		if err := checkListen(c.Listen); err != nil {
			errs = append(errs, err)
		}
	}
	if c.ListenTLS != nil && c.Listen == "" {
		errs = append(errs, errors.New("ListenTLS needs Listen: without a listener nothing connects over TCP"))
	}
	if len(c.Users) > 0 && (c.Signer == nil || !c.admits(c.Signer)) {
		errs = append(errs, errors.New("Users must admit Signer: the sequencer's own connection authenticates with it"))
	}
	return errs
}

// admits reports whether the embedded server lets k's holder connect.
func (c Config) admits(k nkeys.KeyPair) bool {
	pub, err := k.PublicKey()
	if err != nil {
		return false
	}
	for _, u := range c.Users {
		if u.Nkey == pub {
			return true
		}
	}
	return false
}

func (c Config) validateExternal() []error {
	var errs []error
	if c.Dir != "" || c.InMemory || c.Listen != "" || len(c.Users) > 0 || c.ListenTLS != nil {
		errs = append(errs, errors.New("URLs (an external NATS cluster) exclude the embedded server's Dir, InMemory, Listen, Users and ListenTLS: set one or the other"))
	}
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		errs = append(errs, fmt.Errorf("Replicas %d must be 1, 3 or 5", c.Replicas))
	}
	for _, u := range c.URLs {
		if err := checkURL(u); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("Listen %q is not host:port: %w", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("Listen %q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("URLs: %q: %w", raw, err)
	}
	switch u.Scheme {
	case "nats", "tls", "ws", "wss":
	default:
		return fmt.Errorf("URLs: %q must start with nats://, tls://, ws:// or wss://", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("URLs: %q has no host", raw)
	}
	return nil
}
