// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The parts of the B20 factory and Asset token interfaces this example uses:
/// the same signatures as Base's IB20Factory and IB20Asset
/// (contracts/README.md), at Base's factory address.
interface IB20Factory {
    function createB20(uint8 variant, bytes32 salt, bytes calldata params, bytes[] calldata initCalls)
        external
        returns (address token);
    function getB20Address(uint8 variant, address sender, bytes32 salt) external view returns (address);
    function isB20(address token) external view returns (bool);
}

interface IB20Asset {
    function MINT_ROLE() external view returns (bytes32);
    function grantRole(bytes32 role, address account) external;
    function hasRole(bytes32 role, address account) external view returns (bool);
    function updateSupplyCap(uint256 newSupplyCap) external;
    function supplyCap() external view returns (uint256);
    function mint(address to, uint256 amount) external;
    function balanceOf(address account) external view returns (uint256);
    function totalSupply() external view returns (uint256);
    function symbol() external view returns (string memory);

    error AccessControlUnauthorizedAccount(address account, bytes32 neededRole);
    error SupplyCapExceeded(uint256 cap, uint256 attempted);
}

/// createB20's `params` for an Asset token: abi.encode of this struct.
struct B20AssetCreateParams {
    uint8 version; // 1
    string name;
    string symbol;
    address initialAdmin;
    uint8 decimals; // 6 to 18
}
