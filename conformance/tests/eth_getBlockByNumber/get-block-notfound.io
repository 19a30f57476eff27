// a block beyond the head is null
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x64",false]}
<< {"jsonrpc":"2.0","id":1,"result":null}
