package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/valyala/fasthttp"
)

//go:embed assets
var assetFiles embed.FS

// Cache lifetimes: a content-hashed URL never changes meaning; a plain one
// (typed by hand, or an old page) is revalidated with its ETag.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cachePlain     = "public, max-age=300"
)

// asset is one embedded file, served as /assets/{name} and, content
// hashed, /assets/{stem}.{hash}{ext}.
type asset struct {
	body   []byte
	ctype  string
	etag   string
	hashed string // the content-hashed path pages link to
}

// assets are the embedded files by the name they are served under.
type assets struct {
	byName map[string]*asset // plain and hashed names alike
	plain  map[string]*asset // plain names, for templates
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]*asset{}, plain: map[string]*asset{}}
	err := fs.WalkDir(assetFiles, "assets", func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		body, err := assetFiles.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "assets/")
		sum := sha256.Sum256(body)
		digest := hex.EncodeToString(sum[:])[:12]
		ext := path.Ext(name)
		ctype := mime.TypeByExtension(ext)
		if ctype == "" {
			return fmt.Errorf("asset %s: unknown content type", name)
		}
		hashedName := strings.TrimSuffix(name, ext) + "." + digest + ext
		f := &asset{body: body, ctype: ctype, etag: `"` + digest + `"`, hashed: "/assets/" + hashedName}
		a.byName[name], a.byName[hashedName], a.plain[name] = f, f, f
		return nil
	})
	return a, err
}

// url is the content-hashed path of a named asset, for templates.
func (a *assets) url(name string) (string, error) {
	f, ok := a.plain[name]
	if !ok {
		return "", fmt.Errorf("no asset %q", name)
	}
	return f.hashed, nil
}

// serveAsset answers /assets/...: GET and HEAD, with an ETag and
// If-None-Match.
func (e *Explorer) serveAsset(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		ctx.Error("method not allowed", fasthttp.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(string(ctx.Path()), "/assets/")
	f, ok := e.assets.byName[name]
	if !ok {
		ctx.Error("no such asset", fasthttp.StatusNotFound)
		return
	}
	h := &ctx.Response.Header
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if "/assets/"+name == f.hashed {
		h.Set("Cache-Control", cacheImmutable)
	} else {
		h.Set("Cache-Control", cachePlain)
	}
	if etagMatches(ctx.Request.Header.Peek("If-None-Match"), f.etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	h.SetContentType(f.ctype)
	ctx.SetBody(f.body)
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// any listed tag, weak or strong, that names etag, or "*".
func etagMatches(header []byte, etag string) bool {
	for _, tag := range strings.Split(string(header), ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}
