// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {
    ACTIVATION_REGISTRY,
    B20_ASSET_IMPLEMENTATION,
    B20_STABLECOIN_IMPLEMENTATION,
    FEATURE_B20_ASSET,
    FEATURE_B20_STABLECOIN,
    IActivation
} from "./Predeploys.sol";
import {B20Asset} from "./B20Asset.sol";
import {B20Stablecoin} from "./B20Stablecoin.sol";

/// @title B20Factory
///
/// @notice Creates B20 tokens (Base's `IB20Factory`), at Base's address `0xB20f…0000`. One entry
///         point, `createB20`, takes a variant, a salt, the variant's ABI-encoded creation
///         parameters and a list of calls to run on the new token while it is bootstrapped.
///
/// @dev    A token is an EIP-1167 minimal proxy (45 bytes of code) of its variant's
///         implementation, deployed with CREATE2 from a constant init code, so its address
///         depends only on `(variant, creator, salt)` and `getB20Address` predicts it without
///         the parameters. The factory then initialises it, emits `B20Created`, and runs the
///         `initCalls` with itself as `msg.sender`: during that bootstrap window the token
///         lets the factory past its role checks and transfer policies (not `MINT_RECEIVER_POLICY`,
///         pause or its invariants). The token counts as initialised once `createB20` returns.
///
///         A genesis predeploy: no constructor, no immutables, and all-zero storage is the
///         initial state.
contract B20Factory {
    /// @notice Variant of a B20 token.
    ///
    /// @param ASSET      Asset variant: configurable decimals, multiplier, announcements, batch mint.
    /// @param STABLECOIN Stablecoin variant: 6 decimals, fixed currency.
    enum B20Variant {
        ASSET,
        STABLECOIN
    }

    /// @notice Creation parameters of an Asset token, ABI-encoded into `params`.
    struct B20AssetCreateParams {
        uint8 version; // 1
        string name;
        string symbol;
        address initialAdmin; // or address(0) for a token without admin
        uint8 decimals; // 6 to 18
    }

    /// @notice Creation parameters of a Stablecoin token, ABI-encoded into `params`.
    struct B20StablecoinCreateParams {
        uint8 version; // 1
        string name;
        string symbol;
        address initialAdmin; // or address(0) for a token without admin
        string currency; // uppercase A-Z
    }

    /// @notice Payload of `B20Created.variantEventParams` for a Stablecoin token.
    struct B20StablecoinEventParams {
        uint8 version; // 1
        string currency;
    }

    /// @notice The only `params` encoding version.
    uint8 public constant PARAMS_VERSION = 1;

    /// @notice Inclusive decimals range of Asset tokens.
    uint8 public constant MIN_ASSET_DECIMALS = 6;
    uint8 public constant MAX_ASSET_DECIMALS = 18;

    /// @notice Decimals of every Stablecoin token.
    uint8 public constant STABLECOIN_DECIMALS = 6;

    uint8 private constant _CREATED = 1; // created, initCalls running
    uint8 private constant _INITIALIZED = 2; // createB20 returned

    mapping(address token => uint8) private _state;

    /// @notice A token already exists at the address derived from `(variant, msg.sender, salt)`.
    error TokenAlreadyExists(address token);

    /// @notice `variant` is not a `B20Variant`.
    error InvalidVariant();

    /// @notice The `version` in `params` is not known for `variant`.
    error UnsupportedVersion(uint8 version, B20Variant variant);

    /// @notice A required string parameter (`field`) was empty.
    error MissingRequiredField(string field);

    /// @notice The stablecoin currency `code` holds a byte other than `A`-`Z`.
    error InvalidCurrency(string code);

    /// @notice The Asset `decimals` is outside `[6, 18]`.
    error InvalidDecimals(uint8 decimals);

    /// @notice Init call `index` reverted without a reason (a reason is bubbled as it is).
    error InitCallFailed(uint256 index);

    /// @notice The ActivationRegistry has `feature` (the variant's) deactivated.
    error FeatureNotActivated(bytes32 feature);

    /// @notice A token was created; emitted before its `initCalls` run. `variantEventParams`
    ///         is empty for ASSET and `abi.encode(B20StablecoinEventParams)` for STABLECOIN.
    event B20Created(
        address indexed token,
        B20Variant indexed variant,
        string name,
        string symbol,
        uint8 decimals,
        bytes variantEventParams
    );

    /// @notice Creates a B20 token of `variant` at `getB20Address(variant, msg.sender, salt)`,
    ///         then runs each of `initCalls` on it with the factory as `msg.sender` (the bootstrap
    ///         window: role checks and transfer policies are waived for the factory).
    ///         Emits `B20Created`.
    ///
    /// @dev Reverts with `InvalidVariant` when `variant` is not ASSET or STABLECOIN.
    /// @dev Reverts with `FeatureNotActivated` when the variant is deactivated.
    /// @dev Reverts with `UnsupportedVersion` when `params` is not version 1.
    /// @dev Reverts with `MissingRequiredField` when `name`, `symbol` or `currency` is empty.
    /// @dev Reverts with `InvalidDecimals` when an Asset's `decimals` is outside `[6, 18]`.
    /// @dev Reverts with `InvalidCurrency` when a Stablecoin's `currency` is not uppercase `A`-`Z`.
    /// @dev Reverts with `TokenAlreadyExists` when the address is taken.
    /// @dev Reverts with the init call's own reason, or `InitCallFailed(index)` when it gives none.
    ///
    /// @param variant   Token variant (0 ASSET, 1 STABLECOIN).
    /// @param salt      Caller-chosen salt.
    /// @param params    `abi.encode(B20AssetCreateParams)` or `abi.encode(B20StablecoinCreateParams)`.
    /// @param initCalls Calldata of calls to run on the new token.
    ///
    /// @return token The new token.
    function createB20(uint8 variant, bytes32 salt, bytes calldata params, bytes[] calldata initCalls)
        external
        returns (address token)
    {
        if (variant > uint8(type(B20Variant).max)) revert InvalidVariant();
        B20Variant v = B20Variant(variant);
        bytes32 feature = v == B20Variant.ASSET ? FEATURE_B20_ASSET : FEATURE_B20_STABLECOIN;
        if (!IActivation(ACTIVATION_REGISTRY).isActivated(feature)) revert FeatureNotActivated(feature);
        uint8 version = _paramsVersion(params);
        if (version != PARAMS_VERSION) revert UnsupportedVersion(version, v);

        if (v == B20Variant.ASSET) {
            B20AssetCreateParams memory p = abi.decode(params, (B20AssetCreateParams));
            _requireNameAndSymbol(p.name, p.symbol);
            if (p.decimals < MIN_ASSET_DECIMALS || p.decimals > MAX_ASSET_DECIMALS) revert InvalidDecimals(p.decimals);
            token = _deploy(v, salt);
            B20Asset(token).initialize(p.name, p.symbol, p.decimals, p.initialAdmin);
            emit B20Created(token, v, p.name, p.symbol, p.decimals, "");
        } else {
            B20StablecoinCreateParams memory p = abi.decode(params, (B20StablecoinCreateParams));
            _requireNameAndSymbol(p.name, p.symbol);
            _requireCurrency(p.currency);
            token = _deploy(v, salt);
            B20Stablecoin(token).initialize(p.name, p.symbol, p.initialAdmin, p.currency);
            emit B20Created(
                token,
                v,
                p.name,
                p.symbol,
                STABLECOIN_DECIMALS,
                abi.encode(B20StablecoinEventParams({version: PARAMS_VERSION, currency: p.currency}))
            );
        }

        for (uint256 i = 0; i < initCalls.length; ++i) {
            (bool ok, bytes memory reason) = token.call(initCalls[i]);
            if (!ok) {
                if (reason.length == 0) revert InitCallFailed(i);
                assembly ("memory-safe") {
                    revert(add(reason, 0x20), mload(reason))
                }
            }
        }
        _state[token] = _INITIALIZED;
    }

    /// @notice The address `createB20(variant, salt, ...)` called by `sender` creates. Never
    ///         reverts; `address(0)` for an unknown variant.
    ///
    /// @param variant Token variant.
    /// @param sender  Account that would call `createB20`.
    /// @param salt    Its salt.
    ///
    /// @return The token address.
    function getB20Address(uint8 variant, address sender, bytes32 salt) public view returns (address) {
        if (variant > uint8(type(B20Variant).max)) return address(0);
        bytes32 codeHash = keccak256(_cloneCode(_implementation(B20Variant(variant))));
        bytes32 digest = keccak256(abi.encodePacked(hex"ff", address(this), _salt(variant, sender, salt), codeHash));
        return address(uint160(uint256(digest)));
    }

    /// @notice Whether `token` was created by this factory (also while its `initCalls` run).
    ///         Never reverts.
    ///
    /// @dev Base's precompile answers from the address prefix; here token addresses come from
    ///      CREATE2, so the answer comes from the factory's record of what it created.
    ///
    /// @param token Address to check.
    ///
    /// @return Whether `token` is a B20 token.
    function isB20(address token) external view returns (bool) {
        return _state[token] != 0;
    }

    /// @notice Whether `createB20` has completed for `token`; flips once, when the creating
    ///         `createB20` returns. Never reverts.
    ///
    /// @param token Address to check.
    ///
    /// @return Whether `token` is an initialised B20 token.
    function isB20Initialized(address token) external view returns (bool) {
        return _state[token] == _INITIALIZED;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _deploy(B20Variant variant, bytes32 salt) private returns (address token) {
        token = getB20Address(uint8(variant), msg.sender, salt);
        if (token.code.length != 0) revert TokenAlreadyExists(token);
        bytes memory code = _cloneCode(_implementation(variant));
        bytes32 create2Salt = _salt(uint8(variant), msg.sender, salt);
        address deployed;
        assembly ("memory-safe") {
            deployed := create2(0, add(code, 0x20), mload(code), create2Salt)
        }
        // CREATE2 fails only on an occupied address (or out of gas).
        if (deployed != token) revert TokenAlreadyExists(token);
        _state[token] = _CREATED;
    }

    function _salt(uint8 variant, address sender, bytes32 salt) private pure returns (bytes32) {
        return keccak256(abi.encode(variant, sender, salt));
    }

    function _implementation(B20Variant variant) private pure returns (address) {
        return variant == B20Variant.ASSET ? B20_ASSET_IMPLEMENTATION : B20_STABLECOIN_IMPLEMENTATION;
    }

    /// @dev EIP-1167 init code of a minimal proxy of `implementation`.
    function _cloneCode(address implementation) private pure returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }

    /// @dev The `version` field of an ABI-encoded params struct: the first word of the tuple
    ///      that the leading offset points at (0 when `params` is too short to hold one).
    function _paramsVersion(bytes calldata params) private pure returns (uint8) {
        if (params.length < 32) return 0;
        uint256 offset = uint256(bytes32(params[:32]));
        if (offset > params.length - 32) return 0;
        uint256 version = uint256(bytes32(params[offset:offset + 32]));
        return version > type(uint8).max ? type(uint8).max : uint8(version);
    }

    function _requireNameAndSymbol(string memory name, string memory symbol) private pure {
        if (bytes(name).length == 0) revert MissingRequiredField("name");
        if (bytes(symbol).length == 0) revert MissingRequiredField("symbol");
    }

    function _requireCurrency(string memory code) private pure {
        bytes memory b = bytes(code);
        if (b.length == 0) revert MissingRequiredField("currency");
        for (uint256 i = 0; i < b.length; ++i) {
            if (b[i] < "A" || b[i] > "Z") revert InvalidCurrency(code);
        }
    }
}
