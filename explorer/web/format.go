package web

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/contracts"
)

// units writes v base units of a token with decimals as an exact decimal,
// thousands grouped: 1234500000000000000000 with 18 decimals is "1,234.5".
func units(v *big.Int, decimals uint8) string {
	if v == nil {
		return "0"
	}
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	d := int(decimals)
	if len(digits) <= d {
		digits = strings.Repeat("0", d-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-d], strings.TrimRight(digits[len(digits)-d:], "0")
	s := group(whole)
	if frac != "" {
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return s
}

// group puts a comma between every three digits of a natural number.
func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

func eth(v *big.Int) string  { return units(v, 18) + " ETH" }
func gwei(v *big.Int) string { return units(v, 9) + " gwei" }

// num groups the digits of n.
func num(n uint64) string { return group(strconv.FormatUint(n, 10)) }

// short abbreviates a hash or address for a dense table: 0x1234…cdef.
func short(v fmt.Stringer) string { return shortString(v.String()) }

// clip cuts a string read from the chain (a token's name, a decoded
// argument) to n characters, so a hostile contract cannot make a page huge.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// utc writes a block timestamp.
func utc(ts uint64) string {
	return time.Unix(int64(ts), 0).UTC().Format("2006-01-02 15:04:05 UTC")
}

// isoTime writes a block timestamp for <time datetime>.
func isoTime(ts uint64) string { return time.Unix(int64(ts), 0).UTC().Format(time.RFC3339) }

// dateAfter is the age beyond which a time shows as its date rather than
// as an age: "23 h ago", then "2026-01-01 00:00 UTC". app.js's ago keeps
// the same rule.
const dateAfter = 24 * time.Hour

// ago writes how long before now a block timestamp was, in whole seconds
// of now (floor) less the timestamp, as app.js counts them: the same
// timestamp and clock give the same text on the server and in the page,
// and a newer block never reads older. A time in the future (another
// clock) is "just now"; one more than dateAfter ago is its date.
func ago(ts uint64, now time.Time) string {
	secs := now.Unix() - int64(ts)
	d := time.Duration(secs) * time.Second
	switch {
	case secs < 1:
		return "just now"
	case d < time.Minute:
		return strconv.FormatInt(secs, 10) + " s ago"
	case d < time.Hour:
		return strconv.FormatInt(secs/60, 10) + " min ago"
	case d <= dateAfter:
		return strconv.FormatInt(secs/3600, 10) + " h ago"
	}
	return time.Unix(int64(ts), 0).UTC().Format("2006-01-02 15:04 UTC")
}

// plural writes a count with its noun: "1 transaction", "2 transactions",
// digits grouped.
func plural(n any, one, many string) string {
	var v uint64
	switch x := n.(type) {
	case int:
		v = uint64(max(x, 0))
	case uint64:
		v = x
	case uint32:
		v = uint64(x)
	case uint:
		v = uint64(x)
	}
	if v == 1 {
		return "1 " + one
	}
	return num(v) + " " + many
}

// readable writes v base units of a token with decimals for reading rather
// than exactly: at most four decimals for amounts of a unit or more
// ("12.5", "9,999,989.9999", rounded half up), four significant digits below
// one unit ("0.0001234"). units writes the exact amount.
func readable(v *big.Int, decimals uint8) string {
	if v == nil {
		return "0"
	}
	if v.Sign() < 0 {
		return "-" + readable(new(big.Int).Neg(v), decimals)
	}
	one := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	keep := 4 // decimals kept
	if v.Cmp(one) < 0 && v.Sign() > 0 {
		// Four significant digits: the zeros after the point, then four.
		zeros := int(decimals) - len(v.String())
		keep = min(int(decimals), zeros+4)
	}
	if keep >= int(decimals) {
		return units(v, decimals)
	}
	step := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(int(decimals)-keep)), nil)
	rounded := new(big.Int).Add(v, new(big.Int).Rsh(step, 1))
	rounded.Quo(rounded, step).Mul(rounded, step)
	return units(rounded, decimals)
}

// ethReadable is readable in ETH.
func ethReadable(v *big.Int) string { return readable(v, 18) + " ETH" }

// percent writes part/whole as a percentage with one decimal.
func percent(part, whole uint64) string {
	if whole == 0 {
		return "0%"
	}
	return strconv.FormatFloat(float64(part)*100/float64(whole), 'f', 1, 64) + "%"
}

// rate writes a per-second figure with a precision that suits its size.
func rate(v float64) string {
	switch {
	case v >= 1000:
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// duration writes a block time: 200 ms, 1.5 s.
func duration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}

// wad writes a multiplier (1e18 = 1) as a decimal: 1.5.
func wad(v *big.Int) string {
	if v == nil {
		return "–"
	}
	return strings.ReplaceAll(units(v, 18), ",", "")
}

// scaled is a B20 Asset balance in the token's scaled view: balance ×
// multiplier (a WAD), as the token's scaledBalanceOf rounds it (down).
func scaled(balance, multiplier *big.Int) *big.Int {
	if balance == nil || multiplier == nil {
		return nil
	}
	v := new(big.Int).Mul(balance, multiplier)
	return v.Quo(v, big.NewInt(1e18))
}

var featureNames = map[uint8]string{
	contracts.FeatureTransfer: "transfer",
	contracts.FeatureMint:     "mint",
	contracts.FeatureBurn:     "burn",
}

// features names paused features (IB20.PausableFeature).
func features(fs []uint8) string {
	if len(fs) == 0 {
		return "none"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = featureNames[f]
		if names[i] == "" {
			names[i] = "feature " + strconv.Itoa(int(f))
		}
	}
	return strings.Join(names, ", ")
}

var policyTypeNames = map[uint8]string{
	contracts.PolicyBlocklist: "blocklist",
	contracts.PolicyAllowlist: "allowlist",
	contracts.PolicyUnion:     "union",
	contracts.PolicyIntersect: "intersect",
}

// policy describes a PolicyRegistry policy id: its type is the top byte.
func policy(id uint64) string {
	switch id {
	case contracts.AlwaysAllow:
		return "0 (always allow)"
	case contracts.AlwaysBlock:
		return strconv.FormatUint(id, 10) + " (always block)"
	}
	kind := policyTypeNames[uint8(id>>56)]
	if kind == "" {
		kind = "unknown type"
	}
	return strconv.FormatUint(id, 10) + " (" + kind + " #" + strconv.FormatUint(id&(1<<56-1), 10) + ")"
}

// knownNames labels the protocol's contracts wherever an address shows.
var knownNames = map[common.Address]string{
	contracts.ActivationRegistryAddress:       "ActivationRegistry",
	contracts.PolicyRegistryAddress:           "PolicyRegistry",
	contracts.FactoryAddress:                  "B20 factory",
	contracts.TokenSupplyManagerAddress:       "TokenSupplyManager",
	contracts.AssetImplementationAddress:      "B20Asset implementation",
	contracts.StablecoinImplementationAddress: "B20Stablecoin implementation",
}

// hashNames labels the protocol's well-known 32-byte constants (roles,
// policy scopes, feature ids) where a decoded argument holds one.
var hashNames = map[common.Hash]string{
	contracts.DefaultAdminRole:        "DEFAULT_ADMIN_ROLE",
	contracts.MintRole:                "MINT_ROLE",
	contracts.BurnRole:                "BURN_ROLE",
	contracts.BurnBlockedRole:         "BURN_BLOCKED_ROLE",
	contracts.PauseRole:               "PAUSE_ROLE",
	contracts.UnpauseRole:             "UNPAUSE_ROLE",
	contracts.MetadataRole:            "METADATA_ROLE",
	contracts.OperatorRole:            "OPERATOR_ROLE",
	contracts.TransferSenderPolicy:    "TRANSFER_SENDER_POLICY",
	contracts.TransferReceiverPolicy:  "TRANSFER_RECEIVER_POLICY",
	contracts.TransferExecutorPolicy:  "TRANSFER_EXECUTOR_POLICY",
	contracts.MintReceiverPolicy:      "MINT_RECEIVER_POLICY",
	contracts.FeatureIDB20Asset:       "base.b20_asset",
	contracts.FeatureIDB20Stablecoin:  "base.b20_stablecoin",
	contracts.FeatureIDPolicyRegistry: "base.policy_registry",
}
