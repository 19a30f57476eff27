package codec_test

import (
	"fmt"

	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/codec"
)

// A request is scanned in place, its parameters parsed one by one, and the
// response appended to a reused buffer.
func Example() {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","latest"]}`)
	buf := make([]byte, 0, 512) // pooled in a server

	var req codec.Request
	if cerr := codec.ScanRequest(body, &req); cerr != nil {
		fmt.Printf("%s\n", codec.AppendError(buf[:0], req.ID, cerr))
		return
	}
	params, _ := codec.Array(req.Params)
	params.Next()
	addr, err := codec.ParseAddress(params.Value())
	if err != nil {
		fmt.Printf("%s\n", codec.AppendError(buf[:0], req.ID, &codec.Error{Code: codec.CodeInvalidParams, Message: err.Error()}))
		return
	}
	params.Next()
	block, _ := codec.ParseBlockParam(params.Value())
	fmt.Println(string(req.Method), addr.Hex(), block.Tag == codec.TagLatest)

	balance := uint256.NewInt(10_000)
	buf = codec.AppendResultStart(buf[:0], req.ID)
	buf = codec.AppendUint256(buf, balance)
	buf = codec.AppendResultEnd(buf)
	fmt.Printf("%s\n", buf)
	// Output:
	// eth_getBalance 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 true
	// {"jsonrpc":"2.0","id":1,"result":"0x2710"}
}

func ExampleScanRequest_errors() {
	var req codec.Request
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_call"`,
		`{"jsonrpc":"2.0","id":"a","params":[]}`,
	} {
		cerr := codec.ScanRequest([]byte(body), &req)
		fmt.Printf("%s\n", codec.AppendError(nil, req.ID, cerr))
	}
	// Output:
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}
	// {"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"invalid request"}}
}

func ExampleParseBlockParam() {
	for _, raw := range []string{`"pending"`, `"0x1b4"`, `{"blockNumber":"0x1","blockHash":"0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6"}`} {
		bp, err := codec.ParseBlockParam([]byte(raw))
		fmt.Println(bp.Tag, bp.Number, err)
	}
	// Output:
	// pending 0 <nil>
	// number 436 <nil>
	// number 0 cannot specify both BlockHash and BlockNumber, choose one or the other
}
