package failover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stocknode/stocknode/internal/devcluster"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/seqlog"
)

// natsKills kills each NATS server that does not lead the log's stream,
// then the stream's leader leaderKills times, and measures the pause to
// the next pre-confirmation after each. Each killed server is started
// again, and the stream made whole, before the next kill.
func natsKills(ctx context.Context, c *devcluster.Cluster, w *logWatch, leaderKills int, interval time.Duration) (followers, leaders []time.Duration, err error) {
	stream, closeConn, err := logStream(c)
	if err != nil {
		return nil, nil, err
	}
	defer closeConn()
	lead, err := devcluster.StreamLeader(ctx, stream)
	if err != nil {
		return nil, nil, err
	}
	for i := range c.NATS {
		if i == lead {
			continue
		}
		pause, err := killAndRestartNATS(ctx, c, w, stream, i)
		if err != nil {
			return nil, nil, err
		}
		followers = append(followers, pause)
	}
	for range leaderKills {
		if err := sleep(ctx, interval); err != nil {
			return nil, nil, err
		}
		if lead, err = devcluster.StreamLeader(ctx, stream); err != nil {
			return nil, nil, err
		}
		pause, err := killAndRestartNATS(ctx, c, w, stream, lead)
		if err != nil {
			return nil, nil, err
		}
		leaders = append(leaders, pause)
	}
	return followers, leaders, nil
}

// killAndRestartNATS kills server i, measures the pause, starts the
// server again and waits until the stream is whole.
func killAndRestartNATS(ctx context.Context, c *devcluster.Cluster, w *logWatch, stream jetstream.Stream, i int) (time.Duration, error) {
	pause, err := killNATS(ctx, c, w, i)
	if err != nil {
		return 0, err
	}
	if err := c.RestartNATS(i); err != nil {
		return 0, err
	}
	return pause, awaitWhole(ctx, stream)
}

// killNATS kills server i and measures the pause from its end (a
// process killed, or a server in this process shut down, after it handed
// its leaderships over) to the next pre-confirmation stored.
func killNATS(ctx context.Context, c *devcluster.Cluster, w *logWatch, i int) (time.Duration, error) {
	c.NATS[i].Kill()
	killed := time.Now()
	at, err := w.preconfirmedSince(ctx, killed)
	if err != nil {
		return 0, fmt.Errorf("after NATS server %s was killed: %w", c.NATS[i].Name, err)
	}
	return at.Sub(killed), nil
}

func logStream(c *devcluster.Cluster) (jetstream.Stream, func(), error) {
	nc, err := nats.Connect(strings.Join(c.URLs, ","), nats.MaxReconnects(-1))
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, seqlog.StreamName(chain.PreviewChainID))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return stream, nc.Close, nil
}

// awaitWhole waits until the stream has a leader and two current
// replicas: a server started again has caught up.
func awaitWhole(ctx context.Context, stream jetstream.Stream) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		info, err := stream.Info(attempt)
		cancel()
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" && len(info.Cluster.Replicas) == 2 {
			current := 0
			for _, r := range info.Cluster.Replicas {
				if r.Current && !r.Offline {
					current++
				}
			}
			if current == 2 {
				return nil
			}
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return errors.New("the log's stream has not three current replicas 60s after a NATS server restarted")
}
