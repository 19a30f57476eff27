>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockTransactionCountByNumber","params":["earliest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0"}
