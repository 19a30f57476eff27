// block parameter omitted: defaults to latest
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3635c13c7fc9e4b16c"}
