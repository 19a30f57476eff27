package web

import (
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/pending"
)

// A page is a function of the snapshot it reads (and, for its "3 s ago"
// texts and pooled transactions, of the moment), so the same page asked
// again within one snapshot is the same bytes: pageCache keeps the pages
// rendered from one snapshot for at most cacheFor, and the popular pages
// (home, a token everyone looks at) are rendered once per pre-confirmation
// instead of once per visitor. Bounded in pages and bytes, so distinct
// hostile URLs cost memory only up to the bound, and only until the next
// snapshot.
type pageCache struct {
	seq     uint64
	expires time.Time

	mu    sync.Mutex
	pages map[string]cachedPage
	bytes int
}

type cachedPage struct {
	status int
	csp    string
	body   []byte
}

const (
	// cacheFor bounds how stale a cached page gets when snapshots stop
	// changing (--block-time 0): the pool and the clock still move.
	cacheFor        = 250 * time.Millisecond
	maxCachedPages  = 256
	maxCachedBytes  = 16 << 20
	maxCachedKeyLen = 512
)

// cacheOf returns the cache of snap's pages, nil when snap is older than
// the cache's (a request that loaded its snapshot just before a newer one
// was published renders without caching).
func (e *Explorer) cacheOf(snap *pending.Snapshot, now time.Time) *pageCache {
	for {
		c := e.cache.Load()
		if c != nil && c.seq == snap.Seq && now.Before(c.expires) {
			return c
		}
		if c != nil && c.seq > snap.Seq {
			return nil
		}
		fresh := &pageCache{seq: snap.Seq, expires: now.Add(cacheFor), pages: make(map[string]cachedPage)}
		if e.cache.CompareAndSwap(c, fresh) {
			return fresh
		}
	}
}

// serveCached answers ctx from c when it holds the page.
func (c *pageCache) serveCached(ctx *fasthttp.RequestCtx, key []byte) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	p, ok := c.pages[string(key)]
	c.mu.Unlock()
	if !ok {
		return false
	}
	setPageHeaders(ctx)
	ctx.Response.Header.Set("Content-Security-Policy", p.csp)
	ctx.Response.Header.SetContentType("text/html; charset=utf-8")
	ctx.SetStatusCode(p.status)
	ctx.SetBody(p.body) // copied into the response: the cached bytes stay
	return true
}

// keep stores the page just rendered into ctx's response.
func (c *pageCache) keep(ctx *fasthttp.RequestCtx, key []byte) {
	body := ctx.Response.Body()
	if c == nil || len(key) > maxCachedKeyLen || ctx.Response.StatusCode() == fasthttp.StatusSeeOther {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pages) >= maxCachedPages || c.bytes+len(body) > maxCachedBytes {
		return
	}
	if _, ok := c.pages[string(key)]; ok {
		return
	}
	c.pages[string(key)] = cachedPage{
		status: ctx.Response.StatusCode(),
		csp:    string(ctx.Response.Header.Peek("Content-Security-Policy")),
		body:   append([]byte(nil), body...),
	}
	c.bytes += len(body)
}
