// Package relay carries what a read replica cannot do itself to the
// sequencer, over NATS request-reply on the connection that carries the
// sequencer's log: a raw transaction (eth_sendRawTransaction), a faucet
// drip, and the question whether the sequencer knows a transaction
// (base_transactionStatus, for one the replica has not seen). The replica
// answers its client with the sequencer's reply, error text included, so
// nonce and fee errors read as on the sequencer.
//
// Subjects, beside the log's stocknode.<chainID>.log.*, end with the
// replica's identity (its nkey's public key, or "anonymous"):
//
//	stocknode.<chainID>.relay.tx.<id>      request: the transaction's binary encoding
//	stocknode.<chainID>.relay.drip.<id>    request: a drip.Request as JSON
//	stocknode.<chainID>.relay.status.<id>  request: a transaction's hash, 32 bytes
//
// The embedded server lets a replica publish only on its own identity's
// subjects (node/natsauth), so the sequencer knows who asks; a replica
// with a key also signs each request (header Stocknode-Signature, over
// the subject and the payload), so that nothing else that can put a
// message on that subject (a JetStream push consumer delivers where its
// creator says) speaks for it.
//
// Replies start with one status byte: 0 and nothing more for an accepted
// transaction, 1 and the error's text for a refused one; a drip's reply is
// 0 and its drip.Result as JSON; a status's is 0 and Base's word for
// it, Known or Unknown. A transaction request with the header
// Stocknode-Admission asks whether the transaction can run now
// (eth_sendRawTransactionSync, admission.go): see Submit.
package relay

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/stocknode/stocknode/drip"
)

// DefaultTimeout bounds a replica's wait for the sequencer's reply.
const DefaultTimeout = 10 * time.Second

// DefaultConcurrency bounds the requests the sequencer handles at once;
// more are refused with a message saying so.
const DefaultConcurrency = 1024

const (
	statusOK      byte = 0
	statusRefused byte = 1
)

// queue makes the sequencer's subscriptions one queue group: a second
// sequencer (fenced, stopping) never answers a request twice.
const queue = "sequencer"

// Anonymous is the identity of a replica that connects without a key (to
// an external server that admits it).
const Anonymous = "anonymous"

const headerSignature = "Stocknode-Signature"

// Base's words for a transaction's status (base_transactionStatus).
const (
	statusKnown   = "Known"
	statusUnknown = "Unknown"
)

func subject(chainID uint64, what, id string) string {
	return "stocknode." + strconv.FormatUint(chainID, 10) + ".relay." + what + "." + id
}

// Requests is the subject (a wildcard) of every request of the replica
// whose identity is id: what the server lets that replica publish.
func Requests(chainID uint64, id string) string { return subject(chainID, "*", id) }

// Handlers are what the sequencer does with relayed requests; from is the
// identity of the replica that sent it.
type Handlers struct {
	// Send pools a transaction, as eth_sendRawTransaction does.
	Send func(from string, tx *types.Transaction) error
	// Submit pools a transaction and says whether it can run now, for a
	// request that asks (Client.Submit); nil: Send answers it, and the
	// replica hears nothing either way.
	Submit func(from string, tx *types.Transaction) (Admission, error)
	// Drip runs a faucet drip; nil: the faucet is off.
	Drip func(ctx context.Context, from string, req drip.Request) drip.Result
	// Known reports whether the sequencer knows a transaction: pooled,
	// pre-confirmed or sealed.
	Known func(from string, hash common.Hash) bool
}

// Server answers replicas' requests on the sequencer.
type Server struct {
	subs []*nats.Subscription
	sem  chan struct{}
	log  *slog.Logger
}

// Serve subscribes the sequencer to the relay subjects; concurrency bounds
// the requests handled at once (0: DefaultConcurrency).
func Serve(nc *nats.Conn, chainID uint64, h Handlers, concurrency int, log *slog.Logger) (*Server, error) {
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	s := &Server{sem: make(chan struct{}, concurrency), log: log}
	for what, handle := range map[string]func(from string, m *nats.Msg) []byte{
		"tx":     func(from string, m *nats.Msg) []byte { return h.txReply(from, m) },
		"drip":   func(from string, m *nats.Msg) []byte { return dripReply(h.Drip, from, m.Data) },
		"status": func(from string, m *nats.Msg) []byte { return statusReply(h.Known, from, m.Data) },
	} {
		subj := subject(chainID, what, "*")
		sub, err := nc.QueueSubscribe(subj, queue, s.handler(handle))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("relay: subscribe to %s: %w", subj, err)
		}
		s.subs = append(s.subs, sub)
	}
	// Once Serve returns, a replica's request finds the subscriptions.
	if err := nc.Flush(); err != nil {
		s.Close()
		return nil, fmt.Errorf("relay: register the subscriptions: %w", err)
	}
	return s, nil
}

// handler runs handle off NATS's delivery goroutine (a pool admission
// waits for its promotion and its log append; one at a time would cap a
// replica's senders), at most cap(sem) at once.
func (s *Server) handler(handle func(from string, m *nats.Msg) []byte) nats.MsgHandler {
	return func(m *nats.Msg) {
		from, err := sender(m)
		if err != nil {
			s.log.Warn("Relayed request refused", "subject", m.Subject, "err", err)
			s.respond(m, refused(err))
			return
		}
		select {
		case s.sem <- struct{}{}:
		default:
			s.respond(m, refused(fmt.Errorf("the sequencer is handling %d relayed requests; retry in a moment", cap(s.sem))))
			return
		}
		go func() {
			reply := handle(from, m)
			// Free the slot before answering: the client may send its
			// next request as soon as it has the reply.
			<-s.sem
			s.respond(m, reply)
		}()
	}
}

func (s *Server) respond(m *nats.Msg, reply []byte) {
	if err := m.Respond(reply); err != nil && !errors.Is(err, nats.ErrMsgNoReply) {
		s.log.Debug("Relay reply not sent", "subject", m.Subject, "err", err)
	}
}

// Close unsubscribes.
func (s *Server) Close() {
	for _, sub := range s.subs {
		_ = sub.Unsubscribe()
	}
}

// sender is the identity a request's subject names, once its signature
// says the replica of that identity sent it.
func sender(m *nats.Msg) (string, error) {
	id := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	if !nkeys.IsValidPublicUserKey(id) {
		return id, nil // no key to check against: the server's permissions vouch for it, if any
	}
	sig, err := base64.RawURLEncoding.DecodeString(m.Header.Get(headerSignature))
	if err != nil || len(sig) == 0 {
		return "", fmt.Errorf("request on %s is not signed by %s", m.Subject, id)
	}
	kp, err := nkeys.FromPublicKey(id)
	if err == nil {
		err = kp.Verify(signedBytes(m.Subject, m.Data), sig)
	}
	if err != nil {
		return "", fmt.Errorf("request on %s: its signature is not %s's", m.Subject, id)
	}
	return id, nil
}

// signedBytes is what a request's signature covers.
func signedBytes(subject string, data []byte) []byte {
	return append(append([]byte(subject), 0), data...)
}

func (h Handlers) txReply(from string, m *nats.Msg) []byte {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(m.Data); err != nil {
		return refused(fmt.Errorf("decode transaction: %w", err))
	}
	if h.Submit != nil && m.Header.Get(headerAdmission) != "" {
		return submitReply(h.Submit(from, tx))
	}
	if err := h.Send(from, tx); err != nil {
		return refused(err)
	}
	return []byte{statusOK}
}

func dripReply(run func(context.Context, string, drip.Request) drip.Result, from string, data []byte) []byte {
	if run == nil {
		return refused(errors.New("the faucet is off on the sequencer (--faucet=false)"))
	}
	var req drip.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return refused(fmt.Errorf("decode drip: %w", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	out, err := json.Marshal(run(ctx, from, req))
	if err != nil {
		return refused(err)
	}
	return append([]byte{statusOK}, out...)
}

func statusReply(known func(string, common.Hash) bool, from string, data []byte) []byte {
	if known == nil {
		return refused(errors.New("the sequencer does not answer transaction statuses"))
	}
	if len(data) != common.HashLength {
		return refused(fmt.Errorf("decode status: a transaction hash has %d bytes, not %d", common.HashLength, len(data)))
	}
	word := statusUnknown
	if known(from, common.Hash(data)) {
		word = statusKnown
	}
	return append([]byte{statusOK}, word...)
}

func refused(err error) []byte { return append([]byte{statusRefused}, err.Error()...) }

// message is a request on the client's own subject, signed with its key.
func (c *Client) message(what string, data []byte) (*nats.Msg, error) {
	m := &nats.Msg{Subject: subject(c.chainID, what, c.id), Data: data}
	if c.key == nil {
		return m, nil
	}
	sig, err := c.key.Sign(signedBytes(m.Subject, data))
	if err != nil {
		return nil, fmt.Errorf("relay: sign the request: %w", err)
	}
	m.Header = nats.Header{headerSignature: []string{base64.RawURLEncoding.EncodeToString(sig)}}
	return m, nil
}

// Client is a replica's side.
type Client struct {
	nc      *nats.Conn
	chainID uint64
	timeout time.Duration
	key     nkeys.KeyPair // nil: Anonymous, requests unsigned
	id      string
}

// NewClient relays over nc, as the replica whose key is key (nil: an
// anonymous one); timeout bounds a wait (0: DefaultTimeout).
func NewClient(nc *nats.Conn, chainID uint64, timeout time.Duration, key nkeys.KeyPair) *Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := &Client{nc: nc, chainID: chainID, timeout: timeout, key: key, id: Anonymous}
	if key != nil {
		c.id, _ = key.PublicKey()
	}
	return c
}

// ID is the identity the replica relays as.
func (c *Client) ID() string { return c.id }

// Send hands tx to the sequencer's pool and returns its verdict.
func (c *Client) Send(tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	reply, retried, err := c.request(context.Background(), "tx", raw, true)
	if c.takenBefore(retried, err, tx.Hash()) {
		return nil
	}
	var late *lateError
	if errors.As(err, &late) {
		return fmt.Errorf("%w; the transaction may still be pooled: check its hash before sending again", err)
	}
	if err != nil {
		return err
	}
	if len(reply) > 0 {
		return fmt.Errorf("unexpected reply to transaction %s", tx.Hash())
	}
	return nil
}

// Known asks the sequencer whether it knows the transaction: pooled,
// pre-confirmed or sealed.
func (c *Client) Known(ctx context.Context, hash common.Hash) (bool, error) {
	reply, _, err := c.request(ctx, "status", hash[:], true)
	if err != nil {
		return false, err
	}
	switch string(reply) {
	case statusKnown:
		return true, nil
	case statusUnknown:
		return false, nil
	}
	return false, fmt.Errorf("unexpected reply %q to the status of transaction %s", reply, hash)
}

// Drip runs a drip on the sequencer's faucet.
func (c *Client) Drip(ctx context.Context, req drip.Request) drip.Result {
	data, err := json.Marshal(req)
	if err != nil {
		return drip.Unreachable(err)
	}
	reply, _, err := c.request(ctx, "drip", data, false)
	var refused *RefusedError
	if errors.As(err, &refused) {
		return drip.Refused(refused.Text)
	}
	if err != nil {
		return drip.Unreachable(err)
	}
	var res drip.Result
	if err := json.Unmarshal(reply, &res); err != nil {
		return drip.Unreachable(fmt.Errorf("decode reply: %w", err))
	}
	return res
}

// takenBefore reports a transaction refused, after an attempt that went
// unanswered, because that attempt was taken: by the sequencer that died
// holding it (whose log gave it to the next) or by this one. It is known
// already, or its nonce is used, by itself if the sequencer knows it.
func (c *Client) takenBefore(retried bool, err error, hash common.Hash) bool {
	var refused *RefusedError
	if !retried || !errors.As(err, &refused) {
		return false
	}
	switch {
	case strings.Contains(refused.Text, txpool.ErrAlreadyKnown.Error()):
		return true
	case strings.Contains(refused.Text, core.ErrNonceTooLow.Error()):
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		known, err := c.Known(ctx, hash)
		return err == nil && known
	}
	return false
}

// RefusedError is the sequencer's refusal, worded as the sequencer worded it.
type RefusedError struct{ Text string }

func (e *RefusedError) Error() string { return e.Text }

// lateError is a request the sequencer did not answer in time.
type lateError struct{ timeout time.Duration }

func (e *lateError) Error() string {
	return fmt.Sprintf("the sequencer did not answer within %v", e.timeout)
}

// attemptTimeout bounds one attempt of a request that may be sent again
// (a transaction, a status): a sequencer that died holding it never
// answers, and the next one is asked within the relay timeout.
const attemptTimeout = time.Second

// retryWait is the pause before a request is sent again.
const retryWait = 50 * time.Millisecond

// request sends data and returns the reply's body after its status byte;
// retried reports that an attempt before may have been received. Only an
// idempotent request is sent again after an unanswered attempt.
func (c *Client) request(ctx context.Context, what string, data []byte, idempotent bool) (body []byte, retried bool, err error) {
	req, err := c.message(what, data)
	if err != nil {
		return nil, false, err
	}
	status, body, retried, err := c.send(ctx, req, idempotent)
	if err != nil {
		return nil, retried, err
	}
	if status != statusOK {
		return nil, retried, fmt.Errorf("relay to the sequencer: unexpected reply status %d", status)
	}
	return body, retried, nil
}

// send sends req and returns the reply's status byte and the rest; a
// refusal (status 1) is a *RefusedError. A request that finds no sequencer
// subscribed (between a sequencer's death and the next one's takeover, or
// while a sequencer reconnects to another NATS server) is sent again until
// the relay timeout: nobody received it, so sending it again cannot do it
// twice.
func (c *Client) send(ctx context.Context, req *nats.Msg, idempotent bool) (status byte, body []byte, retried bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var msg *nats.Msg
	received := false // by a sequencer, in some attempt
	for {
		attempt, cancelAttempt := ctx, context.CancelFunc(func() {})
		if idempotent {
			attempt, cancelAttempt = context.WithTimeout(ctx, attemptTimeout)
		}
		msg, err = c.nc.RequestMsgWithContext(attempt, req)
		cancelAttempt()
		noResponder := errors.Is(err, nats.ErrNoResponders)
		received = received || !noResponder
		if ctx.Err() != nil {
			if err != nil && !received {
				err = nats.ErrNoResponders // every attempt found no sequencer
			}
			break
		}
		unanswered := idempotent && errors.Is(err, context.DeadlineExceeded)
		if !unanswered && !noResponder {
			break
		}
		retried = retried || unanswered
		select {
		case <-ctx.Done():
		case <-time.After(retryWait):
		}
		if ctx.Err() != nil {
			break // with the last attempt's error
		}
	}
	if ctx.Err() != nil && received && err != nil {
		err = context.DeadlineExceeded
	}
	return c.reply(msg, retried, err)
}

// reply reads a relayed request's answer, or says why there is none.
func (c *Client) reply(msg *nats.Msg, retried bool, err error) (byte, []byte, bool, error) {
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return 0, nil, retried, errors.New("the sequencer is not reachable (no sequencer subscribed to this chain's relay on NATS); retry in a moment")
	case errors.Is(err, nats.ErrPermissionViolation):
		return 0, nil, retried, fmt.Errorf("the NATS server does not let this replica (%s) relay: admit its key on the sequencer (stocknode replica-key): %w", c.id, err)
	case errors.Is(err, context.DeadlineExceeded):
		return 0, nil, retried, &lateError{timeout: c.timeout}
	case err != nil:
		return 0, nil, retried, fmt.Errorf("relay to the sequencer: %w", err)
	}
	if len(msg.Data) == 0 {
		return 0, nil, retried, errors.New("relay to the sequencer: empty reply")
	}
	if msg.Data[0] == statusRefused {
		return 0, nil, retried, &RefusedError{Text: string(msg.Data[1:])}
	}
	return msg.Data[0], msg.Data[1:], retried, nil
}
