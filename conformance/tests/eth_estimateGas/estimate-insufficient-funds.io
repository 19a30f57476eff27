// R cannot send more than it has
>> {"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0x00000000000000000000000000000000000a11ce","to":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","value":"0xffffffffffffffffffffffffffff"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"insufficient funds for transfer"}}
