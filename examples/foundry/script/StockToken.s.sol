// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IB20Asset, IB20Factory, B20AssetCreateParams} from "../src/IB20.sol";

/// Foundry's cheatcodes this script uses (forge-std's Vm has them all;
/// declared here so that the example needs no library install).
interface Vm {
    function envOr(string calldata name, uint256 defaultValue) external view returns (uint256);
    function envOr(string calldata name, address defaultValue) external view returns (address);
    function addr(uint256 privateKey) external pure returns (address);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
    function prank(address sender) external;
    function toString(address value) external pure returns (string memory);
    function toString(uint256 value) external pure returns (string memory);
}

/// A stock token on the preview network, as `forge script`: create it
/// through Base's B20 factory with MINT_ROLE and a supply cap granted by
/// initCalls, mint to a holder, read the balance back, and show the reverts
/// of a mint without the role and of one past the cap (simulated, not sent).
///
///   STOCKNODE_RPC=http://127.0.0.1:8545 forge script script/StockToken.s.sol --rpc-url stocknode --broadcast
///
/// (foundry.toml's `stocknode` endpoint is STOCKNODE_RPC; run.sh sets it and goes on with cast.)
/// STOCKNODE_KEY is the issuer's key (default: development account 5, funded
/// by the preview genesis), STOCKNODE_HOLDER who receives the mint (default:
/// a new address each run). It returns the token and the holder.
contract StockToken {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    address constant CONSOLE = 0x000000000000000000636F6e736F6c652e6c6f67;
    IB20Factory constant FACTORY = IB20Factory(0xB20f000000000000000000000000000000000000);
    uint8 constant ASSET = 0;

    function run() external returns (address token, address holder) {
        uint256 key = vm.envOr("STOCKNODE_KEY", uint256(0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba));
        address issuer = vm.addr(key);
        // A salt of this run: the token's address is CREATE2(factory, variant, issuer, salt).
        bytes32 salt = keccak256(abi.encode(issuer, block.number, block.timestamp));
        holder = vm.envOr("STOCKNODE_HOLDER", address(uint160(uint256(keccak256(abi.encode("holder", salt))))));

        bytes memory params = abi.encode(
            B20AssetCreateParams({
                version: 1,
                name: "Forge Stock Co. (example)",
                symbol: "XFRG",
                initialAdmin: issuer,
                decimals: 6
            })
        );
        // The admin holds DEFAULT_ADMIN_ROLE, which grants roles but does
        // not mint: the factory runs these on the new token before
        // createB20 returns.
        bytes[] memory initCalls = new bytes[](2);
        initCalls[0] = abi.encodeCall(IB20Asset.grantRole, (keccak256("MINT_ROLE"), issuer));
        initCalls[1] = abi.encodeCall(IB20Asset.updateSupplyCap, (1_000_000e6));
        address predicted = FACTORY.getB20Address(ASSET, issuer, salt);

        vm.startBroadcast(key);
        token = FACTORY.createB20(ASSET, salt, params, initCalls);
        IB20Asset(token).mint(holder, 1_000e6);
        vm.stopBroadcast();

        require(token == predicted, "getB20Address predicted another address");
        require(IB20Asset(token).balanceOf(holder) == 1_000e6, "the holder's balance");
        log(string.concat("token ", vm.toString(token), " (predicted by getB20Address), issuer ", vm.toString(issuer)));
        log(string.concat("balanceOf(holder ", vm.toString(holder), "): ", vm.toString(IB20Asset(token).balanceOf(holder))));

        // Reverts, run in the script's simulation only (after stopBroadcast
        // nothing is sent): a mint by an account without MINT_ROLE, and a
        // mint past the supply cap.
        vm.prank(holder);
        try IB20Asset(token).mint(holder, 1) {
            revert("a mint without MINT_ROLE went through");
        } catch (bytes memory err) {
            require(bytes4(err) == IB20Asset.AccessControlUnauthorizedAccount.selector, "want AccessControlUnauthorizedAccount");
            log("mint from the holder (no MINT_ROLE): reverts AccessControlUnauthorizedAccount");
        }
        vm.prank(issuer);
        try IB20Asset(token).mint(holder, 1_000_000e6) {
            revert("a mint past the cap went through");
        } catch (bytes memory err) {
            require(bytes4(err) == IB20Asset.SupplyCapExceeded.selector, "want SupplyCapExceeded");
            log("mint of 1,000,000 more: reverts SupplyCapExceeded");
        }
    }

    /// log prints a line in forge's output (console.log(string), as forge-std's console).
    function log(string memory line) internal view {
        (bool ok,) = CONSOLE.staticcall(abi.encodeWithSignature("log(string)", line));
        ok;
    }
}
