// an unknown transaction is null
>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawTransaction","params":["0x00000000000000000000000000000000000000000000000000000000deadbeef"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
