package codec

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

const testHash = "0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6"

var blockParamTests = []struct {
	in   string
	want BlockParam
	err  string
}{
	{in: `"latest"`, want: BlockParam{Tag: TagLatest}},
	{in: `"pending"`, want: BlockParam{Tag: TagPending}},
	{in: `"safe"`, want: BlockParam{Tag: TagSafe}},
	{in: `"finalized"`, want: BlockParam{Tag: TagFinalized}},
	{in: `"earliest"`, want: BlockParam{Tag: TagEarliest}},
	{in: ` "latest" `, want: BlockParam{Tag: TagLatest}},
	{in: `"lat\u0065st"`, want: BlockParam{Tag: TagLatest}}, // geth unescapes this path
	{in: `"0x0"`, want: BlockParam{Tag: TagNumber}},
	{in: `"0x1b4"`, want: BlockParam{Tag: TagNumber, Number: 0x1b4}},
	{in: `"0X1B4"`, want: BlockParam{Tag: TagNumber, Number: 0x1b4}},
	{in: `"0x7fffffffffffffff"`, want: BlockParam{Tag: TagNumber, Number: 1<<63 - 1}},
	{in: `"` + testHash + `"`, want: BlockParam{Tag: TagHash, Hash: common.HexToHash(testHash)}},
	{in: `{"blockHash":"` + testHash + `"}`, want: BlockParam{Tag: TagHash, Hash: common.HexToHash(testHash)}},
	{in: `{"blockHash":"` + testHash + `","requireCanonical":true}`, want: BlockParam{Tag: TagHash, Hash: common.HexToHash(testHash), RequireCanonical: true}},
	{in: `{ "requireCanonical" : false , "blockHash" : "` + testHash + `" }`, want: BlockParam{Tag: TagHash, Hash: common.HexToHash(testHash)}},
	{in: `{"blockNumber":"0x10"}`, want: BlockParam{Tag: TagNumber, Number: 16}},
	{in: `{"blockNumber":"pending"}`, want: BlockParam{Tag: TagPending}},
	{in: `{"blockNumber":"0x10","requireCanonical":true}`, want: BlockParam{Tag: TagNumber, Number: 16, RequireCanonical: true}},
	{in: `{"blockNumber":"0x10","blockHash":null}`, want: BlockParam{Tag: TagNumber, Number: 16}},
	{in: `{"blockNumber":"0x10","requireCanonical":true,"requireCanonical":null}`, want: BlockParam{Tag: TagNumber, Number: 16, RequireCanonical: true}},
	{in: `{"BLOCKNUMBER":"0x10","other":[1,{"x":2}]}`, want: BlockParam{Tag: TagNumber, Number: 16}},
	{in: `{"block\u004eumber":"0x10"}`, want: BlockParam{Tag: TagNumber, Number: 16}},
	{in: `{"bloc\u212aNumber":"0x10"}`, want: BlockParam{Tag: TagNumber, Number: 16}}, // Kelvin sign folds to k
	{in: `{"blockNumber":"0x1","blockNumber":"0x2"}`, want: BlockParam{Tag: TagNumber, Number: 2}},

	{in: `"0x8000000000000000"`, err: "blocknumber too high"},
	{in: `"0x10000000000000000"`, err: msgUint64Range},
	{in: `"0x10000000000000000g"`, err: msgUint64Range}, // the overflow comes first
	{in: `"0x1000000000000000g"`, err: msgSyntax},       // the bad digit comes first
	{in: `"0xg0000000000000000"`, err: msgSyntax},
	{in: `""`, err: msgEmptyString},
	{in: `"0x"`, err: msgEmptyNumber},
	{in: `"0x01"`, err: msgLeadingZero},
	{in: `"1"`, err: msgMissingPrefix},
	{in: `"Latest"`, err: msgMissingPrefix},
	{in: `"0x` + testHash[2:65] + `"`, err: msgUint64Range}, // 65 characters: a number
	{in: `"00` + testHash[2:] + `"`, err: msgMissingPrefix},
	{in: `"0x` + testHash[2:65] + `g"`, err: msgSyntax},
	{in: `"0x\u0031"`, want: BlockParam{Tag: TagNumber, Number: 1}},
	{in: `null`, err: "must specify either BlockHash or BlockNumber"},
	{in: `{}`, err: "must specify either BlockHash or BlockNumber"},
	{in: `{"blockNumber":null}`, err: "must specify either BlockHash or BlockNumber"},
	{in: `{"requireCanonical":true}`, err: "must specify either BlockHash or BlockNumber"},
	{in: `{"blockNumber":"0x1","blockHash":"` + testHash + `"}`, err: "cannot specify both BlockHash and BlockNumber, choose one or the other"},
	{in: `{"blockNumber":"0x8000000000000000"}`, err: "json: cannot unmarshal object into Go value of type string"},
	{in: `{"blockNumber":"0x"}`, err: "json: cannot unmarshal object into Go value of type string"},
	{in: `{"blockNumber":1}`, err: "json: cannot unmarshal object into Go value of type string"},
	{in: `{"blockHash":"0x1"}`, err: "json: cannot unmarshal object into Go value of type string"},
	{in: `{"blockNumber":"0x1","requireCanonical":"true"}`, err: "json: cannot unmarshal object into Go value of type string"},
	{in: `{"blockNumber":"0x1","blockHash":"0x1"}`, err: "json: cannot unmarshal object into Go value of type string"},
	{in: `1`, err: "json: cannot unmarshal number into Go value of type string"},
	{in: `true`, err: "json: cannot unmarshal bool into Go value of type string"},
	{in: `["latest"]`, err: "json: cannot unmarshal array into Go value of type string"},
}

func TestParseBlockParam(t *testing.T) {
	for _, tt := range blockParamTests {
		got, err := ParseBlockParam([]byte(tt.in))
		if errText(err) != tt.err || got != tt.want {
			t.Errorf("ParseBlockParam(%s) = %+v, %q; want %+v, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		// The copied geth code must say the same.
		want, werr := refBlockParam([]byte(tt.in))
		if errText(err) != errText(werr) || got != want {
			t.Errorf("ParseBlockParam(%s) = %+v, %q; geth says %+v, %q", tt.in, got, errText(err), want, errText(werr))
		}
	}
}

func TestParseBlockParamInvalidJSON(t *testing.T) {
	for _, in := range []string{``, `"latest`, `"a\x"`, `{"blockNumber":"0x1"`, `[1,`, `1.`, `{"blockNumber":"0x1"}x`} {
		if _, err := ParseBlockParam([]byte(in)); err == nil {
			t.Errorf("ParseBlockParam(%q) accepted invalid JSON", in)
		}
	}
}

func TestParseBlockNumber(t *testing.T) {
	tests := []struct {
		in   string
		want BlockParam
		err  string
	}{
		{in: `"latest"`, want: BlockParam{Tag: TagLatest}},
		{in: `"earliest"`, want: BlockParam{Tag: TagEarliest}},
		{in: `"safe"`, want: BlockParam{Tag: TagSafe}},
		{in: `"0x2a"`, want: BlockParam{Tag: TagNumber, Number: 42}},
		{in: `"0x8000000000000000"`, err: "block number larger than int64"},
		{in: `"lat\u0065st"`, err: msgMissingPrefix}, // not unescaped on this path
		{in: `"` + testHash + `"`, err: msgUint64Range},
		{in: `""`, err: msgEmptyString},
		{in: `null`, err: msgMissingPrefix},
		{in: `{"blockNumber":"0x1"}`, err: msgMissingPrefix},
	}
	for _, tt := range tests {
		got, err := ParseBlockNumber([]byte(tt.in))
		if errText(err) != tt.err || got != tt.want {
			t.Errorf("ParseBlockNumber(%s) = %+v, %q; want %+v, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		var ref refBlockNumber
		rerr := ref.UnmarshalJSON([]byte(tt.in))
		if errText(rerr) != errText(err) {
			t.Errorf("ParseBlockNumber(%s) error %q; geth says %q", tt.in, errText(err), errText(rerr))
		}
		if rerr == nil && err == nil && got.Tag == TagNumber && uint64(ref) != got.Number {
			t.Errorf("ParseBlockNumber(%s) = %d; geth says %d", tt.in, got.Number, ref)
		}
	}
}

func TestDecodeUint64MatchesStrconvOrder(t *testing.T) {
	// The string rules report whichever of a bad digit and an overflow comes
	// first, as strconv.ParseUint does.
	for _, in := range []string{"0x" + strings.Repeat("f", 16) + "g", "0x" + strings.Repeat("f", 15) + "g0", "0x1" + strings.Repeat("0", 16)} {
		_, err := decodeUint64([]byte(in))
		_, want := refDecodeUint64(in)
		if errText(err) != errText(want) {
			t.Errorf("decodeUint64(%q) = %v, hexutil.DecodeUint64 says %v", in, err, want)
		}
	}
}

func TestBlockTagString(t *testing.T) {
	for tag, want := range map[BlockTag]string{TagNumber: "number", TagLatest: "latest", TagPending: "pending", TagSafe: "safe",
		TagFinalized: "finalized", TagEarliest: "earliest", TagHash: "hash", 42: "BlockTag(42)"} {
		if got := tag.String(); got != want {
			t.Errorf("BlockTag(%d).String() = %q, want %q", tag, got, want)
		}
	}
}
