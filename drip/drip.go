// Package drip defines a faucet drip as it travels between nodes: the
// request a read replica relays to its sequencer, and the answer the
// sequencer's faucet gives. It sits below both the engine's relay and the
// faucet, so that the engine carries drips without importing the app that
// runs them.
package drip

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/internal/httpapi"
)

// Request is one checked drip: the address, the client its cooldown counts
// (as the node that took the request resolved it) and the captcha token. A
// read replica hands it to the sequencer's faucet (node/relay), so that
// every replica drips from one account under one set of cooldowns.
type Request struct {
	To      common.Address `json:"to"`
	Client  netip.Addr     `json:"client"`
	Captcha string         `json:"captcha,omitempty"`
	// Replica, set by the sequencer (never taken from the wire), is the
	// replica that relayed the drip when its word on Client is not
	// trusted: the replica's cooldown then stands for its clients'.
	Replica string `json:"-"`
}

// Result is a drip's answer as the faucet API writes it: 200 with the
// transaction, or an error status with its code and message.
type Result struct {
	Status     int           `json:"status"`
	Code       int           `json:"code,omitempty"`
	Message    string        `json:"message,omitempty"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	TxHash     common.Hash   `json:"tx_hash"`
	AmountWei  string        `json:"amount_wei,omitempty"`
	To         string        `json:"to,omitempty"`
}

// Unreachable is the result of a drip the sequencer could not be asked for.
func Unreachable(err error) Result {
	return unavailable(fmt.Sprintf("the sequencer's faucet did not answer (%v); retry in a moment", err))
}

// Refused is the result of a drip the sequencer refused to run (its faucet
// off, too many requests at once), in the sequencer's words.
func Refused(msg string) Result { return unavailable(msg) }

func unavailable(msg string) Result {
	return Result{Status: fasthttp.StatusServiceUnavailable, Code: httpapi.Unavailable, Message: msg}
}
