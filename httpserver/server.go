// Package httpserver is the node's HTTP front end on fasthttp: JSON-RPC at
// POST /, a health check at GET /health, CORS, optional TLS, gzip for large
// responses, and limits that keep one client from hurting the others. Other
// paths are left to the handlers registered with Handle and Mount (explorer,
// REST), and what none claims to the one set with NotFound.
package httpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/peer"
)

// RPC answers a JSON-RPC body from client p by appending the response to
// dst. A positive retryAfter says p is over its rate limit: the response
// then holds the error, and the front end answers 429 with Retry-After.
type RPC interface {
	Serve(p *peer.Peer, body, dst []byte) (out []byte, retryAfter time.Duration)
}

// Health reports on the service for GET /health: the JSON object to answer,
// and whether the service is fit to serve; an unfit one answers 503, so that
// a load balancer routes around it.
type Health func() (report []byte, ok bool)

// Config is the front end's configuration.
type Config struct {
	Addr      string   // host:port
	CORS      []string // allowed origins; "*" allows any
	TLSCert   string   // with TLSKey: serve HTTPS on the same port
	TLSKey    string
	BodyLimit int // bytes; larger requests get 413
	GzipMin   int // responses at least this large are gzipped when accepted
	// HeaderTimeout bounds reading a request's headers, and a body of up
	// to smallBody bytes, from the request's first byte (from the
	// connection's opening for its first request): a client that sends
	// slowly (slowloris) is cut off. A larger body gets ReadTimeout from
	// the end of the headers. IdleTimeout closes a keep-alive connection
	// with no request; WriteTimeout bounds writing a response.
	HeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns caps open connections (HTTP and WebSocket); the excess is
	// refused with 503. MaxConnsPerIP caps them per client address (an
	// IPv6 /64) with 429. 0: no cap.
	MaxConns, MaxConnsPerIP int
	// TrustedProxies may name the client in X-Forwarded-For.
	TrustedProxies peer.Proxies
	// Logger receives the accept loop's warnings; nil discards them.
	Logger *slog.Logger
}

// DefaultConfig has geth-like limits.
func DefaultConfig() Config {
	return Config{
		Addr:          "127.0.0.1:8545",
		CORS:          []string{"*"},
		BodyLimit:     5 * 1024 * 1024,
		GzipMin:       1024,
		HeaderTimeout: 10 * time.Second,
		ReadTimeout:   30 * time.Second,
		WriteTimeout:  30 * time.Second,
		IdleTimeout:   120 * time.Second,
	}
}

// Server serves HTTP until its context ends.
type Server struct {
	cfg    Config
	rpc    RPC
	health Health
	routes map[string]fasthttp.RequestHandler // GET paths
	mounts []mount                            // path prefixes, every method
	views  map[string]RPC                     // POST paths of JSON-RPC besides /
	// notFound answers a path nothing serves.
	notFound fasthttp.RequestHandler
	srv      *fasthttp.Server
	ln       *listener
	bufs     sync.Pool // *[]byte response scratch
}

// New returns a server; Listen binds it.
func New(cfg Config, rpc RPC, health Health) *Server {
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = cfg.ReadTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{cfg: cfg, rpc: rpc, health: health, routes: map[string]fasthttp.RequestHandler{}, views: map[string]RPC{}, notFound: plainNotFound}
	s.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	s.srv = &fasthttp.Server{
		Handler:                       s.serve,
		HeaderReceived:                s.headerReceived,
		Name:                          "stocknode",
		MaxRequestBodySize:            cfg.BodyLimit,
		ReadTimeout:                   cfg.HeaderTimeout,
		WriteTimeout:                  cfg.WriteTimeout,
		IdleTimeout:                   cfg.IdleTimeout,
		NoDefaultDate:                 true,
		NoDefaultContentType:          true,
		DisableHeaderNamesNormalizing: false,
		ErrorHandler:                  s.errorHandler,
		Logger:                        quietLogger{}, // client errors are answered, not logged
	}
	if cfg.MaxConns > 0 {
		// The listener refuses beyond MaxConns; fasthttp's own cap (with
		// its less helpful message) must never come first.
		s.srv.Concurrency = cfg.MaxConns + 1
	}
	return s
}

// Handle registers a GET (and HEAD) handler for path (explorer pages).
func (s *Server) Handle(path string, h fasthttp.RequestHandler) { s.routes[path] = h }

// HandleRPC serves JSON-RPC POSTed to path (and path + "/") with rpc: the
// same node in another view (/preconf). Register before Serve.
func (s *Server) HandleRPC(path string, rpc RPC) {
	s.views[path], s.views[path+"/"] = rpc, rpc
}

// mount is a handler for every method on the paths under a prefix.
type mount struct {
	prefix string
	h      fasthttp.RequestHandler
}

// Mount gives h every request, whatever its method (but OPTIONS, which CORS
// answers), whose path starts with prefix: an API under it answers its own
// wrong methods and unknown paths. Register before Serve.
func (s *Server) Mount(prefix string, h fasthttp.RequestHandler) {
	s.mounts = append(s.mounts, mount{prefix, h})
}

// NotFound sets the answer to a request no route serves (by default 404
// "not found" and 405 for other methods than GET, in plain text).
func (s *Server) NotFound(h fasthttp.RequestHandler) { s.notFound = h }

func plainNotFound(ctx *fasthttp.RequestCtx) {
	if ctx.IsGet() || ctx.IsHead() {
		ctx.Error("not found", fasthttp.StatusNotFound)
		return
	}
	ctx.Error("method not allowed", fasthttp.StatusMethodNotAllowed)
}

// Listen binds the address; Addr then reports the bound address.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	s.ln = newListener(ln, s.cfg.MaxConns, s.cfg.MaxConnsPerIP, s.cfg.Logger)
	if err := s.ln.gateFor(s.cfg.HeaderTimeout); err != nil {
		ln.Close()
		return err
	}
	return nil
}

// Conns reports open connections and those refused at the caps so far.
func (s *Server) Conns() (open int, refused uint64) { return s.ln.Conns() }

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve serves until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() {
		if s.cfg.TLSCert != "" {
			errc <- s.srv.ServeTLS(s.ln, s.cfg.TLSCert, s.cfg.TLSKey)
		} else {
			errc <- s.srv.Serve(s.ln)
		}
	}()
	select {
	case err := <-errc:
		// The accept loop retries what passes (listener.Accept): this is
		// the end of the port, which the node must not outlive silently.
		return fmt.Errorf("http server stopped: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.ShutdownWithContext(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("http shutdown: %w", err)
	}
	return nil
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// errorHandler answers requests fasthttp rejects itself (too large,
// malformed, too slow); fasthttp closes the connection afterwards. The
// answer never quotes the request: fasthttp's errors do, and a page that
// echoes what a client sent is an injection waiting to happen.
func (s *Server) errorHandler(ctx *fasthttp.RequestCtx, err error) {
	defer noSniff(ctx)
	var netErr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		ctx.Error(fmt.Sprintf("request body too large: the limit is %d bytes (--http.bodylimit)", s.cfg.BodyLimit), fasthttp.StatusRequestEntityTooLarge)
	case errors.As(err, &netErr) && netErr.Timeout():
		ctx.Error("request not received in time (--http.headertimeout, --http.readtimeout)", fasthttp.StatusRequestTimeout)
	default:
		ctx.Error("malformed HTTP request", fasthttp.StatusBadRequest)
	}
}

func (s *Server) serve(ctx *fasthttp.RequestCtx) {
	defer noSniff(ctx) // after the handler: ctx.Error drops the headers set before it
	if framingConflict(&ctx.Request.Header) {
		ctx.SetConnectionClose()
		ctx.Error(errFramingConflict, fasthttp.StatusBadRequest)
		return
	}
	s.cors(ctx)
	path := ctx.Path()
	switch {
	case ctx.IsOptions():
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	case ctx.IsPost() && (len(path) == 1 && path[0] == '/'):
		s.serveRPC(ctx, s.rpc)
	case ctx.IsPost() && s.views[string(path)] != nil:
		s.serveRPC(ctx, s.views[string(path)])
	case ctx.IsGet() && string(path) == "/health":
		s.serveHealth(ctx)
	default:
		s.route(ctx, path)
	}
}

// noSniff tells browsers to take every answer for the type it declares. A
// JSON answer quotes what clients wrote (a token's name, an error's
// input); sniffed as HTML, it would run as a page of this origin.
func noSniff(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("X-Content-Type-Options", "nosniff")
}

// route finds the handler of a request that is not JSON-RPC or /health.
func (s *Server) route(ctx *fasthttp.RequestCtx, path []byte) {
	for _, m := range s.mounts {
		if bytes.HasPrefix(path, []byte(m.prefix)) {
			m.h(ctx)
			return
		}
	}
	if ctx.IsGet() || ctx.IsHead() {
		if h, ok := s.routes[string(path)]; ok {
			h(ctx)
			return
		}
	}
	s.notFound(ctx)
}

var jsonType = []byte("application/json")

func (s *Server) serveRPC(ctx *fasthttp.RequestCtx, rpc RPC) {
	if ct := ctx.Request.Header.ContentType(); !isJSON(ct) {
		ctx.Error("invalid content type, only application/json is supported", fasthttp.StatusUnsupportedMediaType)
		return
	}
	bp := s.bufs.Get().(*[]byte)
	out, retryAfter := rpc.Serve(s.Peer(ctx), ctx.PostBody(), (*bp)[:0])
	if retryAfter > 0 {
		ctx.SetStatusCode(fasthttp.StatusTooManyRequests)
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	}
	ctx.Response.Header.SetContentTypeBytes(jsonType)
	if len(out) >= s.cfg.GzipMin && ctx.Request.Header.HasAcceptEncoding("gzip") {
		ctx.Response.Header.SetContentEncoding("gzip")
		ctx.Response.SetBody(fasthttp.AppendGzipBytesLevel(ctx.Response.Body()[:0], out, fasthttp.CompressDefaultCompression))
	} else {
		// Hand our buffer to the response and keep its old one: no copy.
		out = ctx.Response.SwapBody(out)
	}
	if cap(out) > maxPooledBuffer {
		return // one huge answer must not stay in the pool for the next
	}
	*bp = out[:0]
	s.bufs.Put(bp)
}

// maxPooledBuffer is the largest response buffer kept for reuse.
const maxPooledBuffer = 1 << 20

// Peer is the client of ctx: the connection's, or the one a trusted proxy
// names in X-Forwarded-For.
func (s *Server) Peer(ctx *fasthttp.RequestCtx) *peer.Peer {
	p := connPeer(ctx.Conn())
	if p == nil || len(s.cfg.TrustedProxies) == 0 || !s.cfg.TrustedProxies.Trusts(p.Addr) {
		return p
	}
	if xff := ctx.Request.Header.Peek("X-Forwarded-For"); len(xff) > 0 {
		if client := s.cfg.TrustedProxies.Client(p.Addr, xff); client != p.Addr {
			return p.As(client)
		}
	}
	return p
}

// isJSON accepts application/json with optional parameters (charset).
func isJSON(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(ct), jsonType)
}

func (s *Server) serveHealth(ctx *fasthttp.RequestCtx) {
	report, ok := s.health()
	status := fasthttp.StatusOK
	if !ok {
		status = fasthttp.StatusServiceUnavailable
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(report)
}

func (s *Server) cors(ctx *fasthttp.RequestCtx) {
	origin := ctx.Request.Header.Peek("Origin")
	if len(origin) == 0 || len(s.cfg.CORS) == 0 {
		return
	}
	allowed := ""
	for _, o := range s.cfg.CORS {
		if o == "*" || o == string(origin) {
			allowed = o
			break
		}
	}
	if allowed == "" {
		return
	}
	h := &ctx.Response.Header
	h.Set("Access-Control-Allow-Origin", allowed)
	h.Set("Vary", "Origin")
	// A page may read the validator it revalidates with.
	h.Set("Access-Control-Expose-Headers", "ETag, Retry-After")
	if ctx.IsOptions() {
		h.Set("Access-Control-Allow-Methods", "POST, GET, HEAD, OPTIONS")
		// X-Captcha-Token carries a faucet drip's captcha answer: too
		// large for the faucet's body bound, so it travels as a header.
		h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, If-None-Match, X-Captcha-Token")
		h.Set("Access-Control-Max-Age", "600")
	}
}
