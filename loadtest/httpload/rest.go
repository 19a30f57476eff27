package httpload

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// kindREST is the http mode's Tokenized Stocks REST workload: GETs that
// rotate over the token list, the chains list and each token's total supply.
const kindREST = "rest"

// restPaths lists the REST workload's paths on the target: the fixed ones
// and the total supply of every token the target lists.
func restPaths(client doer, host, base string, timeout time.Duration) ([]string, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodGet)
	req.SetRequestURI(base + "v1/tokenized-stocks")
	req.Header.SetHost(host)
	var err error
	for deadline := time.Now().Add(timeout); ; time.Sleep(200 * time.Millisecond) {
		// The index answers 503 until it caught up after the node's start.
		err = client.Do(req, resp)
		if err == nil && resp.StatusCode() == fasthttp.StatusOK || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("rest workload: list tokens: %w", err)
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return nil, fmt.Errorf("rest workload: list tokens: HTTP %d: %.200s", resp.StatusCode(), resp.Body())
	}
	var list struct {
		Tokens []struct {
			Address string `json:"contract_address"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(resp.Body(), &list); err != nil {
		return nil, fmt.Errorf("rest workload: list tokens: %w", err)
	}
	paths := []string{base + "v1/tokenized-stocks", base + "v1/tokenized-stocks/chains"}
	for _, t := range list.Tokens {
		paths = append(paths, base+"v1/tokenized-stocks/total-supply/"+t.Address)
	}
	return paths, nil
}

// kindPages is the http mode's GET workload over paths the caller names
// (-paths): the explorer's pages, measured beside RPC traffic.
const kindPages = "pages"

// pagePaths reads -paths: comma-separated absolute paths.
func pagePaths(list string) ([]string, error) {
	var paths []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("-paths: %q is not an absolute path (want e.g. /,/tokens,/block/1)", p)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
