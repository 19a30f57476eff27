// a hash no transaction has
>> {"jsonrpc":"2.0","id":1,"method":"base_transactionStatus","params":["0x00000000000000000000000000000000000000000000000000000000deadbeef"]}
<< {"jsonrpc":"2.0","id":1,"result":{"status":"Unknown"}}
