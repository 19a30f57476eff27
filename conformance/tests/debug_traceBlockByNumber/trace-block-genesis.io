// the genesis has no parent state
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x0"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"genesis is not traceable"}}
