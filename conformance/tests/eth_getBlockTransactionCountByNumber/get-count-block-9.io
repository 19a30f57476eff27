>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockTransactionCountByNumber","params":["0x9"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3"}
