package abuse

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"golang.org/x/sys/unix"

	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/wsprobe"
)

// The WebSocket checks: how the node closes a connection that breaks the
// protocol or cannot keep up. They read frames off a Conn
// themselves, to see the close frame's code and reason and what came
// before it.

const (
	wsCloseTooSlow     = 1008 // policy violation
	wsCloseInvalidData = 1007
	wsCloseTooBig      = 1009
)

// wsEnd is how a connection ended, as the client saw it.
type wsEnd struct {
	closed    bool // a close frame came
	code      int
	reason    string
	messages  int
	dataBytes int64
	first     []byte // the first data frame (up to 200 bytes)
	err       error  // how it ended without a close frame
}

func (e wsEnd) String() string {
	if e.closed {
		return fmt.Sprintf("close %d %q after %d data frames (%s)", e.code, e.reason, e.messages, byteSize(e.dataBytes))
	}
	return fmt.Sprintf("no close frame after %d data frames (%s): %v", e.messages, byteSize(e.dataBytes), e.err)
}

// readToClose reads frames until a close frame, the end of the
// connection, or the deadline; with stopAtData it stops at the first data
// Frame. It never writes (pings go unanswered): a check may be writing
// on the socket meanwhile.
func readToClose(c *wsprobe.Conn, deadline time.Time, stopAtData bool) wsEnd {
	var e wsEnd
	for time.Now().Before(deadline) {
		for {
			_, op, payload, err := c.Frame()
			if err != nil {
				e.err = err
				return e
			}
			if op == 0xff {
				break // the rest of the frame is still to come
			}
			switch op {
			case wsprobe.OpClose:
				e.closed = true
				if len(payload) >= 2 {
					e.code = int(binary.BigEndian.Uint16(payload))
					e.reason = string(payload[2:])
				}
				return e
			case wsprobe.OpPing, wsprobe.OpPong:
			default:
				e.messages++
				e.dataBytes += int64(len(payload))
				if e.first == nil {
					e.first = bytes.Clone(payload[:min(len(payload), 200)])
				}
				if stopAtData {
					return e
				}
			}
		}
		if err := c.Fill(); err != nil && !isProbeTimeout(err) {
			e.err = err
			return e
		}
	}
	e.err = fmt.Errorf("nothing more within the time allowed")
	return e
}

// isProbeTimeout is a blocking Conn read that found nothing within
// the socket's receive timeout.
func isProbeTimeout(err error) bool { return err != nil && err.Error() == "read timed out" }

// dialCheck opens a WebSocket whose reads time out after a short while,
// so that readToClose sees its deadline.
func (b *battery) dialCheck() (*wsprobe.Conn, error) {
	c, err := wsprobe.Dial(b.cfg.WSURL, b.cfg.StepTimeout)
	if err != nil {
		return nil, err
	}
	tv := unix.NsecToTimeval((200 * time.Millisecond).Nanoseconds())
	if err := unix.SetsockoptTimeval(c.Fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		c.Close()
		return nil, fmt.Errorf("socket options: %w", err)
	}
	return c, nil
}

// wsUTF8 sends a text message that is not UTF-8: the node must close with
// 1007 (RFC 6455 8.1), not answer it.
func (b *battery) wsUTF8(ctx context.Context) outcome {
	var out outcome
	c, err := b.dialCheck()
	if err != nil {
		out.err = err
		return out
	}
	defer c.Close()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[],"x":"` + "\xff\xfe\xfd" + `"}`)
	if err := c.Write(wsprobe.OpText, msg); err != nil {
		out.err = err
		return out
	}
	e := readToClose(c, time.Now().Add(b.cfg.StepTimeout), true)
	switch {
	case e.messages > 0:
		out.detailf("a text message with invalid UTF-8 was answered: %s", truncate(string(e.first), 120))
		out.unexpectedf("accepted a text message that is not UTF-8 (want close %d)", wsCloseInvalidData)
	case !e.closed || e.code != wsCloseInvalidData:
		out.detailf("a text message with invalid UTF-8: %s", e)
		out.unexpectedf("want close %d", wsCloseInvalidData)
	default:
		out.detailf("a text message with invalid UTF-8: %s", e)
	}
	return out
}

// wsOversize streams one message larger than the node takes: it must close
// with 1009 and say why.
func (b *battery) wsOversize(ctx context.Context) outcome {
	var out outcome
	c, err := b.dialCheck()
	if err != nil {
		out.err = err
		return out
	}
	defer c.Close()
	var (
		wg      sync.WaitGroup
		written int64
		werr    error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		written, werr = streamFrame(c.Fd, b.cfg.WSOversizeBytes)
	}()
	e := readToClose(c, time.Now().Add(b.cfg.StepTimeout+20*time.Second), false)
	unix.Shutdown(c.Fd, unix.SHUT_RDWR) // ends the writer if it is still at it
	wg.Wait()
	out.detailf("one %s text message (%s of it sent%s): %s", byteSize(int64(b.cfg.WSOversizeBytes)), byteSize(written), errSuffix(werr), e)
	switch {
	case !e.closed:
		out.unexpectedf("no close frame (want %d and a reason): %v", wsCloseTooBig, e.err)
	case e.code != wsCloseTooBig:
		out.unexpectedf("closed with %d (want %d)", e.code, wsCloseTooBig)
	case e.reason == "":
		out.unexpectedf("the close frame gives no reason")
	}
	return out
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ", then " + err.Error()
}

// streamFrame writes a masked text frame header announcing n bytes, then
// the payload in 64 KiB writes. The mask key is zero, so the payload goes
// as it is: 'a's, which are valid UTF-8.
func streamFrame(fd, n int) (int64, error) {
	hdr := []byte{0x80 | wsprobe.OpText, 0x80 | 127}
	hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	hdr = append(hdr, 0, 0, 0, 0)
	if err := writeFull(fd, hdr); err != nil {
		return 0, err
	}
	chunk := bytes.Repeat([]byte{'a'}, 64<<10)
	var sent int64
	for sent < int64(n) {
		p := chunk[:min(int64(len(chunk)), int64(n)-sent)]
		if err := writeFull(fd, p); err != nil {
			return sent, err
		}
		sent += int64(len(p))
	}
	return sent, nil
}

func writeFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("write: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// wsSubscriptions is how many newHeads subscriptions the slow subscriber
// takes (the node's default limit per connection): 640 notifications a
// second at five blocks a second.
const wsSubscriptions = 128

// wsSlowAnswer is about how large each eth_feeHistory answer the slow
// subscriber asks for is: reward percentiles are sized to the chain's
// length (an empty block's reward is "0x0", 6 bytes with its quotes and
// comma).
const wsSlowAnswer = 1_000_000

// wsSlowClose makes a subscriber that stops reading with megabytes queued
// for it: many subscriptions, and large eth_feeHistory answers asked for
// just before. When it reads again, the node's close frame (1008, too
// slow) must come promptly, not behind everything queued.
func (b *battery) wsSlowClose(ctx context.Context) outcome {
	var out outcome
	rpc, err := rpcclient.New(b.cfg.URL, 1)
	if err != nil {
		out.err = err
		return out
	}
	var head hexutil.Uint64
	if err := rpc.Call(&head, "eth_blockNumber"); err != nil {
		out.err = err
		return out
	}
	blocks := min(1024, int(head)+1)
	percentiles := min(30_000, max(100, wsSlowAnswer/(6*blocks)))
	c, err := b.dialCheck()
	if err != nil {
		out.err = err
		return out
	}
	defer c.Close()
	subs, err := subscribeMany(c, wsSubscriptions, time.Now().Add(b.cfg.StepTimeout))
	if err != nil {
		out.err = err
		return out
	}
	big := feeHistoryBody(blocks, percentiles)
	for i := range b.cfg.WSSlowRequests {
		req := bytes.Replace(big, []byte(`"id":1,`), []byte(`"id":`+strconv.Itoa(1000+i)+`,`), 1)
		if err := c.Write(wsprobe.OpText, req); err != nil {
			out.err = err
			return out
		}
	}
	if !sleepCtx(ctx, b.cfg.WSSlowStall) {
		out.err = ctx.Err()
		return out
	}
	e := readToClose(c, time.Now().Add(time.Minute), false)
	out.detailf("%d newHeads subscriptions and %d eth_feeHistory answers (%d percentiles of %d blocks, about %s each) asked for, then no reads for %v: %s",
		subs, b.cfg.WSSlowRequests, percentiles, blocks, byteSize(int64(6*blocks*percentiles)), b.cfg.WSSlowStall, e)
	switch {
	case !e.closed:
		out.unexpectedf("no close frame for a slow subscriber (want %d): %v after %s of data", wsCloseTooSlow, e.err, byteSize(e.dataBytes))
	case e.dataBytes > int64(b.cfg.WSSlowMaxBytes):
		out.unexpectedf("the close frame came behind %s of queued data (at most %s)", byteSize(e.dataBytes), byteSize(int64(b.cfg.WSSlowMaxBytes)))
	}
	return out
}

// subscribeMany takes up to n newHeads subscriptions, one at a time; it
// stops at the first the node refuses and returns how many it has.
func subscribeMany(c *wsprobe.Conn, n int, deadline time.Time) (int, error) {
	for i := 1; i <= n; i++ {
		id := []byte(`"id":` + strconv.Itoa(i) + `,`)
		if err := c.Write(wsprobe.OpText, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
			return i - 1, err
		}
		for {
			if time.Now().After(deadline) {
				return i - 1, fmt.Errorf("subscription %d: no answer in time", i)
			}
			msg, _, err := c.Next()
			if isProbeTimeout(err) {
				continue
			}
			if err != nil {
				return i - 1, fmt.Errorf("subscription %d: %w", i, err)
			}
			if !bytes.Contains(msg, id) {
				continue // a notification of an earlier subscription
			}
			if !bytes.Contains(msg, rpcclient.ResultMember) {
				return i - 1, nil
			}
			break
		}
	}
	return n, nil
}
