package web

import (
	"fmt"
	"time"
)

// faucetData is the faucet page.
type faucetData struct {
	// Available is false when the node has no faucet, or it is off.
	Available bool
	Info      FaucetInfo
	// DripURL is where the page's script posts {"address"}.
	DripURL string
	// CooldownSeconds drives the page's countdown after a drip.
	CooldownSeconds int64
}

func (e *Explorer) faucet(r *request) (result, error) {
	d := faucetData{DripURL: e.cfg.FaucetAPI + "/drip"}
	if e.deps.Faucet != nil {
		info, err := e.deps.Faucet()
		if err != nil {
			return result{}, fmt.Errorf("faucet status: %w", err)
		}
		d.Info, d.Available = info, info.Enabled
		d.CooldownSeconds = int64(info.Cooldown.Round(time.Second) / time.Second)
	}
	return result{page: "faucet", title: "Faucet", data: d}, nil
}
