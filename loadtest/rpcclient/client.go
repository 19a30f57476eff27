// Package rpcclient is the JSON-RPC client of the load tools (loadtest and
// compare): calls and batches over fasthttp keep-alive connections.
package rpcclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/loadtest/target"
)

// Client is a JSON-RPC client over a fasthttp.HostClient (keep-alive
// connections, safe for concurrent use), for the flood and its pollers, the
// abuse battery and compare's checks.
type Client struct {
	// HTTP is the connection pool; its timeouts may be changed before use.
	HTTP      *fasthttp.HostClient
	uri, host string
}

// New is a client of the http:// JSON-RPC endpoint rawURL over at most
// conns connections.
func New(rawURL string, conns int) (*Client, error) {
	addr, uri, host, err := target.HostAndPath(rawURL)
	if err != nil {
		return nil, err
	}
	return &Client{uri: uri, host: host, HTTP: &fasthttp.HostClient{Addr: addr, MaxConns: conns,
		MaxIdemponentCallAttempts: 1, ReadTimeout: 15 * time.Second, WriteTimeout: 15 * time.Second,
		NoDefaultUserAgentHeader: true, MaxResponseBodySize: 256 << 20}}, nil
}

// Error is a JSON-RPC error response: the server answered and refused.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Envelope is a JSON-RPC response: its id, and its result or error.
type Envelope struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// Post sends body and returns the response body (a copy).
func (c *Client) Post(body []byte) ([]byte, error) { return c.PostWithin(body, 0) }

// PostWithin is post bounded by timeout, connecting included (0: the
// Client's own timeouts only).
func (c *Client) PostWithin(body []byte, timeout time.Duration) ([]byte, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	status, b, err := c.Exchange(body, deadline)
	if err != nil {
		return nil, err
	}
	if status != fasthttp.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.200s", status, b)
	}
	return b, nil
}

// Exchange sends body and returns the HTTP status and a copy of the
// response body, by deadline (zero: the client's own timeouts only).
func (c *Client) Exchange(body []byte, deadline time.Time) (int, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI(c.uri)
	req.Header.SetHost(c.host)
	req.Header.SetContentType("application/json")
	req.SetBody(body)
	var err error
	if deadline.IsZero() {
		err = c.HTTP.Do(req, resp)
	} else {
		err = c.HTTP.DoDeadline(req, resp, deadline)
	}
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), nil
}

// Call runs one method and decodes its result into result (if not nil). A
// JSON-RPC error comes back as *Error.
func (c *Client) Call(result any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	data, err := c.Post(body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s: %w: %.200s", method, err, data)
	}
	if env.Error != nil {
		return env.Error
	}
	if result != nil {
		return json.Unmarshal(env.Result, result)
	}
	return nil
}

// BatchCall is one element of a batch.
type BatchCall struct {
	Method string
	Params []any
	Result any   // decoded into when not nil
	Err    error // set by batch
}

// Batch sends calls as one JSON-RPC batch. The returned error is a transport
// or decoding failure; each call's own error is in its Err.
func (c *Client) Batch(calls []*BatchCall) error {
	reqs := make([]map[string]any, len(calls))
	for i, bc := range calls {
		params := bc.Params
		if params == nil {
			params = []any{}
		}
		reqs[i] = map[string]any{"jsonrpc": "2.0", "id": i, "method": bc.Method, "params": params}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return err
	}
	data, err := c.Post(body)
	if err != nil {
		return err
	}
	var envs []Envelope
	if err := json.Unmarshal(data, &envs); err != nil {
		return fmt.Errorf("batch: %w: %.200s", err, data)
	}
	for _, bc := range calls {
		bc.Err = fmt.Errorf("%s: no answer in the batch", bc.Method)
	}
	for _, env := range envs {
		var id int
		if json.Unmarshal(env.ID, &id) != nil || id < 0 || id >= len(calls) {
			continue
		}
		bc := calls[id]
		switch {
		case env.Error != nil:
			bc.Err = env.Error
		case bc.Result != nil:
			bc.Err = json.Unmarshal(env.Result, bc.Result)
		default:
			bc.Err = nil
		}
	}
	return nil
}

// ChainSigner asks the node its chain ID and returns it with the latest
// signer for it: what every mode that signs transactions starts with.
func (c *Client) ChainSigner() (*big.Int, types.Signer, error) {
	var chainID hexutil.Big
	if err := c.Call(&chainID, "eth_chainId"); err != nil {
		return nil, nil, err
	}
	return chainID.ToInt(), types.LatestSignerForChainID(chainID.ToInt()), nil
}

// NormalizeReject keeps an error message's kind, without its numbers and addresses.
func NormalizeReject(msg string) string {
	if i := strings.IndexByte(msg, ':'); i > 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return msg
}

var (
	ErrorMember  = []byte(`"error"`)
	ResultMember = []byte(`"result"`)
)

// IsErrorAnswer reports whether body, one JSON-RPC response, answers with
// an error rather than a result, without decoding it. A result may itself
// hold an "error" member (a callTracer frame of a reverted call does), so
// the answer is whichever of the two members comes first: the envelope's
// own members precede anything inside the result.
func IsErrorAnswer(body []byte) bool {
	r := bytes.Index(body, ResultMember)
	e := bytes.Index(body, ErrorMember)
	return r < 0 || (e >= 0 && e < r)
}
