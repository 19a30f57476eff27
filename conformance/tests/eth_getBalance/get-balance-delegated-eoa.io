// D, an EOA delegated by EIP-7702
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x561c459bbffd95f29256f0570302e21905f0732b","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0xde0b6b3a7640000"}
