// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {
    ALWAYS_ALLOW, ALWAYS_BLOCK, B20_FACTORY, POLICY_REGISTRY, IB20Creation, IPolicyAuthority
} from "./Predeploys.sol";

/// @title B20
///
/// @notice The surface every B20 token variant shares (Base's `IB20`): ERC-20 with memo
///         variants, role-based access control in the style of OpenZeppelin's AccessControl,
///         per-feature pause, policy slots checked against the PolicyRegistry, a supply cap,
///         EIP-2612 permit with an ERC-5267 domain, and an ERC-7572 contract URI.
///
/// @dev    Tokens are EIP-1167 clones of a variant's implementation, created and initialised
///         by the B20 factory. The implementation itself is never initialised (only the
///         factory may call `initialize`, and it only does so on clones it has just created),
///         so it holds no roles, balances or configuration.
///
///         Bootstrap window: while the factory runs a token's `initCalls` (from creation until
///         `createB20` returns, i.e. while `isB20Initialized(token)` is false), calls whose
///         `msg.sender` is the factory pass every role check and skip the transfer-side
///         policies. `MINT_RECEIVER_POLICY`, pause and the token's invariants still apply.
abstract contract B20 {
    /// @notice Pausable operation classes.
    ///
    /// @param TRANSFER `transfer`, `transferFrom` and their memo variants.
    /// @param MINT     `mint`, `mintWithMemo` (and `batchMint` on the Asset variant).
    /// @param BURN     `burn`, `burnWithMemo` and `burnBlocked`.
    enum PausableFeature {
        TRANSFER,
        MINT,
        BURN
    }

    /// @dev The four policy slots, packed in one storage slot.
    struct PolicySlots {
        uint64 transferSender;
        uint64 transferReceiver;
        uint64 transferExecutor;
        uint64 mintReceiver;
    }

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The top-level admin role (`bytes32(0)`), admin of every role by default.
    bytes32 public constant DEFAULT_ADMIN_ROLE = bytes32(0);

    /// @notice Required by `mint` and `mintWithMemo`.
    bytes32 public constant MINT_ROLE = keccak256("MINT_ROLE");

    /// @notice Required by `burn` and `burnWithMemo`.
    bytes32 public constant BURN_ROLE = keccak256("BURN_ROLE");

    /// @notice Required by `burnBlocked`.
    bytes32 public constant BURN_BLOCKED_ROLE = keccak256("BURN_BLOCKED_ROLE");

    /// @notice Required by `pause`.
    bytes32 public constant PAUSE_ROLE = keccak256("PAUSE_ROLE");

    /// @notice Required by `unpause`.
    bytes32 public constant UNPAUSE_ROLE = keccak256("UNPAUSE_ROLE");

    /// @notice Required by `updateName`, `updateSymbol` and `updateContractURI`.
    bytes32 public constant METADATA_ROLE = keccak256("METADATA_ROLE");

    /// @notice Policy slot checked against `from` on every transfer.
    bytes32 public constant TRANSFER_SENDER_POLICY = keccak256("TRANSFER_SENDER_POLICY");

    /// @notice Policy slot checked against `to` on every transfer.
    bytes32 public constant TRANSFER_RECEIVER_POLICY = keccak256("TRANSFER_RECEIVER_POLICY");

    /// @notice Policy slot checked against `msg.sender`, the initiator, on every transfer.
    bytes32 public constant TRANSFER_EXECUTOR_POLICY = keccak256("TRANSFER_EXECUTOR_POLICY");

    /// @notice Policy slot checked against `to` on every mint, even during the bootstrap window.
    bytes32 public constant MINT_RECEIVER_POLICY = keccak256("MINT_RECEIVER_POLICY");

    /// @dev The supply cap's upper bound and "no cap" sentinel.
    uint256 internal constant _MAX_SUPPLY_CAP = type(uint128).max;

    bytes32 private constant _PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant _DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant _VERSION_HASH = keccak256("1");
    uint256 private constant _HALF_CURVE_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    // One slot: flags, decimals and the number of default admins.
    bool private _initialized;
    uint8 private _decimals;
    uint8 private _pausedMask;
    bool private _adminRenounced;
    uint64 private _adminCount;
    // One slot: both fit in 128 bits, as the supply never exceeds the cap.
    uint128 private _totalSupply;
    uint128 private _supplyCap;
    PolicySlots private _policies;
    string private _name;
    string private _symbol;
    string private _contractURI;
    mapping(address account => uint256) private _balances;
    mapping(address owner => mapping(address spender => uint256)) private _allowances;
    mapping(address owner => uint256) private _nonces;
    mapping(bytes32 role => mapping(address account => bool)) private _roleMembers;
    mapping(bytes32 role => bytes32 adminRole) private _roleAdmins;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice `account` does not hold `neededRole`.
    error AccessControlUnauthorizedAccount(address account, bytes32 neededRole);

    /// @notice `renounceRole`'s `callerConfirmation` was not `msg.sender`.
    error AccessControlBadConfirmation();

    /// @notice Caller failed a check that is not "missing role X" (e.g. `initialize` not from the factory).
    error Unauthorized();

    /// @notice The `feature` covering this operation is paused.
    error ContractPaused(PausableFeature feature);

    /// @notice `spender`'s allowance is below `needed`.
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);

    /// @notice `sender`'s balance is below `needed`.
    error InsufficientBalance(address sender, uint256 balance, uint256 needed);

    /// @notice The source address is invalid (`address(0)`).
    error InvalidSender(address sender);

    /// @notice The destination address is invalid (`address(0)` or the token itself).
    error InvalidReceiver(address receiver);

    /// @notice The approval's owner is invalid (`address(0)`).
    error InvalidApprover(address approver);

    /// @notice The approval's spender is invalid (`address(0)`).
    error InvalidSpender(address spender);

    /// @notice An amount that must be non-zero was zero (not used for ERC-20 amounts).
    error InvalidAmount();

    /// @notice `pause` or `unpause` was called with no features.
    error EmptyFeatureSet();

    /// @notice The proposed cap is below `totalSupply` or above `type(uint128).max`.
    error InvalidSupplyCap(uint256 currentSupply, uint256 proposedCap);

    /// @notice The mint would take `totalSupply` to `attempted`, above `cap`.
    error SupplyCapExceeded(uint256 cap, uint256 attempted);

    /// @notice The policy in slot `policyScope` denied the operation.
    error PolicyForbids(bytes32 policyScope, uint64 policyId);

    /// @notice `policyId` does not exist in the PolicyRegistry.
    error PolicyNotFound(uint64 policyId);

    /// @notice `policyScope` is not a policy slot of this token.
    error UnsupportedPolicyType(bytes32 policyScope);

    /// @notice `burnBlocked` targeted an account that `TRANSFER_SENDER_POLICY` authorizes.
    error AccountNotBlocked(address account);

    /// @notice A permit's deadline has passed.
    error ExpiredSignature(uint256 deadline);

    /// @notice A permit was signed by `signer`, not by `owner`.
    error InvalidSigner(address signer, address owner);

    /// @notice The last `DEFAULT_ADMIN_ROLE` holder cannot be revoked or renounce; see `renounceLastAdmin`.
    error LastAdminCannotRenounce();

    /// @notice `renounceLastAdmin` was called while others also hold `DEFAULT_ADMIN_ROLE`.
    error NotSoleAdmin();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice ERC-20 transfer; also mint (`from == address(0)`) and burn (`to == address(0)`).
    event Transfer(address indexed from, address indexed to, uint256 amount);

    /// @notice ERC-20 approval, from `approve` and `permit`.
    event Approval(address indexed owner, address indexed spender, uint256 amount);

    /// @notice Emitted right after `Transfer` by the memo variants; `caller` is `msg.sender`.
    event Memo(address indexed caller, bytes32 indexed memo);

    /// @notice Emitted by `burnBlocked` after `Transfer(from, address(0), amount)`.
    event BurnedBlocked(address indexed caller, address indexed from, uint256 amount);

    /// @notice `account` was granted `role` by `sender`.
    event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender);

    /// @notice `role` was revoked from `account` by `sender`.
    event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender);

    /// @notice The admin role of `role` changed.
    event RoleAdminChanged(bytes32 indexed role, bytes32 indexed previousAdminRole, bytes32 indexed newAdminRole);

    /// @notice The last default admin left; the token has no admin from now on.
    event LastAdminRenounced(address indexed previousAdmin);

    /// @notice `features` (the call's argument) were paused.
    event Paused(address indexed updater, PausableFeature[] features);

    /// @notice `features` (the call's argument) were unpaused.
    event Unpaused(address indexed updater, PausableFeature[] features);

    /// @notice The policy in slot `policyScope` changed.
    event PolicyUpdated(bytes32 indexed policyScope, uint64 oldPolicyId, uint64 newPolicyId);

    /// @notice The supply cap changed.
    event SupplyCapUpdated(address indexed updater, uint256 oldSupplyCap, uint256 newSupplyCap);

    /// @notice The contract URI changed (ERC-7572); re-read `contractURI()`.
    event ContractURIUpdated();

    /// @notice The name changed.
    event NameUpdated(address indexed updater, string newName);

    /// @notice The symbol changed.
    event SymbolUpdated(address indexed updater, string newSymbol);

    /// @notice The EIP-712 domain changed (ERC-5267); emitted after `NameUpdated`.
    event EIP712DomainChanged();

    /*//////////////////////////////////////////////////////////////
                                 ERC-20
    //////////////////////////////////////////////////////////////*/

    /// @notice The token name, mutable through `updateName`.
    /// @return The current name.
    function name() external view returns (string memory) {
        return _name;
    }

    /// @notice The token symbol, mutable through `updateSymbol`.
    /// @return The current symbol.
    function symbol() external view returns (string memory) {
        return _symbol;
    }

    /// @notice The number of decimals, fixed at creation.
    /// @return The decimals.
    function decimals() external view returns (uint8) {
        return _decimals;
    }

    /// @notice The total supply.
    /// @return The total supply.
    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    /// @notice The balance of `account`.
    ///
    /// @param account Account to query.
    ///
    /// @return The balance.
    function balanceOf(address account) public view returns (uint256) {
        return _balances[account];
    }

    /// @notice The allowance `owner` granted `spender`.
    ///
    /// @param owner   Allowance owner.
    /// @param spender Allowance spender.
    ///
    /// @return The allowance.
    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    /// @notice Transfers `amount` from `msg.sender` to `to`. Emits `Transfer`.
    ///
    /// @dev Reverts with `ContractPaused(TRANSFER)` when transfers are paused.
    /// @dev Reverts with `InvalidReceiver` when `to` is `address(0)` or the token.
    /// @dev Reverts with `PolicyForbids` when the executor, sender or receiver policy denies.
    /// @dev Reverts with `InsufficientBalance` when the balance is below `amount`.
    ///
    /// @param to     Destination.
    /// @param amount Amount to transfer.
    ///
    /// @return Always `true`.
    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount, false);
        return true;
    }

    /// @notice Transfers `amount` from `from` to `to` on `msg.sender`'s allowance (an allowance
    ///         of `type(uint256).max` is not spent). Emits `Transfer`.
    ///
    /// @dev Reverts as `transfer` does, with `InvalidSender` when `from` is `address(0)` and
    ///      `InsufficientAllowance` when the allowance is below `amount`.
    ///
    /// @param from   Source.
    /// @param to     Destination.
    /// @param amount Amount to transfer.
    ///
    /// @return Always `true`.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _transfer(from, to, amount, true);
        return true;
    }

    /// @notice Sets `spender`'s allowance to `amount`. Not gated by policy or pause. Emits `Approval`.
    ///
    /// @dev Reverts with `InvalidSpender` when `spender` is `address(0)`.
    ///
    /// @param spender Account allowed to spend.
    /// @param amount  Allowance.
    ///
    /// @return Always `true`.
    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    /// @notice `transfer`, then emits `Memo(msg.sender, memo)`.
    ///
    /// @param to     Destination.
    /// @param amount Amount to transfer.
    /// @param memo   Off-chain reference; zero is allowed.
    ///
    /// @return Always `true`.
    function transferWithMemo(address to, uint256 amount, bytes32 memo) external returns (bool) {
        _transfer(msg.sender, to, amount, false);
        emit Memo(msg.sender, memo);
        return true;
    }

    /// @notice `transferFrom`, then emits `Memo(msg.sender, memo)`.
    ///
    /// @param from   Source.
    /// @param to     Destination.
    /// @param amount Amount to transfer.
    /// @param memo   Off-chain reference; zero is allowed.
    ///
    /// @return Always `true`.
    function transferFromWithMemo(address from, address to, uint256 amount, bytes32 memo) external returns (bool) {
        _transfer(from, to, amount, true);
        emit Memo(msg.sender, memo);
        return true;
    }

    /*//////////////////////////////////////////////////////////////
                               MINT / BURN
    //////////////////////////////////////////////////////////////*/

    /// @notice Mints `amount` to `to`. Emits `Transfer(address(0), to, amount)`.
    ///
    /// @dev Reverts with `ContractPaused(MINT)` when minting is paused.
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `MINT_ROLE`.
    /// @dev Reverts with `InvalidReceiver` when `to` is `address(0)` or the token.
    /// @dev Reverts with `PolicyForbids(MINT_RECEIVER_POLICY, ...)` when `to` is not authorized.
    /// @dev Reverts with `SupplyCapExceeded` when the supply would pass the cap.
    ///
    /// @param to     Recipient.
    /// @param amount Amount to mint.
    function mint(address to, uint256 amount) external {
        _beginMint();
        _mint(to, amount);
    }

    /// @notice `mint`, then emits `Memo(msg.sender, memo)`.
    ///
    /// @param to     Recipient.
    /// @param amount Amount to mint.
    /// @param memo   Off-chain reference; zero is allowed.
    function mintWithMemo(address to, uint256 amount, bytes32 memo) external {
        _beginMint();
        _mint(to, amount);
        emit Memo(msg.sender, memo);
    }

    /// @notice Burns `amount` of the caller's own balance; no policy applies.
    ///         Emits `Transfer(msg.sender, address(0), amount)`.
    ///
    /// @dev Reverts with `ContractPaused(BURN)` when burning is paused.
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `BURN_ROLE`.
    /// @dev Reverts with `InsufficientBalance` when the balance is below `amount`.
    ///
    /// @param amount Amount to burn.
    function burn(uint256 amount) external {
        _requireNotPaused(PausableFeature.BURN);
        _checkRole(BURN_ROLE);
        _burn(msg.sender, amount);
    }

    /// @notice `burn`, then emits `Memo(msg.sender, memo)`.
    ///
    /// @param amount Amount to burn.
    /// @param memo   Off-chain reference; zero is allowed.
    function burnWithMemo(uint256 amount, bytes32 memo) external {
        _requireNotPaused(PausableFeature.BURN);
        _checkRole(BURN_ROLE);
        _burn(msg.sender, amount);
        emit Memo(msg.sender, memo);
    }

    /// @notice Destroys `amount` of a blocked account's balance: one that `TRANSFER_SENDER_POLICY`
    ///         does not authorize. Emits `Transfer(from, address(0), amount)` and `BurnedBlocked`.
    ///
    /// @dev Reverts with `ContractPaused(BURN)` when burning is paused.
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `BURN_BLOCKED_ROLE`.
    /// @dev Reverts with `AccountNotBlocked` when `TRANSFER_SENDER_POLICY` authorizes `from`.
    /// @dev Reverts with `InsufficientBalance` when `from`'s balance is below `amount`.
    ///
    /// @param from   Blocked account.
    /// @param amount Amount to burn.
    function burnBlocked(address from, uint256 amount) external {
        _requireNotPaused(PausableFeature.BURN);
        _checkRole(BURN_BLOCKED_ROLE);
        if (_authorized(_policies.transferSender, from)) revert AccountNotBlocked(from);
        _burn(from, amount);
        emit BurnedBlocked(msg.sender, from, amount);
    }

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    /// @notice Whether `account` holds `role`.
    ///
    /// @param role    Role to check.
    /// @param account Account to check.
    ///
    /// @return Whether `account` holds `role`.
    function hasRole(bytes32 role, address account) public view returns (bool) {
        return _roleMembers[role][account];
    }

    /// @notice The role that grants and revokes `role`; `DEFAULT_ADMIN_ROLE` unless changed.
    ///
    /// @param role Role to query.
    ///
    /// @return The admin role.
    function getRoleAdmin(bytes32 role) public view returns (bytes32) {
        return _roleAdmins[role];
    }

    /// @notice Grants `role` to `account`. Emits `RoleGranted` if `account` did not hold it.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `role`'s admin
    ///      role, or after `renounceLastAdmin`.
    ///
    /// @param role    Role to grant.
    /// @param account Recipient.
    function grantRole(bytes32 role, address account) external {
        _checkRoleAdmin(role);
        _grantRole(role, account);
    }

    /// @notice Revokes `role` from `account`. Emits `RoleRevoked` if `account` held it.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `role`'s admin
    ///      role, or after `renounceLastAdmin`.
    /// @dev Reverts with `LastAdminCannotRenounce` when it would remove the last default admin.
    ///
    /// @param role    Role to revoke.
    /// @param account Account to revoke from.
    function revokeRole(bytes32 role, address account) external {
        _checkRoleAdmin(role);
        _revokeRole(role, account);
    }

    /// @notice The caller gives up `role`. Emits `RoleRevoked` if the caller held it.
    ///
    /// @dev Reverts with `AccessControlBadConfirmation` when `callerConfirmation != msg.sender`.
    /// @dev Reverts with `LastAdminCannotRenounce` when the caller is the last default admin.
    ///
    /// @param role               Role to renounce.
    /// @param callerConfirmation Must equal `msg.sender`.
    function renounceRole(bytes32 role, address callerConfirmation) external {
        if (callerConfirmation != msg.sender) revert AccessControlBadConfirmation();
        _revokeRole(role, msg.sender);
    }

    /// @notice The sole default admin leaves for good: the token has no admin from now on and
    ///         no role can be granted, revoked or re-administered. Emits `RoleRevoked` and
    ///         `LastAdminRenounced`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `DEFAULT_ADMIN_ROLE`.
    /// @dev Reverts with `NotSoleAdmin` when others also hold `DEFAULT_ADMIN_ROLE`.
    function renounceLastAdmin() external {
        if (!_roleMembers[DEFAULT_ADMIN_ROLE][msg.sender]) {
            revert AccessControlUnauthorizedAccount(msg.sender, DEFAULT_ADMIN_ROLE);
        }
        if (_adminCount != 1) revert NotSoleAdmin();
        _roleMembers[DEFAULT_ADMIN_ROLE][msg.sender] = false;
        _adminCount = 0;
        _adminRenounced = true;
        emit RoleRevoked(DEFAULT_ADMIN_ROLE, msg.sender, msg.sender);
        emit LastAdminRenounced(msg.sender);
    }

    /// @notice Sets the admin role of `role`. Emits `RoleAdminChanged`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `role`'s
    ///      current admin role, or after `renounceLastAdmin`.
    ///
    /// @param role         Role to re-administer.
    /// @param newAdminRole Its new admin role.
    function setRoleAdmin(bytes32 role, bytes32 newAdminRole) external {
        _checkRoleAdmin(role);
        bytes32 previous = _roleAdmins[role];
        _roleAdmins[role] = newAdminRole;
        emit RoleAdminChanged(role, previous, newAdminRole);
    }

    /*//////////////////////////////////////////////////////////////
                                 PAUSE
    //////////////////////////////////////////////////////////////*/

    /// @notice The paused features, in enum order.
    /// @return features The paused features.
    function pausedFeatures() external view returns (PausableFeature[] memory features) {
        uint8 mask = _pausedMask;
        features = new PausableFeature[](_countBits(mask));
        uint256 n = 0;
        for (uint8 f = 0; f <= uint8(type(PausableFeature).max); ++f) {
            if (mask & (1 << f) != 0) features[n++] = PausableFeature(f);
        }
    }

    /// @notice Whether `feature` is paused.
    ///
    /// @param feature Feature to query.
    ///
    /// @return Whether it is paused.
    function isPaused(PausableFeature feature) public view returns (bool) {
        return _pausedMask & (1 << uint8(feature)) != 0;
    }

    /// @notice Pauses `features` (already paused ones stay paused). Emits `Paused`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `PAUSE_ROLE`.
    /// @dev Reverts with `EmptyFeatureSet` when `features` is empty.
    ///
    /// @param features Features to pause.
    function pause(PausableFeature[] calldata features) external {
        _checkRole(PAUSE_ROLE);
        _pausedMask |= _maskOf(features);
        emit Paused(msg.sender, features);
    }

    /// @notice Unpauses `features`; others are unaffected. Emits `Unpaused`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `UNPAUSE_ROLE`.
    /// @dev Reverts with `EmptyFeatureSet` when `features` is empty.
    ///
    /// @param features Features to unpause.
    function unpause(PausableFeature[] calldata features) external {
        _checkRole(UNPAUSE_ROLE);
        _pausedMask &= ~_maskOf(features);
        emit Unpaused(msg.sender, features);
    }

    /*//////////////////////////////////////////////////////////////
                                 POLICY
    //////////////////////////////////////////////////////////////*/

    /// @notice The policy id in slot `policyScope`; 0 (always-allow) until set.
    ///
    /// @dev Reverts with `UnsupportedPolicyType` when `policyScope` is not a slot of this token.
    ///
    /// @param policyScope Policy slot.
    ///
    /// @return The policy id.
    function policyId(bytes32 policyScope) external view returns (uint64) {
        PolicySlots memory slots = _policies;
        if (policyScope == TRANSFER_SENDER_POLICY) return slots.transferSender;
        if (policyScope == TRANSFER_RECEIVER_POLICY) return slots.transferReceiver;
        if (policyScope == TRANSFER_EXECUTOR_POLICY) return slots.transferExecutor;
        if (policyScope == MINT_RECEIVER_POLICY) return slots.mintReceiver;
        revert UnsupportedPolicyType(policyScope);
    }

    /// @notice Puts `newPolicyId` in slot `policyScope`, effective for the next operation.
    ///         Emits `PolicyUpdated`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `DEFAULT_ADMIN_ROLE`.
    /// @dev Reverts with `UnsupportedPolicyType` when `policyScope` is not a slot of this token.
    /// @dev Reverts with `PolicyNotFound` when `newPolicyId` does not exist in the PolicyRegistry.
    ///
    /// @param policyScope Policy slot.
    /// @param newPolicyId Policy id to use.
    function updatePolicy(bytes32 policyScope, uint64 newPolicyId) external {
        _checkRole(DEFAULT_ADMIN_ROLE);
        PolicySlots memory slots = _policies;
        uint64 old;
        if (policyScope == TRANSFER_SENDER_POLICY) {
            (old, slots.transferSender) = (slots.transferSender, newPolicyId);
        } else if (policyScope == TRANSFER_RECEIVER_POLICY) {
            (old, slots.transferReceiver) = (slots.transferReceiver, newPolicyId);
        } else if (policyScope == TRANSFER_EXECUTOR_POLICY) {
            (old, slots.transferExecutor) = (slots.transferExecutor, newPolicyId);
        } else if (policyScope == MINT_RECEIVER_POLICY) {
            (old, slots.mintReceiver) = (slots.mintReceiver, newPolicyId);
        } else {
            revert UnsupportedPolicyType(policyScope);
        }
        if (
            newPolicyId != ALWAYS_ALLOW && newPolicyId != ALWAYS_BLOCK
                && !IPolicyAuthority(POLICY_REGISTRY).policyExists(newPolicyId)
        ) revert PolicyNotFound(newPolicyId);
        _policies = slots;
        emit PolicyUpdated(policyScope, old, newPolicyId);
    }

    /*//////////////////////////////////////////////////////////////
                               SUPPLY CAP
    //////////////////////////////////////////////////////////////*/

    /// @notice The maximum total supply; `type(uint128).max`, the default, means no cap.
    /// @return The supply cap.
    function supplyCap() external view returns (uint256) {
        return _supplyCap;
    }

    /// @notice Sets the supply cap, never below `totalSupply` nor above `type(uint128).max`.
    ///         Emits `SupplyCapUpdated`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `DEFAULT_ADMIN_ROLE`.
    /// @dev Reverts with `InvalidSupplyCap` when the cap is out of range.
    ///
    /// @param newSupplyCap New cap.
    function updateSupplyCap(uint256 newSupplyCap) external {
        _checkRole(DEFAULT_ADMIN_ROLE);
        if (newSupplyCap < _totalSupply || newSupplyCap > _MAX_SUPPLY_CAP) {
            revert InvalidSupplyCap(_totalSupply, newSupplyCap);
        }
        emit SupplyCapUpdated(msg.sender, _supplyCap, newSupplyCap);
        _supplyCap = uint128(newSupplyCap);
    }

    /*//////////////////////////////////////////////////////////////
                         METADATA AND CONTRACT URI
    //////////////////////////////////////////////////////////////*/

    /// @notice Sets the name. Emits `NameUpdated` then `EIP712DomainChanged`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `METADATA_ROLE`.
    ///
    /// @param newName New name.
    function updateName(string calldata newName) external {
        _checkRole(METADATA_ROLE);
        _name = newName;
        emit NameUpdated(msg.sender, newName);
        emit EIP712DomainChanged();
    }

    /// @notice Sets the symbol. Emits `SymbolUpdated`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `METADATA_ROLE`.
    ///
    /// @param newSymbol New symbol.
    function updateSymbol(string calldata newSymbol) external {
        _checkRole(METADATA_ROLE);
        _symbol = newSymbol;
        emit SymbolUpdated(msg.sender, newSymbol);
    }

    /// @notice The ERC-7572 contract-level metadata URI.
    /// @return The contract URI.
    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    /// @notice Sets the contract URI. Emits `ContractURIUpdated`.
    ///
    /// @dev Reverts with `AccessControlUnauthorizedAccount` when the caller lacks `METADATA_ROLE`.
    ///
    /// @param newURI New contract URI.
    function updateContractURI(string calldata newURI) external {
        _checkRole(METADATA_ROLE);
        _contractURI = newURI;
        emit ContractURIUpdated();
    }

    /*//////////////////////////////////////////////////////////////
                        PERMIT (EIP-2612, ERC-5267)
    //////////////////////////////////////////////////////////////*/

    /// @notice The EIP-712 domain separator, recomputed on each call from the live name.
    /// @return The domain separator.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(_DOMAIN_TYPEHASH, keccak256(bytes(_name)), _VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The permit nonce of `owner`.
    ///
    /// @param owner Account to query.
    ///
    /// @return The nonce.
    function nonces(address owner) external view returns (uint256) {
        return _nonces[owner];
    }

    /// @notice EIP-2612 permit: sets `spender`'s allowance from `owner`'s signature (EOA
    ///         signatures only, low-s). Emits `Approval`.
    ///
    /// @dev Reverts with `ExpiredSignature` when `block.timestamp > deadline`.
    /// @dev Reverts with `InvalidSigner` when the signature does not recover to `owner`.
    /// @dev Reverts with `InvalidSpender` when `spender` is `address(0)`.
    ///
    /// @param owner    Token holder.
    /// @param spender  Account allowed to spend.
    /// @param value    Allowance.
    /// @param deadline Last valid timestamp.
    /// @param v        Signature recovery byte.
    /// @param r        Signature r.
    /// @param s        Signature s.
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(_PERMIT_TYPEHASH, owner, spender, value, _nonces[owner], deadline));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        address signer = uint256(s) > _HALF_CURVE_ORDER ? address(0) : ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != owner) revert InvalidSigner(signer, owner);
        _nonces[owner] += 1;
        _approve(owner, spender, value);
    }

    /// @notice ERC-5267 description of the EIP-712 domain.
    ///
    /// @return fields            `0x0f`: name, version, chainId, verifyingContract.
    /// @return name_             The live name.
    /// @return version           `"1"`.
    /// @return chainId           `block.chainid`.
    /// @return verifyingContract This token.
    /// @return salt              Zero.
    /// @return extensions        Empty.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name_,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", _name, "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Initialises a fresh clone: only the factory may, only once, and only on a token it
    ///      has just created (so never on an implementation).
    function _initialize(string memory name_, string memory symbol_, uint8 decimals_, address admin) internal {
        if (msg.sender != B20_FACTORY || _initialized || !IB20Creation(B20_FACTORY).isB20(address(this))) {
            revert Unauthorized();
        }
        _initialized = true;
        _name = name_;
        _symbol = symbol_;
        _decimals = decimals_;
        _supplyCap = uint128(_MAX_SUPPLY_CAP);
        if (admin != address(0)) _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    /// @dev Whether the caller is the factory running this token's `initCalls`.
    function _inBootstrap() internal view returns (bool) {
        return msg.sender == B20_FACTORY && !IB20Creation(B20_FACTORY).isB20Initialized(address(this));
    }

    function _checkRole(bytes32 role) internal view {
        if (_roleMembers[role][msg.sender] || _inBootstrap()) return;
        revert AccessControlUnauthorizedAccount(msg.sender, role);
    }

    function _checkRoleAdmin(bytes32 role) private view {
        bytes32 adminRole = _roleAdmins[role];
        if (_adminRenounced) revert AccessControlUnauthorizedAccount(msg.sender, adminRole);
        _checkRole(adminRole);
    }

    function _grantRole(bytes32 role, address account) private {
        if (_roleMembers[role][account]) return;
        _roleMembers[role][account] = true;
        if (role == DEFAULT_ADMIN_ROLE) _adminCount += 1;
        emit RoleGranted(role, account, msg.sender);
    }

    function _revokeRole(bytes32 role, address account) private {
        if (!_roleMembers[role][account]) return;
        if (role == DEFAULT_ADMIN_ROLE) {
            if (_adminCount == 1) revert LastAdminCannotRenounce();
            _adminCount -= 1;
        }
        _roleMembers[role][account] = false;
        emit RoleRevoked(role, account, msg.sender);
    }

    function _requireNotPaused(PausableFeature feature) internal view {
        if (isPaused(feature)) revert ContractPaused(feature);
    }

    function _maskOf(PausableFeature[] calldata features) private pure returns (uint8 mask) {
        if (features.length == 0) revert EmptyFeatureSet();
        for (uint256 i = 0; i < features.length; ++i) {
            mask |= uint8(1 << uint8(features[i]));
        }
    }

    function _countBits(uint8 mask) private pure returns (uint256 n) {
        for (; mask != 0; mask &= mask - 1) ++n;
    }

    /// @dev Whether `policy` authorizes `account`; the built-ins are answered without a call.
    function _authorized(uint64 policy, address account) internal view returns (bool) {
        if (policy == ALWAYS_ALLOW) return true;
        if (policy == ALWAYS_BLOCK) return false;
        return IPolicyAuthority(POLICY_REGISTRY).isAuthorized(policy, account);
    }

    function _enforce(bytes32 scope, uint64 policy, address account) private view {
        if (!_authorized(policy, account)) revert PolicyForbids(scope, policy);
    }

    function _transfer(address from, address to, uint256 amount, bool spendAllowance) private {
        _requireNotPaused(PausableFeature.TRANSFER);
        if (from == address(0)) revert InvalidSender(from);
        if (to == address(0) || to == address(this)) revert InvalidReceiver(to);
        if (spendAllowance) _spendAllowance(from, msg.sender, amount);
        if (!_inBootstrap()) {
            PolicySlots memory slots = _policies;
            _enforce(TRANSFER_EXECUTOR_POLICY, slots.transferExecutor, msg.sender);
            _enforce(TRANSFER_SENDER_POLICY, slots.transferSender, from);
            _enforce(TRANSFER_RECEIVER_POLICY, slots.transferReceiver, to);
        }
        uint256 balance = _balances[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        unchecked {
            _balances[from] = balance - amount;
            _balances[to] += amount; // cannot overflow: the sum of balances is the supply, at most 2^128 - 1
        }
        emit Transfer(from, to, amount);
    }

    function _spendAllowance(address owner, address spender, uint256 amount) private {
        uint256 allowed = _allowances[owner][spender];
        if (allowed == type(uint256).max) return;
        if (allowed < amount) revert InsufficientAllowance(spender, allowed, amount);
        unchecked {
            _allowances[owner][spender] = allowed - amount;
        }
    }

    function _approve(address owner, address spender, uint256 amount) private {
        if (owner == address(0)) revert InvalidApprover(owner);
        if (spender == address(0)) revert InvalidSpender(spender);
        _allowances[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    /// @dev The checks every mint entry point makes before minting: pause, then role.
    function _beginMint() internal view {
        _requireNotPaused(PausableFeature.MINT);
        _checkRole(MINT_ROLE);
    }

    function _mint(address to, uint256 amount) internal {
        if (to == address(0) || to == address(this)) revert InvalidReceiver(to);
        _enforce(MINT_RECEIVER_POLICY, _policies.mintReceiver, to);
        uint256 supply = _totalSupply + amount;
        if (supply > _supplyCap) revert SupplyCapExceeded(_supplyCap, supply);
        _totalSupply = uint128(supply); // supply <= cap < 2^128
        unchecked {
            _balances[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    function _burn(address from, uint256 amount) private {
        uint256 balance = _balances[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        unchecked {
            _balances[from] = balance - amount;
            _totalSupply -= uint128(amount); // amount <= balance <= supply < 2^128
        }
        emit Transfer(from, address(0), amount);
    }
}
