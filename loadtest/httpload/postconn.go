package httpload

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// postConn is one worker's own keep-alive connection for JSON-RPC POSTs:
// each request is written in one call from bytes kept between requests,
// and each answer is parsed by fasthttp's Response.Read (a Content-Length
// or a chunked body, as every anchor sends). It replaces
// fasthttp.HostClient where a worker sends one request at a time: the
// client's pool hands each request a connection under a lock and records
// its idle time, and it writes the request's headers anew each time. The
// generator shares the machine's two cores with the server it measures,
// so what it spends on a request is taken from the server
// (PERFORMANCE.md, "A leaner generator").
type postConn struct {
	addr    string
	timeout time.Duration
	head    []byte // the request line and the headers, up to Content-Length's value
	out     []byte // the request being written
	conn    net.Conn
	br      *bufio.Reader
}

func newPostConn(addr, uri, host string, timeout time.Duration) *postConn {
	head := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: ", uri, host)
	return &postConn{addr: addr, timeout: timeout, head: head}
}

// do posts body at now and reads the answer into resp. A transport error
// closes the connection, and the next do dials again, as HostClient does.
func (c *postConn) do(body []byte, resp *fasthttp.Response, now time.Time) error {
	if c.conn == nil {
		conn, err := dialRaw(c.addr)
		if err != nil {
			return err
		}
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	c.out = append(c.out[:0], c.head...)
	c.out = strconv.AppendInt(c.out, int64(len(body)), 10)
	c.out = append(c.out, "\r\n\r\n"...)
	c.out = append(c.out, body...)
	if c.timeout > 0 {
		if err := c.conn.SetDeadline(now.Add(c.timeout)); err != nil {
			c.close()
			return err
		}
	}
	if _, err := c.conn.Write(c.out); err != nil {
		c.close()
		return err
	}
	if err := resp.Read(c.br); err != nil {
		c.close()
		return err
	}
	if resp.ConnectionClose() {
		c.close()
	}
	return nil
}

func (c *postConn) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.br = nil, nil
	}
}
