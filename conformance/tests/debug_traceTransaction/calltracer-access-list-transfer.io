// an EIP-2930 transfer
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0x39af905a5041b7c945ca133ee35458499f0a06de2e8c1c22b786ee8663cd0d60",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x899fb28829fd298b3b8952dcd09db3e1009b5183","gas":"0x62d4","gasUsed":"0x62d4","to":"0x00000000000000000000000000000000000a11ce","input":"0x","value":"0x2","type":"CALL"}}
