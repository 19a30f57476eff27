// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {FEATURE_B20_ASSET, FEATURE_B20_STABLECOIN, FEATURE_POLICY_REGISTRY} from "./Predeploys.sol";

/// @title ActivationRegistry
///
/// @notice Gates Base-native features behind an activation admin, at Base's address
///         `0x8453…0001`. Each feature is an opaque `bytes32` id (by convention the keccak256
///         of a name such as `"base.b20_asset"`) and is either activated or not.
///
/// @dev    A genesis predeploy: no constructor, no immutables, and all-zero storage is the
///         initial state. The features this chain ships with (the Asset and Stablecoin
///         variants and the PolicyRegistry) are activated by default in code; storage only
///         records the features whose state the admin has flipped since genesis.
contract ActivationRegistry {
    /// @notice The activation admin, the same fixed identity as Base's precompile.
    address public constant ADMIN = 0xCB00000000000000000000000000000000000000;

    /// @dev Features whose state differs from their genesis default.
    mapping(bytes32 feature => bool flipped) private _flipped;

    /// @notice `caller` is not the activation admin.
    error Unauthorized(address caller);

    /// @notice `activate` was called on a feature that is already activated.
    error AlreadyActivated(bytes32 feature);

    /// @notice `feature` is not activated. Raised by `checkActivated`, by `deactivate`, and by
    ///         consumers that use the registry as a hard gate (the B20 factory).
    error FeatureNotActivated(bytes32 feature);

    /// @notice Declared for ABI compatibility with Base's precompile; a contract cannot tell a
    ///         DELEGATECALL into it from a CALL, so this registry never raises it.
    error DelegateCallNotAllowed();

    /// @notice Declared for ABI compatibility with Base's precompile; under STATICCALL the EVM
    ///         itself rejects `activate`/`deactivate`, so this registry never raises it.
    error StaticCallNotAllowed();

    /// @notice `feature` was activated by `caller`.
    event FeatureActivated(bytes32 indexed feature, address indexed caller);

    /// @notice `feature` was deactivated by `caller`.
    event FeatureDeactivated(bytes32 indexed feature, address indexed caller);

    /// @notice The address authorized to call `activate` and `deactivate`.
    ///
    /// @return The activation admin.
    function admin() external pure returns (address) {
        return ADMIN;
    }

    /// @notice Whether `feature` is currently activated. Never reverts.
    ///
    /// @param feature Feature id to query.
    ///
    /// @return Whether `feature` is activated.
    function isActivated(bytes32 feature) public view returns (bool) {
        return _activatedAtGenesis(feature) != _flipped[feature];
    }

    /// @notice Reverts unless `feature` is activated.
    ///
    /// @dev Reverts with `FeatureNotActivated` when `feature` is not activated.
    ///
    /// @param feature Feature id to check.
    function checkActivated(bytes32 feature) external view {
        if (!isActivated(feature)) revert FeatureNotActivated(feature);
    }

    /// @notice Activates `feature`. Emits `FeatureActivated`.
    ///
    /// @dev Reverts with `Unauthorized` when the caller is not `ADMIN`.
    /// @dev Reverts with `AlreadyActivated` when `feature` is already activated.
    ///
    /// @param feature Feature id to activate.
    function activate(bytes32 feature) external {
        if (msg.sender != ADMIN) revert Unauthorized(msg.sender);
        if (isActivated(feature)) revert AlreadyActivated(feature);
        _flipped[feature] = !_flipped[feature];
        emit FeatureActivated(feature, msg.sender);
    }

    /// @notice Deactivates `feature`. Emits `FeatureDeactivated`.
    ///
    /// @dev Reverts with `Unauthorized` when the caller is not `ADMIN`.
    /// @dev Reverts with `FeatureNotActivated` when `feature` is not activated.
    ///
    /// @param feature Feature id to deactivate.
    function deactivate(bytes32 feature) external {
        if (msg.sender != ADMIN) revert Unauthorized(msg.sender);
        if (!isActivated(feature)) revert FeatureNotActivated(feature);
        _flipped[feature] = !_flipped[feature];
        emit FeatureDeactivated(feature, msg.sender);
    }

    /// @dev The features this chain activates in its genesis.
    function _activatedAtGenesis(bytes32 feature) private pure returns (bool) {
        return feature == FEATURE_B20_ASSET || feature == FEATURE_B20_STABLECOIN
            || feature == FEATURE_POLICY_REGISTRY;
    }
}
