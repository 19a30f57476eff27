// Package relay carries what a read replica cannot do itself to the
// sequencer, over NATS request-reply on the connection that carries the
// sequencer's log: a raw transaction (eth_sendRawTransaction) and a faucet
// drip. The replica answers its client with the sequencer's reply, error
// text included, so nonce and fee errors read as on the sequencer.
//
// Subjects, beside the log's stocknode.<chainID>.log.*:
//
//	stocknode.<chainID>.relay.tx    request: the transaction's binary encoding
//	stocknode.<chainID>.relay.drip  request: a faucet.DripRequest as JSON
//
// Replies start with one status byte: 0 and nothing more for an accepted
// transaction, 1 and the error's text for a refused one; a drip's reply is
// 0 and its faucet.DripResult as JSON.
package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nats-io/nats.go"

	"github.com/stocknode/stocknode/faucet"
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

func subject(chainID uint64, what string) string {
	return "stocknode." + strconv.FormatUint(chainID, 10) + ".relay." + what
}

// Handlers are what the sequencer does with relayed requests.
type Handlers struct {
	// Send pools a transaction, as eth_sendRawTransaction does.
	Send func(tx *types.Transaction) error
	// Drip runs a faucet drip; nil: the faucet is off.
	Drip func(ctx context.Context, req faucet.DripRequest) faucet.DripResult
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
	for what, handle := range map[string]func(*nats.Msg) []byte{
		"tx":   func(m *nats.Msg) []byte { return sendReply(h.Send, m.Data) },
		"drip": func(m *nats.Msg) []byte { return dripReply(h.Drip, m.Data) },
	} {
		sub, err := nc.QueueSubscribe(subject(chainID, what), queue, s.handler(handle))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("relay: subscribe to %s: %w", subject(chainID, what), err)
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
func (s *Server) handler(handle func(*nats.Msg) []byte) nats.MsgHandler {
	return func(m *nats.Msg) {
		select {
		case s.sem <- struct{}{}:
		default:
			s.respond(m, refused(fmt.Errorf("the sequencer is handling %d relayed requests; retry in a moment", cap(s.sem))))
			return
		}
		go func() {
			reply := handle(m)
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

func sendReply(send func(*types.Transaction) error, raw []byte) []byte {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return refused(fmt.Errorf("decode transaction: %w", err))
	}
	if err := send(tx); err != nil {
		return refused(err)
	}
	return []byte{statusOK}
}

func dripReply(drip func(context.Context, faucet.DripRequest) faucet.DripResult, data []byte) []byte {
	if drip == nil {
		return refused(errors.New("the faucet is off on the sequencer (--faucet=false)"))
	}
	var req faucet.DripRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return refused(fmt.Errorf("decode drip: %w", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	out, err := json.Marshal(drip(ctx, req))
	if err != nil {
		return refused(err)
	}
	return append([]byte{statusOK}, out...)
}

func refused(err error) []byte { return append([]byte{statusRefused}, err.Error()...) }

// Client is a replica's side.
type Client struct {
	nc      *nats.Conn
	chainID uint64
	timeout time.Duration
}

// NewClient relays over nc; timeout bounds a wait (0: DefaultTimeout).
func NewClient(nc *nats.Conn, chainID uint64, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{nc: nc, chainID: chainID, timeout: timeout}
}

// Send hands tx to the sequencer's pool and returns its verdict.
func (c *Client) Send(tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	reply, err := c.request(context.Background(), "tx", raw)
	if err != nil {
		return err
	}
	if len(reply) > 0 {
		return fmt.Errorf("unexpected reply to transaction %s", tx.Hash())
	}
	return nil
}

// Drip runs a drip on the sequencer's faucet.
func (c *Client) Drip(ctx context.Context, req faucet.DripRequest) faucet.DripResult {
	data, err := json.Marshal(req)
	if err != nil {
		return faucet.RemoteUnavailable(err)
	}
	reply, err := c.request(ctx, "drip", data)
	var refused *RefusedError
	if errors.As(err, &refused) {
		return faucet.RemoteRefused(refused.Text)
	}
	if err != nil {
		return faucet.RemoteUnavailable(err)
	}
	var res faucet.DripResult
	if err := json.Unmarshal(reply, &res); err != nil {
		return faucet.RemoteUnavailable(fmt.Errorf("decode reply: %w", err))
	}
	return res
}

// RefusedError is the sequencer's refusal, worded as the sequencer worded it.
type RefusedError struct{ Text string }

func (e *RefusedError) Error() string { return e.Text }

// noResponderGrace is how long a request that finds no sequencer
// subscribed is sent again before the replica says the sequencer is not
// reachable: a sequencer whose NATS server was lost is unsubscribed until
// it has reconnected to another, a few milliseconds later.
const noResponderGrace = 2 * time.Second

// request sends data and returns the reply's body after its status byte.
func (c *Client) request(ctx context.Context, what string, data []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	giveUp := time.Now().Add(noResponderGrace)
	msg, err := c.nc.RequestWithContext(ctx, subject(c.chainID, what), data)
	for errors.Is(err, nats.ErrNoResponders) && time.Now().Before(giveUp) {
		// Nobody received it: sending it again cannot do it twice.
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
		msg, err = c.nc.RequestWithContext(ctx, subject(c.chainID, what), data)
	}
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return nil, errors.New("the sequencer is not reachable (no sequencer subscribed to this chain's relay on NATS); retry in a moment")
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("the sequencer did not answer within %v; the transaction may still be pooled: check its hash before sending again", c.timeout)
	case err != nil:
		return nil, fmt.Errorf("relay to the sequencer: %w", err)
	}
	if len(msg.Data) == 0 {
		return nil, errors.New("relay to the sequencer: empty reply")
	}
	if msg.Data[0] != statusOK {
		return nil, &RefusedError{Text: string(msg.Data[1:])}
	}
	return msg.Data[1:], nil
}
