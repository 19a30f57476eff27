// the fee recipient collects priority fees
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000c0ffee","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x8d42d96a13f71"}
