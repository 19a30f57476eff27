>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockTransactionCountByNumber","params":["latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x2"}
