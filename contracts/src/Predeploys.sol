// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

// Addresses and constants shared by the B20 contracts. Everything here is a
// compile-time constant: the singletons are placed in the genesis as runtime
// code without running a constructor, so they can hold no immutables.

/// @dev Base's ActivationRegistry address.
address constant ACTIVATION_REGISTRY = 0x8453000000000000000000000000000000000001;

/// @dev Base's PolicyRegistry address.
address constant POLICY_REGISTRY = 0x8453000000000000000000000000000000000002;

/// @dev Base's B20 factory address.
address constant B20_FACTORY = 0xB20f000000000000000000000000000000000000;

/// @dev stocknode's TokenSupplyManager (not part of Base's protocol).
address constant TOKEN_SUPPLY_MANAGER = 0x8453000000000000000000000000000000000100;

/// @dev stocknode's B20Asset implementation, the code every Asset token clone delegates to.
address constant B20_ASSET_IMPLEMENTATION = 0x8453000000000000000000000000000000000101;

/// @dev stocknode's B20Stablecoin implementation, the code every Stablecoin token clone delegates to.
address constant B20_STABLECOIN_IMPLEMENTATION = 0x8453000000000000000000000000000000000102;

/// @dev ActivationRegistry feature id of the Asset variant: keccak256("base.b20_asset").
bytes32 constant FEATURE_B20_ASSET = keccak256("base.b20_asset");

/// @dev ActivationRegistry feature id of the Stablecoin variant: keccak256("base.b20_stablecoin").
bytes32 constant FEATURE_B20_STABLECOIN = keccak256("base.b20_stablecoin");

/// @dev ActivationRegistry feature id of the PolicyRegistry: keccak256("base.policy_registry").
bytes32 constant FEATURE_POLICY_REGISTRY = keccak256("base.policy_registry");

/// @dev Built-in policy that authorizes everyone (an empty BLOCKLIST, counter 0).
uint64 constant ALWAYS_ALLOW = 0;

/// @dev Built-in policy that authorizes no one (an empty ALLOWLIST, counter 1).
uint64 constant ALWAYS_BLOCK = (uint64(1) << 56) | 1;

/// @dev The registry's view of a policy, as the tokens use it.
interface IPolicyAuthority {
    function isAuthorized(uint64 policyId, address account) external view returns (bool);
    function policyExists(uint64 policyId) external view returns (bool);
}

/// @dev The factory's view of a token's creation, as the tokens use it.
interface IB20Creation {
    function isB20(address token) external view returns (bool);
    function isB20Initialized(address token) external view returns (bool);
}

/// @dev The ActivationRegistry's query, as the factory uses it.
interface IActivation {
    function isActivated(bytes32 feature) external view returns (bool);
}
