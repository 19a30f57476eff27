// Package httpapi holds what the REST API and the faucet API share: the
// spec's error status object, the body of every answer other than 200
// (grpc-gateway's rpcStatus, {"code", "message", "details"}, with the gRPC
// code grpc-gateway pairs with the HTTP status), and the parsing of an
// address in a path or a query.
package httpapi

import (
	"encoding/json"

	"github.com/valyala/fasthttp"
)

// gRPC status codes, with the HTTP status grpc-gateway maps each to.
const (
	InvalidArgument   = 3  // 400
	NotFoundCode      = 5  // 404
	PermissionDenied  = 7  // 403
	ResourceExhausted = 8  // 429
	Unimplemented     = 12 // 501 (grpc-gateway's answer to a wrong method)
	Internal          = 13 // 500
	Unavailable       = 14 // 503
)

// Status is the error status object: details is always an array, never null.
type Status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

var jsonContentType = []byte("application/json")

// Write answers httpStatus with the error status object of code and msg.
// An error is never worth caching: a retry may well succeed.
func Write(ctx *fasthttp.RequestCtx, httpStatus, code int, msg string) {
	body, err := json.Marshal(Status{Code: code, Message: msg, Details: []any{}})
	if err != nil {
		panic("apistatus: encode status: " + err.Error()) // a string and an int
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.SetContentTypeBytes(jsonContentType)
	ctx.SetStatusCode(httpStatus)
	ctx.SetBody(body)
}

// NotFound answers a path nothing serves as grpc-gateway does: 404, code 5.
func NotFound(ctx *fasthttp.RequestCtx) {
	Write(ctx, fasthttp.StatusNotFound, NotFoundCode, "Not Found")
}
