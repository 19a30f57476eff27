package lease

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// HandoverSubject is where chainID's leader takes requests to hand over
// (op-conductor's transferLeader): it answers with its name, stops
// sequencing at once, leaving the block being built to the log, and gives
// the lease up for a standby, which resumes that block. Only a key that may
// publish there (the sequencer's, node/natsauth) can ask.
func HandoverSubject(chainID uint64) string {
	return "stocknode." + strconv.FormatUint(chainID, 10) + ".ha.handover"
}

// RequestHandover asks chainID's leader to hand over, and returns its name.
func RequestHandover(ctx context.Context, nc *nats.Conn, chainID uint64) (string, error) {
	msg, err := nc.RequestWithContext(ctx, HandoverSubject(chainID), nil)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return "", errors.New("no candidate leads chain " + strconv.FormatUint(chainID, 10) + " on this NATS (are the candidates running with --ha?)")
	case err != nil:
		return "", fmt.Errorf("ask the leader to hand over: %w", err)
	}
	return string(msg.Data), nil
}

// CurrentHolder names the candidate that holds chainID's lease ("" when
// none does), read without opening the lease as a candidate.
func CurrentHolder(ctx context.Context, js jetstream.JetStream, chainID uint64) (string, error) {
	kv, err := js.KeyValue(ctx, BucketName(chainID))
	if err != nil {
		return "", fmt.Errorf("lease: bucket %s: %w", BucketName(chainID), err)
	}
	return (&Lease{kv: kv}).Holder(ctx)
}
