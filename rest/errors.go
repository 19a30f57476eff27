package rest

import (
	"bytes"
	"encoding/json"

	"github.com/valyala/fasthttp"
)

// gRPC status codes, as grpc-gateway maps them to HTTP.
const (
	codeInvalidArgument = 3  // 400
	codeNotFound        = 5  // 404
	codeUnimplemented   = 12 // 501 (grpc-gateway's wrong method)
	codeUnavailable     = 14 // 503
)

// status is the spec's error status object (grpc-gateway's rpcStatus):
// details is always an array.
type status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// writeError answers httpStatus with the error status object.
func writeError(ctx *fasthttp.RequestCtx, httpStatus, code int, message string) {
	body, err := json.Marshal(status{Code: code, Message: message, Details: []any{}})
	if err != nil {
		panic("rest: encode status: " + err.Error()) // a string and an int
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.SetContentTypeBytes(jsonContentType)
	ctx.SetStatusCode(httpStatus)
	ctx.SetBody(body)
}

// NotFound answers a path nothing serves as grpc-gateway does: 404, code 5.
func NotFound(ctx *fasthttp.RequestCtx) {
	writeError(ctx, fasthttp.StatusNotFound, codeNotFound, "Not Found")
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// any listed tag, weak or strong, that names etag, or "*".
func etagMatches(header []byte, etag string) bool {
	for len(header) > 0 {
		header = bytes.TrimLeft(header, " \t,")
		if len(header) == 0 {
			break
		}
		if header[0] == '*' {
			return true
		}
		header = bytes.TrimPrefix(header, []byte("W/"))
		if len(header) == 0 || header[0] != '"' {
			return false // malformed: no match, a full answer
		}
		end := bytes.IndexByte(header[1:], '"')
		if end < 0 {
			return false
		}
		if string(header[:end+2]) == etag {
			return true
		}
		header = header[end+2:]
	}
	return false
}
