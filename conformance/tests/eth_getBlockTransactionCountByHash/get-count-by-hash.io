>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockTransactionCountByHash","params":["0x633fe007d14b92e71eb35041516733bfab7ad39be5844138c98a7ea38df78586"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3"}
