// D.get(): runs C's code on D's storage (EIP-7702)
>> {"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0x6d4ce63c","to":"0x561c459bbffd95f29256f0570302e21905f0732b"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0000000000000000000000000000000000000000000000000000000000000007"}
