package web

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/stocks"
)

// Bounds on what a decoded value shows: the input is whatever a sender or
// contract put on chain.
const (
	maxText     = 256 // characters of a decoded string
	maxHexBytes = 64  // bytes of a decoded bytes value
	maxList     = 16  // elements of a decoded array
	maxInner    = 16  // inner calls of createB20 and announce
)

// Call is a decoded call: a transaction's input, or an inner call of
// createB20 (initCalls) or announce (internalCalls).
type Call struct {
	Contract string // the ABI it was decoded with
	Method   string // the signature, e.g. transfer(address,uint256)
	Name     string
	Args     []Value
}

// Event is a decoded log.
type Event struct {
	Contract string
	Name     string
	Args     []Value
}

// Value is one decoded argument, written out for a page.
type Value struct {
	Name, Type string
	Text       string
	// Addrs are shown as links (an address, or an array of them), then Text.
	Addrs []common.Address
	// Calls are the decoded inner calls of a bytes[] of calls.
	Calls []*Call
}

// decoder knows the protocol's ABIs: by address for its fixed contracts,
// B20Asset's for any token of the index, and every method and event of
// all of them by selector and topic for other contracts (an ERC-20's
// transfer and Transfer are B20's too).
type decoder struct {
	byAddress map[common.Address]namedABI
	asset     namedABI
	methods   map[[4]byte]namedMethod
	events    map[common.Hash]namedEvent
}

type namedABI struct {
	name string
	abi  *abi.ABI
}

type namedMethod struct {
	contract string
	method   *abi.Method
}

type namedEvent struct {
	contract string
	event    *abi.Event
}

func newDecoder() (*decoder, error) {
	d := &decoder{
		byAddress: map[common.Address]namedABI{},
		methods:   map[[4]byte]namedMethod{},
		events:    map[common.Hash]namedEvent{},
	}
	fixed := map[string]common.Address{
		contracts.ActivationRegistry: contracts.ActivationRegistryAddress,
		contracts.PolicyRegistry:     contracts.PolicyRegistryAddress,
		contracts.B20Factory:         contracts.FactoryAddress,
		contracts.TokenSupplyManager: contracts.TokenSupplyManagerAddress,
	}
	// B20Asset first: where names collide (ERC-20's and B20's shared
	// surface), its entries win.
	for _, name := range []string{contracts.B20Asset, contracts.B20Stablecoin, contracts.B20Factory,
		contracts.PolicyRegistry, contracts.TokenSupplyManager, contracts.ActivationRegistry} {
		art, err := contracts.Load(name)
		if err != nil {
			return nil, err
		}
		a := namedABI{name, &art.ABI}
		if addr, ok := fixed[name]; ok {
			d.byAddress[addr] = a
		}
		if name == contracts.B20Asset {
			d.asset = a
		}
		for _, m := range art.ABI.Methods {
			var sel [4]byte
			copy(sel[:], m.ID)
			if _, taken := d.methods[sel]; !taken {
				d.methods[sel] = namedMethod{name, &m}
			}
		}
		for _, ev := range art.ABI.Events {
			if _, taken := d.events[ev.ID]; !taken {
				d.events[ev.ID] = namedEvent{name, &ev}
			}
		}
	}
	return d, nil
}

// method finds the method data calls on to: by the contract's own ABI
// when to is known, else by selector.
func (d *decoder) method(to *common.Address, isToken bool, data []byte) (namedMethod, bool) {
	if len(data) < 4 {
		return namedMethod{}, false
	}
	if to != nil {
		a, ok := d.byAddress[*to]
		if !ok && isToken {
			a, ok = d.asset, true
		}
		if ok {
			if m, err := a.abi.MethodById(data[:4]); err == nil {
				return namedMethod{a.name, m}, true
			}
		}
	}
	var sel [4]byte
	copy(sel[:], data)
	m, ok := d.methods[sel]
	return m, ok
}

// methodName names the method an input calls, for the lists' Method
// column: by its selector alone, without unpacking the arguments. Across
// the protocol's ABIs a selector names one method wherever it is (a test
// checks), so the contract called needs no look-up, and an ERC-20's
// transfer, approve and transferFrom are named by B20's. Empty when no
// ABI knows the selector.
func (d *decoder) methodName(input []byte) string {
	if len(input) < 4 {
		return ""
	}
	if m, ok := d.methods[[4]byte(input[:4])]; ok {
		return m.method.Name
	}
	return ""
}

// call decodes a transaction's input; token is the B20 token called, when
// it is one, to write amounts in its units. Nil when no known method
// matches or the arguments do not unpack.
func (d *decoder) call(to *common.Address, token *stocks.Token, data []byte) *Call {
	m, ok := d.method(to, token != nil, data)
	if !ok {
		return nil
	}
	values, err := m.method.Inputs.Unpack(data[4:])
	if err != nil {
		return nil
	}
	c := &Call{Contract: m.contract, Method: m.method.Sig, Name: m.method.Name}
	if m.contract == contracts.B20Factory && m.method.Name == "createB20" {
		return d.createB20(c, m.method.Inputs, values)
	}
	for i, arg := range m.method.Inputs {
		c.Args = append(c.Args, d.value(arg, values[i], token, true))
	}
	return c
}

// createParams are createB20's params by variant, as B20Factory.sol
// abi.decodes them: B20AssetCreateParams and B20StablecoinCreateParams.
var createParams = map[uint8]struct {
	name string
	args abi.Arguments
}{
	contracts.VariantAsset: {"B20AssetCreateParams", tupleArgs(
		abi.ArgumentMarshaling{Name: "version", Type: "uint8"},
		abi.ArgumentMarshaling{Name: "name", Type: "string"},
		abi.ArgumentMarshaling{Name: "symbol", Type: "string"},
		abi.ArgumentMarshaling{Name: "initialAdmin", Type: "address"},
		abi.ArgumentMarshaling{Name: "decimals", Type: "uint8"},
	)},
	contracts.VariantStablecoin: {"B20StablecoinCreateParams", tupleArgs(
		abi.ArgumentMarshaling{Name: "version", Type: "uint8"},
		abi.ArgumentMarshaling{Name: "name", Type: "string"},
		abi.ArgumentMarshaling{Name: "symbol", Type: "string"},
		abi.ArgumentMarshaling{Name: "initialAdmin", Type: "address"},
		abi.ArgumentMarshaling{Name: "currency", Type: "string"},
	)},
}

// stablecoinDecimals are every Stablecoin token's (B20Factory's
// STABLECOIN_DECIMALS).
const stablecoinDecimals = 6

func tupleArgs(fields ...abi.ArgumentMarshaling) abi.Arguments {
	t, err := abi.NewType("tuple", "", fields)
	if err != nil {
		panic(err) // the types are fixed above
	}
	return abi.Arguments{{Type: t}}
}

// createB20 writes createB20's arguments: params decoded as the variant's
// struct, and the initial calls with amounts and caps in the new token's
// units (its decimals and symbol are in params).
func (d *decoder) createB20(c *Call, inputs abi.Arguments, values []any) *Call {
	variant, _ := values[0].(uint8)
	params, token := d.createParams(variant, values[2].([]byte))
	for i, arg := range inputs {
		switch {
		case arg.Name == "params" && params != nil:
			c.Args = append(c.Args, Value{Name: arg.Name, Type: arg.Type.String(), Calls: []*Call{params}})
		case arg.Name == "initCalls":
			calls, _ := values[i].([][]byte)
			v := Value{Name: arg.Name, Type: arg.Type.String()}
			v.Calls, v.Text = d.innerCalls(calls, token)
			c.Args = append(c.Args, v)
		default:
			c.Args = append(c.Args, d.value(arg, values[i], nil, true))
		}
	}
	return c
}

// createParams decodes createB20's params of variant as a pseudo-call
// named after the struct, and the token they create (its symbol and
// decimals); nil, nil when they do not decode.
func (d *decoder) createParams(variant uint8, data []byte) (*Call, *stocks.Token) {
	p, ok := createParams[variant]
	if !ok {
		return nil, nil
	}
	values, err := p.args.Unpack(data)
	if err != nil || len(values) != 1 {
		return nil, nil
	}
	t := p.args[0].Type
	rv := reflect.ValueOf(values[0])
	if rv.Kind() != reflect.Struct || rv.NumField() != len(t.TupleElems) {
		return nil, nil
	}
	c := &Call{Name: p.name, Method: t.String()}
	token := &stocks.Token{Decimals: stablecoinDecimals}
	for i, elem := range t.TupleElems {
		name, v := t.TupleRawNames[i], rv.Field(i).Interface()
		c.Args = append(c.Args, d.value(abi.Argument{Name: name, Type: *elem}, v, nil, false))
		switch x := v.(type) {
		case string:
			if name == "symbol" {
				token.Symbol = x
			}
		case uint8:
			if name == "decimals" {
				token.Decimals = x
			}
		}
	}
	return c, token
}

// event decodes a log; token is the emitting contract when the token index
// knows it, to write amounts in its decimals. Nil when no known event
// matches (by topic and by the number of indexed arguments).
func (d *decoder) event(l *types.Log, token *stocks.Token) *Event {
	if len(l.Topics) == 0 {
		return nil
	}
	ne, ok := d.events[l.Topics[0]]
	if !ok {
		return nil
	}
	var indexed abi.Arguments
	for _, arg := range ne.event.Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	// ERC-721's Transfer shares ERC-20's signature with the amount indexed.
	if len(indexed) != len(l.Topics)-1 {
		return nil
	}
	topics := map[string]any{}
	if err := abi.ParseTopicsIntoMap(topics, indexed, l.Topics[1:]); err != nil {
		return nil
	}
	data, err := ne.event.Inputs.NonIndexed().Unpack(l.Data)
	if err != nil {
		return nil
	}
	ev := &Event{Contract: ne.contract, Name: ne.event.Name}
	next := 0
	for _, arg := range ne.event.Inputs {
		var v any
		if arg.Indexed {
			v = topics[arg.Name]
		} else {
			v = data[next]
			next++
		}
		ev.Args = append(ev.Args, d.value(arg, v, token, false))
	}
	return ev
}

// value writes one decoded argument. Amounts of a known token are written
// in its decimals; inner calls are decoded when inner is set (one level).
func (d *decoder) value(arg abi.Argument, v any, token *stocks.Token, inner bool) Value {
	out := Value{Name: arg.Name, Type: arg.Type.String()}
	name := strings.ToLower(arg.Name)
	switch x := v.(type) {
	case common.Address:
		out.Addrs = []common.Address{x}
	case []common.Address:
		out.Addrs = x[:min(len(x), maxList)]
		if len(x) > maxList {
			out.Text = fmt.Sprintf("and %d more", len(x)-maxList)
		}
	case *big.Int:
		out.Text = x.String()
		switch {
		case strings.Contains(name, "supplycap") && x.Cmp(maxUint128) == 0:
			out.Text = "no cap (2^128 − 1)"
		case token != nil && (name == "amount" || name == "value" || strings.Contains(name, "supplycap")):
			out.Text = strings.TrimSpace(units(x, token.Decimals) + " " + clip(token.Symbol, 16))
		}
	case uint64:
		out.Text = fmt.Sprint(x)
		if strings.Contains(name, "policy") && !strings.Contains(name, "type") {
			out.Text = policy(x)
		}
	case uint8:
		out.Text = d.enum(name, x)
	case []byte: // bytes, or uint8[] (enum arrays)
		switch {
		case arg.Type.T == abi.BytesTy:
			out.Text = hexClip(x)
		case name == "features":
			out.Text = features(x)
		default:
			out.Text = list(x)
		}
	case [32]byte:
		out.Text = common.Hash(x).Hex()
		if label, ok := hashNames[x]; ok && (x != [32]byte{} || strings.Contains(name, "role")) {
			out.Text += " (" + label + ")"
		}
	case [][]byte:
		if inner && (name == "initcalls" || name == "internalcalls") {
			out.Calls, out.Text = d.innerCalls(x, nil)
		} else {
			out.Text = plural(len(x), "byte string", "byte strings")
		}
	case string:
		out.Text = fmt.Sprintf("%q", clip(x, maxText))
	default:
		out.Text = list(v)
	}
	return out
}

// enum names the uint8 enums of the protocol's ABIs.
func (d *decoder) enum(name string, v uint8) string {
	switch name {
	case "policytype":
		if s, ok := policyTypeNames[v]; ok {
			return fmt.Sprintf("%d (%s)", v, s)
		}
	case "variant":
		switch v {
		case contracts.VariantAsset:
			return "0 (Asset)"
		case contracts.VariantStablecoin:
			return "1 (Stablecoin)"
		}
	}
	return fmt.Sprint(v)
}

// innerCalls decodes createB20's initCalls and announce's internalCalls,
// which run on a B20 token: token when known, to write its amounts and caps
// in its units.
func (d *decoder) innerCalls(calls [][]byte, token *stocks.Token) ([]*Call, string) {
	var out []*Call
	for _, data := range calls[:min(len(calls), maxInner)] {
		c := d.innerCall(data, token)
		out = append(out, c)
	}
	more := ""
	if len(calls) > maxInner {
		more = "and " + plural(len(calls)-maxInner, "more call", "more calls")
	}
	return out, more
}

func (d *decoder) innerCall(data []byte, token *stocks.Token) *Call {
	m, err := d.asset.abi.MethodById(data[:min(len(data), 4)])
	if err != nil || len(data) < 4 {
		return &Call{Name: hexClip(data)}
	}
	values, err := m.Inputs.Unpack(data[4:])
	if err != nil {
		return &Call{Name: hexClip(data)}
	}
	c := &Call{Contract: d.asset.name, Method: m.Sig, Name: m.Name}
	for i, arg := range m.Inputs {
		c.Args = append(c.Args, d.value(arg, values[i], token, false))
	}
	return c
}

// list writes any other value (arrays of numbers, tuples), bounded.
func list(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return clip(fmt.Sprint(v), maxText)
	}
	parts := make([]string, 0, min(rv.Len(), maxList))
	for i := 0; i < rv.Len() && i < maxList; i++ {
		parts = append(parts, clip(fmt.Sprint(rv.Index(i).Interface()), 80))
	}
	s := "[" + strings.Join(parts, ", ") + "]"
	if rv.Len() > maxList {
		s += fmt.Sprintf(" and %d more", rv.Len()-maxList)
	}
	return s
}

// hexClip writes bytes as hex, the first maxHexBytes of them.
func hexClip(b []byte) string {
	if len(b) <= maxHexBytes {
		return hexutil.Encode(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", hexutil.Encode(b[:maxHexBytes]), len(b))
}
