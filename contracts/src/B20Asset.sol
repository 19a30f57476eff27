// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {B20} from "./B20.sol";

/// @title B20Asset
///
/// @notice The Asset variant of B20 (Base's `IB20Asset`), for tokenized stocks and other
///         assets: `B20` plus announcements that run inner calls atomically, a multiplier that
///         scales balances into a "scaled" view (splits, reinvested dividends), batched mint
///         and a free-form extra-metadata store (the ISIN lives under the key `"isin"`).
///
/// @dev    The implementation is predeployed at `0x8453…0101`; every Asset token is an
///         EIP-1167 clone of it created by the B20 factory, which calls `initialize` once.
contract B20Asset is B20 {
    /// @notice Required by `announce` and `updateMultiplier`.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");

    /// @notice Fixed-point precision of `multiplier`: 1e18 is a multiplier of one.
    uint256 public constant WAD_PRECISION = 1e18;

    bytes4 private constant _PANIC_SELECTOR = 0x4e487b71; // Panic(uint256)

    uint256 private _multiplier;
    mapping(bytes32 idHash => bool) private _announcementUsed;
    mapping(bytes32 keyHash => string) private _extraMetadata;

    /// @notice `announce` was called with an id that was already used.
    error AnnouncementIdAlreadyUsed(string id);

    /// @notice `updateExtraMetadata` was called with an empty key.
    error InvalidMetadataKey();

    /// @notice `batchMint` was called with arrays of different lengths.
    error LengthMismatch(uint256 leftLen, uint256 rightLen);

    /// @notice `batchMint` was called with empty arrays.
    error EmptyBatch();

    /// @notice An inner call of `announce` tried to call `announce`.
    error AnnouncementInProgress();

    /// @notice An inner call of `announce` was shorter than four bytes.
    error InternalCallMalformed(bytes call);

    /// @notice An inner call of `announce` reverted (a `Panic` propagates unchanged instead).
    error InternalCallFailed(bytes call);

    /// @notice The multiplier changed.
    event MultiplierUpdated(uint256 multiplier);

    /// @notice An extra-metadata entry was set; an empty `value` removes it.
    event ExtraMetadataUpdated(string key, string value);

    /// @notice Opens an announcement; its inner calls' events follow.
    event Announcement(address indexed caller, string id, string description, string uri);

    /// @notice Closes the announcement opened with the same `id`.
    event EndAnnouncement(string id);

    /// @notice Initialises a freshly created token: called once, by the B20 factory only.
    ///
    /// @dev Reverts with `Unauthorized` when the caller is not the factory or the token is
    ///      already initialised.
    ///
    /// @param name_     Token name.
    /// @param symbol_   Token symbol.
    /// @param decimals_ Token decimals (the factory checks the range).
    /// @param admin     Initial `DEFAULT_ADMIN_ROLE` holder, or `address(0)` for none.
    function initialize(string calldata name_, string calldata symbol_, uint8 decimals_, address admin) external {
        _initialize(name_, symbol_, decimals_, admin);
        _multiplier = WAD_PRECISION;
    }

    /*//////////////////////////////////////////////////////////////
                              ANNOUNCEMENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Posts an announcement and runs `internalCalls` on this token atomically, each by
    ///         self-delegatecall so `msg.sender` (and its roles) carry over. Emits `Announcement`,
    ///         the inner calls' events, then `EndAnnouncement`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `OPERATOR_ROLE`.
    /// @dev Reverts with `AnnouncementIdAlreadyUsed` when `id` was used before.
    /// @dev Reverts with `InternalCallMalformed` when an inner call is shorter than four bytes.
    /// @dev Reverts with `AnnouncementInProgress` when an inner call targets `announce`.
    /// @dev Reverts with `InternalCallFailed(call)` when an inner call reverts, except that a
    ///      `Panic` is re-raised unchanged.
    ///
    /// @param internalCalls Calldata of calls on this token, run in order; may be empty.
    /// @param id            Announcement id, usable once over the token's life.
    /// @param description   Human-readable summary.
    /// @param uri           Where the full announcement lives.
    function announce(
        bytes[] calldata internalCalls,
        string calldata id,
        string calldata description,
        string calldata uri
    ) external {
        _checkRole(OPERATOR_ROLE);
        bytes32 idHash = keccak256(bytes(id));
        if (_announcementUsed[idHash]) revert AnnouncementIdAlreadyUsed(id);
        _announcementUsed[idHash] = true;
        emit Announcement(msg.sender, id, description, uri);
        for (uint256 i = 0; i < internalCalls.length; ++i) {
            bytes calldata call = internalCalls[i];
            if (call.length < 4) revert InternalCallMalformed(call);
            if (bytes4(call[:4]) == this.announce.selector) revert AnnouncementInProgress();
            (bool ok, bytes memory result) = address(this).delegatecall(call);
            if (!ok) {
                if (result.length == 36 && bytes4(result) == _PANIC_SELECTOR) {
                    assembly ("memory-safe") {
                        revert(add(result, 0x20), mload(result))
                    }
                }
                revert InternalCallFailed(call);
            }
        }
        emit EndAnnouncement(id);
    }

    /// @notice Whether `id` was used by `announce`.
    ///
    /// @param id Announcement id.
    ///
    /// @return Whether it was used.
    function isAnnouncementIdUsed(string calldata id) external view returns (bool) {
        return _announcementUsed[keccak256(bytes(id))];
    }

    /*//////////////////////////////////////////////////////////////
                               MULTIPLIER
    //////////////////////////////////////////////////////////////*/

    /// @notice The multiplier, scaled by `WAD_PRECISION`; balances are raw units and the
    ///         multiplier maps them to the scaled view. Starts at 1e18.
    ///
    /// @return The multiplier.
    function multiplier() external view returns (uint256) {
        return _multiplier;
    }

    /// @notice Sets the multiplier, effective at once. Emits `MultiplierUpdated`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `OPERATOR_ROLE`.
    /// @dev Reverts with `InvalidAmount` when `newMultiplier` is zero or above `type(uint128).max`.
    ///
    /// @param newMultiplier New multiplier, scaled by `WAD_PRECISION`.
    function updateMultiplier(uint256 newMultiplier) external {
        _checkRole(OPERATOR_ROLE);
        if (newMultiplier == 0 || newMultiplier > type(uint128).max) revert InvalidAmount();
        _multiplier = newMultiplier;
        emit MultiplierUpdated(newMultiplier);
    }

    /// @notice Converts a raw amount to the scaled view: `rawBalance * multiplier / WAD_PRECISION`.
    ///
    /// @dev Panics (0x11) on overflow.
    ///
    /// @param rawBalance Raw amount.
    ///
    /// @return The scaled amount, rounded down.
    function toScaledBalance(uint256 rawBalance) public view returns (uint256) {
        return rawBalance * _multiplier / WAD_PRECISION;
    }

    /// @notice Converts a scaled amount back to raw: `scaledBalance * WAD_PRECISION / multiplier`.
    ///
    /// @dev Rounds down, so `toRawBalance(toScaledBalance(x))` may be slightly below `x`.
    ///
    /// @param scaledBalance Scaled amount.
    ///
    /// @return rawBalance The raw amount.
    function toRawBalance(uint256 scaledBalance) external view returns (uint256 rawBalance) {
        return scaledBalance * WAD_PRECISION / _multiplier;
    }

    /// @notice `toScaledBalance(balanceOf(account))`.
    ///
    /// @param account Account to query.
    ///
    /// @return The scaled balance.
    function scaledBalanceOf(address account) external view returns (uint256) {
        return toScaledBalance(balanceOf(account));
    }

    /*//////////////////////////////////////////////////////////////
                             BATCHED ISSUANCE
    //////////////////////////////////////////////////////////////*/

    /// @notice Mints `amounts[i]` to `recipients[i]`, all or nothing. Emits one `Transfer` each.
    ///
    /// @dev Reverts with `ContractPaused(MINT)` when minting is paused.
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `MINT_ROLE`.
    /// @dev Reverts with `LengthMismatch` when the arrays differ in length.
    /// @dev Reverts with `EmptyBatch` when the arrays are empty.
    /// @dev Reverts as `mint` does for each element (`InvalidReceiver`, `PolicyForbids`,
    ///      `SupplyCapExceeded`).
    ///
    /// @param recipients Recipients.
    /// @param amounts    Amounts, parallel to `recipients`.
    function batchMint(address[] calldata recipients, uint256[] calldata amounts) external {
        _beginMint();
        if (recipients.length != amounts.length) revert LengthMismatch(recipients.length, amounts.length);
        if (recipients.length == 0) revert EmptyBatch();
        for (uint256 i = 0; i < recipients.length; ++i) {
            _mint(recipients[i], amounts[i]);
        }
    }

    /*//////////////////////////////////////////////////////////////
                             EXTRA METADATA
    //////////////////////////////////////////////////////////////*/

    /// @notice The extra-metadata entry `key` (e.g. `"isin"`), or the empty string.
    ///
    /// @param key Entry key.
    ///
    /// @return The entry's value.
    function extraMetadata(string calldata key) external view returns (string memory) {
        return _extraMetadata[keccak256(bytes(key))];
    }

    /// @notice Sets, changes or (with an empty `value`) removes an extra-metadata entry.
    ///         Emits `ExtraMetadataUpdated`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `METADATA_ROLE`.
    /// @dev Reverts with `InvalidMetadataKey` when `key` is empty.
    ///
    /// @param key   Entry key.
    /// @param value New value, or empty to remove.
    function updateExtraMetadata(string calldata key, string calldata value) external {
        _checkRole(METADATA_ROLE);
        if (bytes(key).length == 0) revert InvalidMetadataKey();
        if (bytes(value).length == 0) {
            delete _extraMetadata[keccak256(bytes(key))];
        } else {
            _extraMetadata[keccak256(bytes(key))] = value;
        }
        emit ExtraMetadataUpdated(key, value);
    }
}
