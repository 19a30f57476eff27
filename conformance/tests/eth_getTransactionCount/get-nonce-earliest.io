>> {"jsonrpc":"2.0","id":1,"method":"eth_getTransactionCount","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4","earliest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0"}
