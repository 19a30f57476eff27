package abuse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

// The NATS attacks: a sequencer's --nats.listen, reached by a stranger
// (no key) and by an insider (the replica's key: a replica machine taken
// over). They need -nats-url and -nats-nkey (scripts/abuse.sh starts the
// node with --nats.listen and passes them).

var errNoNATS = errors.New("needs -nats-url and -nats-nkey: the node's --nats.listen address and its replica's seed (scripts/abuse.sh passes them)")

// natsStrangers: nobody without an admitted key connects: not anonymous,
// not with a user and password, not with a key of its own.
func (b *battery) natsStrangers(ctx context.Context) outcome {
	var out outcome
	if b.cfg.NATSURL == "" {
		out.err = errNoNATS
		return out
	}
	stranger, err := nkeys.CreateUser()
	if err != nil {
		out.err = err
		return out
	}
	pub, _ := stranger.PublicKey()
	for _, c := range []struct {
		name string
		opts []nats.Option
	}{
		{"anonymous", nil},
		{"a user and password", []nats.Option{nats.UserInfo("sequencer", "sequencer")}},
		{"a key not admitted", []nats.Option{nats.Nkey(pub, stranger.Sign)}},
	} {
		nc, err := nats.Connect(b.cfg.NATSURL, append(c.opts, nats.MaxReconnects(0), nats.Timeout(b.cfg.StepTimeout))...)
		if err == nil {
			nc.Close()
			out.unexpectedf("%s connected to the NATS listener", c.name)
			continue
		}
		out.detailf("%s: %v", c.name, err)
	}
	return out
}

// natsInsider: with a replica's key, forging a log entry, deleting,
// purging or reconfiguring the stream, answering the relay in the
// sequencer's place and speaking as another replica are all refused, and
// the log and the chain go on as before.
func (b *battery) natsInsider(ctx context.Context) outcome {
	var out outcome
	nc, perms, err := b.natsInsiderConn()
	if err != nil {
		out.err = err
		return out
	}
	defer nc.Close()
	stream := seqlog.StreamName(chain.PreviewChainID)
	before, err := streamState(ctx, nc, stream)
	if err != nil {
		out.err = err
		return out
	}
	update, _ := json.Marshal(map[string]any{"name": stream, "subjects": []string{"stocknode.84538453.log.>"}, "max_age": 2e9, "max_msgs": 1})
	attempts := []struct{ what, subject string }{
		{"a 3-byte forged pre-confirmation", "stocknode.84538453.log.preconfirmed"},
		{"the stream's deletion", "$JS.API.STREAM.DELETE." + stream},
		{"its purge", "$JS.API.STREAM.PURGE." + stream},
		{"its update to max_age 2s, max_msgs 1", "$JS.API.STREAM.UPDATE." + stream},
		{"a drip as another replica", "stocknode.84538453.relay.drip.UANOTHERREPLICA"},
	}
	for _, a := range attempts {
		data := []byte{1, 2, 3}
		if strings.Contains(a.subject, "UPDATE") {
			data = update
		}
		if err := nc.Publish(a.subject, data); err != nil {
			out.err = err
			return out
		}
		b.expectViolation(&out, perms, a.what, `Publish to "`+a.subject+`"`)
	}
	if _, err := nc.QueueSubscribe("stocknode.84538453.relay.tx.*", "sequencer", func(m *nats.Msg) { _ = m.Respond([]byte{0}) }); err != nil {
		out.err = err
		return out
	}
	b.expectViolation(&out, perms, "joining the sequencer's relay queue group", "Subscription to")
	after, err := b.appendedAfter(ctx, nc, stream, before.State.LastSeq)
	switch {
	case err != nil:
		out.unexpectedf("the stream after the attempts: %v", err)
	case after.Config.MaxAge != before.Config.MaxAge || after.Config.MaxMsgs != before.Config.MaxMsgs:
		out.unexpectedf("the stream's limits changed: max_age %v, max_msgs %d", after.Config.MaxAge, after.Config.MaxMsgs)
	case after.State.FirstSeq != before.State.FirstSeq || after.State.LastSeq <= before.State.LastSeq:
		out.unexpectedf("the log went from %d..%d to %d..%d (want the same start, and the sequencer still appending)",
			before.State.FirstSeq, before.State.LastSeq, after.State.FirstSeq, after.State.LastSeq)
	default:
		out.detailf("log %d..%d before, %d..%d after: intact, and appended to", before.State.FirstSeq, before.State.LastSeq, after.State.FirstSeq, after.State.LastSeq)
	}
	return out
}

// appendedAfter waits, for a step's time at most, until the sequencer
// appended past last, and returns the stream's state then.
func (b *battery) appendedAfter(ctx context.Context, nc *nats.Conn, stream string, last uint64) (*jetstream.StreamInfo, error) {
	deadline := time.Now().Add(b.cfg.StepTimeout)
	for {
		info, err := streamState(ctx, nc, stream)
		if err != nil || info.State.LastSeq > last || time.Now().After(deadline) {
			return info, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// natsDripAddresses: drips relayed with invented client addresses share
// the replica's one cooldown: 50 of them get one drip out.
func (b *battery) natsDripAddresses(ctx context.Context) outcome {
	var out outcome
	nc, _, err := b.natsInsiderConn()
	if err != nil {
		out.err = err
		return out
	}
	defer nc.Close()
	_, key, err := natsauth.Client{NKeyFile: b.cfg.NATSNKey}.Options()
	if err != nil {
		out.err = err
		return out
	}
	client := relay.NewClient(nc, chain.PreviewChainID, b.cfg.StepTimeout, key)
	statuses := map[int]int{}
	for i := range 50 {
		var to common.Address
		to[0], to[18], to[19] = 0xd1, byte(i>>8), byte(i)
		res := client.Drip(ctx, drip.Request{To: to, Client: netip.AddrFrom4([4]byte{10, 77, byte(i >> 8), byte(i)})})
		statuses[res.Status]++
	}
	out.detailf("50 drips from 50 invented client addresses: statuses %v", statuses)
	if statuses[200] > 1 {
		out.unexpectedf("%d drips went out (want at most 1: the replica's cooldown)", statuses[200])
	}
	return out
}

// natsInsiderConn connects with the replica's key, collecting the
// permission violations the server reports.
func (b *battery) natsInsiderConn() (*nats.Conn, *natsauth.Violations, error) {
	if b.cfg.NATSURL == "" || b.cfg.NATSNKey == "" {
		return nil, nil, errNoNATS
	}
	opts, _, err := natsauth.Client{NKeyFile: b.cfg.NATSNKey}.Options()
	if err != nil {
		return nil, nil, err
	}
	perms := new(natsauth.Violations)
	nc, err := nats.Connect(b.cfg.NATSURL, append(opts, nats.ErrorHandler(perms.Handler), nats.Timeout(b.cfg.StepTimeout))...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect with the replica's key: %w", err)
	}
	return nc, perms, nil
}

func (b *battery) expectViolation(out *outcome, perms *natsauth.Violations, what, want string) {
	deadline := time.Now().Add(b.cfg.StepTimeout)
	for !perms.Has(want) {
		if time.Now().After(deadline) {
			out.unexpectedf("%s: no permissions violation within %v (accepted?)", what, b.cfg.StepTimeout)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	out.detailf("%s: refused", what)
}

func streamState(ctx context.Context, nc *nats.Conn, name string) (*jetstream.StreamInfo, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	s, err := js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", name, err)
	}
	return s.Info(ctx)
}
