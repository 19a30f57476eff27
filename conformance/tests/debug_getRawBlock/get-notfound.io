>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawBlock","params":["0x64"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
