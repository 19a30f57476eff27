// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title LoadToken: the plain ERC-20 that `make compare` predeploys in its
/// genesis. The balances mapping is slot 0 and totalSupply slot 1, so a
/// genesis sets a balance with the storage key keccak256(pad32(holder) ++ pad32(0)).
/// There is no constructor: only the runtime bytecode is used.
contract LoadToken {
    mapping(address => uint256) public balanceOf; // slot 0
    uint256 public totalSupply; // slot 1
    mapping(address => mapping(address => uint256)) public allowance; // slot 2

    uint8 public constant decimals = 18;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "insufficient allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) internal {
        require(to != address(0), "transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= value, "insufficient balance");
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
