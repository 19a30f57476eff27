>> {"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByBlockHashAndIndex","params":["0x00000000000000000000000000000000000000000000000000000000deadbeef","0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
