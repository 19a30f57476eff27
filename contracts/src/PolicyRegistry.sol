// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ALWAYS_ALLOW, ALWAYS_BLOCK} from "./Predeploys.sol";

/// @title PolicyRegistry
///
/// @notice Singleton registry of simple and composite policies, at Base's address
///         `0x8453…0002`. Policies are referenced by `uint64 policyId` and queried with
///         `isAuthorized(policyId, account)`; B20 tokens store policy ids in their policy slots.
///
/// @dev    A policy id carries its type in its top byte and a registry-wide counter in its low
///         56 bits: `id = uint64(policyType) << 56 | counter`. Counters 0 and 1 are the built-in
///         policies `ALWAYS_ALLOW = 0` (an empty BLOCKLIST) and `ALWAYS_BLOCK = 1 << 56 | 1`
///         (an empty ALLOWLIST); created policies count from 2.
///
///         A genesis predeploy: no constructor, no immutables, and all-zero storage is the
///         initial state (the built-ins live in code, the counter is stored minus 2).
contract PolicyRegistry {
    /// @notice Policy type, also the top byte of every policy id.
    ///
    /// @param BLOCKLIST Account is authorized unless it is in the set.
    /// @param ALLOWLIST Account is authorized only if it is in the set.
    /// @param UNION     Account is authorized if any child policy authorizes it.
    /// @param INTERSECT Account is authorized only if every child policy authorizes it.
    enum PolicyType {
        BLOCKLIST,
        ALLOWLIST,
        UNION,
        INTERSECT
    }

    /// @dev One created policy. `exists` survives a renounced (zero) admin.
    struct Policy {
        address admin;
        bool exists;
    }

    /// @notice Maximum number of accounts in one membership batch.
    uint256 public constant MAX_BATCH_SIZE = 64;

    /// @notice Minimum number of child policies of a composite.
    uint256 public constant MIN_COMPOSITE_CHILD_POLICIES = 2;

    /// @notice Maximum number of child policies of a composite.
    uint256 public constant MAX_COMPOSITE_CHILD_POLICIES = 4;

    /// @dev Counter of the first created policy; 0 and 1 are the built-ins.
    uint56 private constant _FIRST_COUNTER = 2;

    /// @dev Number of policies created so far; the next counter is `_policyCount + 2`.
    uint56 private _policyCount;
    mapping(uint64 policyId => Policy) private _policies;
    mapping(uint64 policyId => address) private _pendingAdmins;
    mapping(uint64 policyId => mapping(address account => bool)) private _members;
    mapping(uint64 policyId => uint64[]) private _children;

    /// @notice Caller is not the admin required by the operation.
    error Unauthorized();

    /// @notice The referenced policy id does not exist.
    error PolicyNotFound();

    /// @notice The operation does not fit the policy's type.
    error IncompatiblePolicyType();

    /// @notice A required address argument was the zero address.
    error ZeroAddress();

    /// @notice A membership batch held more than `maxBatchSize` accounts.
    error BatchSizeTooLarge(uint256 maxBatchSize);

    /// @notice `finalizeUpdateAdmin` was called with no pending admin staged.
    error NoPendingAdmin();

    /// @notice A composite was given fewer than 2 or more than 4 child policies.
    error ChildPoliciesOutsideOfRange();

    /// @notice A composite child is a built-in or a composite, not a created simple policy.
    error InvalidChildPolicy(uint64 childPolicyId);

    /// @notice A policy was created.
    event PolicyCreated(uint64 indexed policyId, address indexed creator, PolicyType policyType);

    /// @notice A new admin was staged; `pendingAdmin == address(0)` clears a nomination.
    event PolicyAdminStaged(uint64 indexed policyId, address indexed currentAdmin, address indexed pendingAdmin);

    /// @notice The admin changed: `previousAdmin == address(0)` at creation, `newAdmin == address(0)`
    ///         on renunciation.
    event PolicyAdminUpdated(uint64 indexed policyId, address indexed previousAdmin, address indexed newAdmin);

    /// @notice `accounts` had their ALLOWLIST membership set to `allowed`.
    event AllowlistUpdated(uint64 indexed policyId, address indexed updater, bool allowed, address[] accounts);

    /// @notice `accounts` had their BLOCKLIST membership set to `blocked`.
    event BlocklistUpdated(uint64 indexed policyId, address indexed updater, bool blocked, address[] accounts);

    /// @notice A composite's child set was set or replaced in full with `childPolicyIds`.
    event CompositePolicyUpdated(uint64 indexed policyId, address indexed updater, uint64[] childPolicyIds);

    /*//////////////////////////////////////////////////////////////
                            POLICY CREATION
    //////////////////////////////////////////////////////////////*/

    /// @notice Creates a simple policy with no members. Permissionless. Emits `PolicyCreated`
    ///         and `PolicyAdminUpdated`.
    ///
    /// @dev Reverts with `ZeroAddress` when `admin` is `address(0)`.
    /// @dev Reverts with `IncompatiblePolicyType` when `policyType` is UNION or INTERSECT.
    ///
    /// @param admin      Initial admin of the policy.
    /// @param policyType BLOCKLIST or ALLOWLIST.
    ///
    /// @return newPolicyId The new policy's id.
    function createPolicy(address admin, PolicyType policyType) external returns (uint64 newPolicyId) {
        _checkSimpleCreation(admin, policyType);
        newPolicyId = _create(admin, policyType);
    }

    /// @notice Creates a simple policy with `accounts` as its members. Permissionless. Emits
    ///         `PolicyCreated`, `PolicyAdminUpdated` and `AllowlistUpdated` or `BlocklistUpdated`.
    ///
    /// @dev Reverts with `ZeroAddress` when `admin` is `address(0)`.
    /// @dev Reverts with `IncompatiblePolicyType` when `policyType` is UNION or INTERSECT.
    /// @dev Reverts with `BatchSizeTooLarge` when `accounts` holds more than 64 entries.
    ///
    /// @param admin      Initial admin of the policy.
    /// @param policyType BLOCKLIST or ALLOWLIST.
    /// @param accounts   Initial members.
    ///
    /// @return newPolicyId The new policy's id.
    function createPolicyWithAccounts(address admin, PolicyType policyType, address[] calldata accounts)
        external
        returns (uint64 newPolicyId)
    {
        _checkSimpleCreation(admin, policyType);
        _checkBatch(accounts);
        newPolicyId = _create(admin, policyType);
        _setMembers(newPolicyId, accounts, true);
        if (policyType == PolicyType.ALLOWLIST) {
            emit AllowlistUpdated(newPolicyId, msg.sender, true, accounts);
        } else {
            emit BlocklistUpdated(newPolicyId, msg.sender, true, accounts);
        }
    }

    /// @notice Creates a composite policy over 2 to 4 created simple policies, evaluated live.
    ///         Permissionless. Emits `PolicyCreated`, `PolicyAdminUpdated` and
    ///         `CompositePolicyUpdated`.
    ///
    /// @dev Reverts with `ZeroAddress` when `admin` is `address(0)`.
    /// @dev Reverts with `IncompatiblePolicyType` when `policyType` is not UNION or INTERSECT.
    /// @dev Reverts with `ChildPoliciesOutsideOfRange` when there are fewer than 2 or more than 4 children.
    /// @dev Reverts with `PolicyNotFound` when a child does not exist.
    /// @dev Reverts with `InvalidChildPolicy` when a child is a built-in or a composite.
    ///
    /// @param admin          Initial admin of the composite.
    /// @param policyType     UNION or INTERSECT.
    /// @param childPolicyIds Created simple policies to combine.
    ///
    /// @return newPolicyId The new composite's id.
    function createCompositePolicy(address admin, PolicyType policyType, uint64[] calldata childPolicyIds)
        external
        returns (uint64 newPolicyId)
    {
        if (admin == address(0)) revert ZeroAddress();
        if (policyType != PolicyType.UNION && policyType != PolicyType.INTERSECT) revert IncompatiblePolicyType();
        _checkChildren(childPolicyIds);
        newPolicyId = _create(admin, policyType);
        _children[newPolicyId] = childPolicyIds;
        emit CompositePolicyUpdated(newPolicyId, msg.sender, childPolicyIds);
    }

    /*//////////////////////////////////////////////////////////////
                          POLICY ADMINISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @notice Stages `newAdmin` as the next admin of `policyId`; the admin changes only when
    ///         `newAdmin` calls `finalizeUpdateAdmin`. Emits `PolicyAdminStaged`.
    ///
    /// @dev Reverts with `PolicyNotFound` when `policyId` does not exist.
    /// @dev Reverts with `Unauthorized` when the caller is not the current admin.
    ///
    /// @param policyId Policy whose admin is staged.
    /// @param newAdmin Proposed admin, or `address(0)` to clear a pending nomination.
    function stageUpdateAdmin(uint64 policyId, address newAdmin) external {
        _requireAdmin(policyId);
        _pendingAdmins[policyId] = newAdmin;
        emit PolicyAdminStaged(policyId, msg.sender, newAdmin);
    }

    /// @notice Completes a two-step admin transfer: the staged admin becomes the admin.
    ///         Emits `PolicyAdminUpdated`.
    ///
    /// @dev Reverts with `PolicyNotFound` when `policyId` does not exist.
    /// @dev Reverts with `NoPendingAdmin` when no admin is staged.
    /// @dev Reverts with `Unauthorized` when the caller is not the staged admin.
    ///
    /// @param policyId Policy whose admin transfer is completed.
    function finalizeUpdateAdmin(uint64 policyId) external {
        Policy storage policy = _requireExisting(policyId);
        address pending = _pendingAdmins[policyId];
        if (pending == address(0)) revert NoPendingAdmin();
        if (pending != msg.sender) revert Unauthorized();
        address previous = policy.admin;
        policy.admin = msg.sender;
        delete _pendingAdmins[policyId];
        emit PolicyAdminUpdated(policyId, previous, msg.sender);
    }

    /// @notice Gives up administration of `policyId` for good: its members (or children) are
    ///         frozen, `isAuthorized` keeps answering. Emits `PolicyAdminUpdated`.
    ///
    /// @dev Reverts with `PolicyNotFound` when `policyId` does not exist.
    /// @dev Reverts with `Unauthorized` when the caller is not the current admin.
    ///
    /// @param policyId Policy whose administration is renounced.
    function renounceAdmin(uint64 policyId) external {
        Policy storage policy = _requireAdmin(policyId);
        policy.admin = address(0);
        delete _pendingAdmins[policyId];
        emit PolicyAdminUpdated(policyId, msg.sender, address(0));
    }

    /// @notice Sets the membership of `accounts` in an ALLOWLIST policy to `allowed`.
    ///         Emits `AllowlistUpdated`.
    ///
    /// @dev Reverts with `PolicyNotFound` when `policyId` does not exist.
    /// @dev Reverts with `IncompatiblePolicyType` when the policy is not an ALLOWLIST.
    /// @dev Reverts with `Unauthorized` when the caller is not the current admin.
    /// @dev Reverts with `BatchSizeTooLarge` when `accounts` holds more than 64 entries.
    ///
    /// @param policyId Policy to update.
    /// @param allowed  Membership to apply to every account.
    /// @param accounts Accounts to update.
    function updateAllowlist(uint64 policyId, bool allowed, address[] calldata accounts) external {
        _updateMembers(policyId, PolicyType.ALLOWLIST, allowed, accounts);
        emit AllowlistUpdated(policyId, msg.sender, allowed, accounts);
    }

    /// @notice Sets the membership of `accounts` in a BLOCKLIST policy to `blocked`.
    ///         Emits `BlocklistUpdated`.
    ///
    /// @dev Reverts with `PolicyNotFound` when `policyId` does not exist.
    /// @dev Reverts with `IncompatiblePolicyType` when the policy is not a BLOCKLIST.
    /// @dev Reverts with `Unauthorized` when the caller is not the current admin.
    /// @dev Reverts with `BatchSizeTooLarge` when `accounts` holds more than 64 entries.
    ///
    /// @param policyId Policy to update.
    /// @param blocked  Membership to apply to every account.
    /// @param accounts Accounts to update.
    function updateBlocklist(uint64 policyId, bool blocked, address[] calldata accounts) external {
        _updateMembers(policyId, PolicyType.BLOCKLIST, blocked, accounts);
        emit BlocklistUpdated(policyId, msg.sender, blocked, accounts);
    }

    /// @notice Replaces a composite's child set in full. Emits `CompositePolicyUpdated`.
    ///
    /// @dev Reverts with `PolicyNotFound` when `policyId` does not exist.
    /// @dev Reverts with `IncompatiblePolicyType` when `policyId` is not UNION or INTERSECT.
    /// @dev Reverts with `Unauthorized` when the caller is not the current admin.
    /// @dev Reverts with `ChildPoliciesOutsideOfRange`, `PolicyNotFound` or `InvalidChildPolicy`
    ///      as `createCompositePolicy` does.
    ///
    /// @param policyId       Composite to update.
    /// @param childPolicyIds New complete set of created simple policies.
    function updateComposite(uint64 policyId, uint64[] calldata childPolicyIds) external {
        Policy storage policy = _requireExisting(policyId);
        if (!_isComposite(policyId)) revert IncompatiblePolicyType();
        if (policy.admin != msg.sender) revert Unauthorized();
        _checkChildren(childPolicyIds);
        _children[policyId] = childPolicyIds;
        emit CompositePolicyUpdated(policyId, msg.sender, childPolicyIds);
    }

    /*//////////////////////////////////////////////////////////////
                                QUERIES
    //////////////////////////////////////////////////////////////*/

    /// @notice Whether `account` is authorized under `policyId`. Never reverts: an id that does
    ///         not exist authorizes no one.
    ///
    /// @param policyId Policy to query.
    /// @param account  Account to check.
    ///
    /// @return Whether `account` is authorized.
    function isAuthorized(uint64 policyId, address account) public view returns (bool) {
        if (policyId == ALWAYS_ALLOW) return true;
        if (policyId == ALWAYS_BLOCK || !_isCreated(policyId)) return false;
        uint8 policyType = _typeOf(policyId);
        if (policyType == uint8(PolicyType.ALLOWLIST)) return _members[policyId][account];
        if (policyType == uint8(PolicyType.BLOCKLIST)) return !_members[policyId][account];
        uint64[] storage children = _children[policyId];
        bool union = policyType == uint8(PolicyType.UNION);
        for (uint256 i = 0; i < children.length; ++i) {
            // Children are simple policies, so this recursion is one level deep.
            if (isAuthorized(children[i], account) == union) return union;
        }
        return !union;
    }

    /// @notice Whether `policyId` is a built-in or a created policy. Never reverts.
    ///
    /// @param policyId Policy to query.
    ///
    /// @return Whether the policy exists.
    function policyExists(uint64 policyId) external view returns (bool) {
        return policyId == ALWAYS_ALLOW || policyId == ALWAYS_BLOCK || _isCreated(policyId);
    }

    /// @notice The admin of `policyId`, or `address(0)` for built-ins, renounced policies and
    ///         unknown ids. Never reverts.
    ///
    /// @param policyId Policy to query.
    ///
    /// @return The current admin, or `address(0)`.
    function policyAdmin(uint64 policyId) external view returns (address) {
        return _policies[policyId].admin;
    }

    /// @notice The staged admin of `policyId`, or `address(0)` when none is staged. Never reverts.
    ///
    /// @param policyId Policy to query.
    ///
    /// @return The pending admin, or `address(0)`.
    function pendingPolicyAdmin(uint64 policyId) external view returns (address) {
        return _pendingAdmins[policyId];
    }

    /// @notice The child set of a composite, empty for any other id. Never reverts.
    ///
    /// @param policyId Policy to query.
    ///
    /// @return The composite's child policy ids.
    function compositePolicyChildIds(uint64 policyId) external view returns (uint64[] memory) {
        return _children[policyId];
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _create(address admin, PolicyType policyType) private returns (uint64 policyId) {
        uint56 counter = _policyCount + _FIRST_COUNTER; // panics (0x11) past 2^56 - 1
        _policyCount += 1;
        policyId = (uint64(policyType) << 56) | uint64(counter);
        _policies[policyId] = Policy({admin: admin, exists: true});
        emit PolicyCreated(policyId, msg.sender, policyType);
        emit PolicyAdminUpdated(policyId, address(0), admin);
    }

    function _checkSimpleCreation(address admin, PolicyType policyType) private pure {
        if (admin == address(0)) revert ZeroAddress();
        if (policyType != PolicyType.BLOCKLIST && policyType != PolicyType.ALLOWLIST) {
            revert IncompatiblePolicyType();
        }
    }

    function _checkBatch(address[] calldata accounts) private pure {
        if (accounts.length > MAX_BATCH_SIZE) revert BatchSizeTooLarge(MAX_BATCH_SIZE);
    }

    /// @dev All children must exist (checked first, over the whole set) and be created simple policies.
    function _checkChildren(uint64[] calldata childPolicyIds) private view {
        uint256 n = childPolicyIds.length;
        if (n < MIN_COMPOSITE_CHILD_POLICIES || n > MAX_COMPOSITE_CHILD_POLICIES) {
            revert ChildPoliciesOutsideOfRange();
        }
        for (uint256 i = 0; i < n; ++i) {
            uint64 child = childPolicyIds[i];
            if (child != ALWAYS_ALLOW && child != ALWAYS_BLOCK && !_isCreated(child)) revert PolicyNotFound();
        }
        for (uint256 i = 0; i < n; ++i) {
            uint64 child = childPolicyIds[i];
            if (child == ALWAYS_ALLOW || child == ALWAYS_BLOCK || _isComposite(child)) {
                revert InvalidChildPolicy(child);
            }
        }
    }

    function _updateMembers(uint64 policyId, PolicyType expected, bool member, address[] calldata accounts)
        private
    {
        Policy storage policy = _requireExisting(policyId);
        if (_typeOf(policyId) != uint8(expected)) revert IncompatiblePolicyType();
        if (policy.admin != msg.sender) revert Unauthorized();
        _checkBatch(accounts);
        _setMembers(policyId, accounts, member);
    }

    function _setMembers(uint64 policyId, address[] calldata accounts, bool member) private {
        mapping(address => bool) storage members = _members[policyId];
        for (uint256 i = 0; i < accounts.length; ++i) {
            members[accounts[i]] = member;
        }
    }

    /// @dev The built-ins exist but have no admin, so every admin operation on them is `Unauthorized`.
    function _requireExisting(uint64 policyId) private view returns (Policy storage policy) {
        policy = _policies[policyId];
        if (!policy.exists && policyId != ALWAYS_ALLOW && policyId != ALWAYS_BLOCK) revert PolicyNotFound();
    }

    function _requireAdmin(uint64 policyId) private view returns (Policy storage policy) {
        policy = _requireExisting(policyId);
        if (policy.admin != msg.sender) revert Unauthorized();
    }

    function _isCreated(uint64 policyId) private view returns (bool) {
        return _policies[policyId].exists;
    }

    function _typeOf(uint64 policyId) private pure returns (uint8) {
        return uint8(policyId >> 56);
    }

    function _isComposite(uint64 policyId) private pure returns (bool) {
        uint8 policyType = _typeOf(policyId);
        return policyType == uint8(PolicyType.UNION) || policyType == uint8(PolicyType.INTERSECT);
    }
}
