// block 7: the set-code transaction
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByHash","params":["0xea78b9f3d049b994fe54c19af496ba63b4bd801fe08818bcc8f080fdb9afcadc",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":[{"txHash":"0x0e1d396d70762846b7ef1357edfa89ca6a9c00aeb0ddba7dfc6d3fcf55579f02","result":{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0x30d40","gasUsed":"0x1360f","to":"0x561c459bbffd95f29256f0570302e21905f0732b","input":"0x60fe47b10000000000000000000000000000000000000000000000000000000000000007","value":"0x0","type":"CALL"}}]}
