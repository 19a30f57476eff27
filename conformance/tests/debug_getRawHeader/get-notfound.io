// a block beyond the head is null
>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawHeader","params":["0x64"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
