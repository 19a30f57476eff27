package stocks

import (
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/crypto"
)

// readABI is the part of Base's IB20Asset interface the index reads, and the
// factory's B20Created event. It is written out here rather than taken from
// our contracts' artifacts: the index reads any token that answers Base's
// interface, whoever compiled it.
const readABI = `[
 {"type":"function","name":"name","inputs":[],"outputs":[{"type":"string"}],"stateMutability":"view"},
 {"type":"function","name":"symbol","inputs":[],"outputs":[{"type":"string"}],"stateMutability":"view"},
 {"type":"function","name":"decimals","inputs":[],"outputs":[{"type":"uint8"}],"stateMutability":"view"},
 {"type":"function","name":"totalSupply","inputs":[],"outputs":[{"type":"uint256"}],"stateMutability":"view"},
 {"type":"function","name":"multiplier","inputs":[],"outputs":[{"type":"uint256"}],"stateMutability":"view"},
 {"type":"function","name":"pausedFeatures","inputs":[],"outputs":[{"type":"uint8[]"}],"stateMutability":"view"},
 {"type":"function","name":"extraMetadata","inputs":[{"name":"key","type":"string"}],"outputs":[{"type":"string"}],"stateMutability":"view"}
]`

// b20CreatedTopic is topic 0 of IB20Factory's
// B20Created(address indexed token, uint8 indexed variant, string name, string symbol, uint8 decimals, bytes variantEventParams).
var b20CreatedTopic = crypto.Keccak256Hash([]byte("B20Created(address,uint8,string,string,uint8,bytes)"))

// tokenABI parses readABI; it is a constant, so a failure is a programming error.
func tokenABI() abi.ABI {
	parsed, err := abi.JSON(strings.NewReader(readABI))
	if err != nil {
		panic("stocks: bad read ABI: " + err.Error())
	}
	return parsed
}
