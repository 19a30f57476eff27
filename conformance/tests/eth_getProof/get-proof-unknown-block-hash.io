>> {"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712",[],{"blockHash":"0x00000000000000000000000000000000000000000000000000000000deadbeef"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
