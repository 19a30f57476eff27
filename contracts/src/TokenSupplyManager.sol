// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {B20_FACTORY, IB20Creation} from "./Predeploys.sol";

/// @dev The part of a B20 token the TokenSupplyManager uses.
interface IB20Supply {
    function hasRole(bytes32 role, address account) external view returns (bool);
    function mint(address to, uint256 amount) external;
    function mintWithMemo(address to, uint256 amount, bytes32 memo) external;
    function burn(uint256 amount) external;
    function burnWithMemo(uint256 amount, bytes32 memo) external;
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title TokenSupplyManager
///
/// @notice stocknode's issuer-side minting desk (not part of Base's protocol), at
///         `0x8453…0100`. A token's admin grants this contract `MINT_ROLE` and `BURN_ROLE` on the
///         token and appoints operators here, each with a mint allowance. Operators then mint
///         through the desk, which spends their allowance, and burn tokens they hold through it.
///         Only an account holding the token's `DEFAULT_ADMIN_ROLE` (as the token's `hasRole`
///         says) can appoint or remove operators or change allowances.
///
/// @dev    The token sees the desk as `msg.sender`: its `Transfer` and `Memo` events name the
///         desk; the desk's own events name the operator. A genesis predeploy: no constructor,
///         no immutables, and all-zero storage is the initial state.
contract TokenSupplyManager {
    /// @dev An operator of one token.
    struct Operator {
        bool active;
        uint256 mintAllowance;
    }

    bytes32 private constant _DEFAULT_ADMIN_ROLE = bytes32(0);

    mapping(address token => mapping(address account => Operator)) private _operators;

    /// @notice `token` was not created by the B20 factory.
    error NotB20Token(address token);

    /// @notice `account` does not hold `DEFAULT_ADMIN_ROLE` on `token`.
    error NotTokenAdmin(address token, address account);

    /// @notice `account` is not an operator of `token`.
    error NotOperator(address token, address account);

    /// @notice `operator` asked to mint `amount` of `token` with only `allowance` left.
    error MintAllowanceExceeded(address token, address operator, uint256 allowance, uint256 amount);

    /// @notice An operator cannot be `address(0)`.
    error ZeroOperator();

    /// @notice `admin` appointed `operator` on `token`, or changed its mint allowance, to `mintAllowance`.
    event OperatorSet(address indexed token, address indexed operator, uint256 mintAllowance, address indexed admin);

    /// @notice `admin` removed `operator` from `token`.
    event OperatorRemoved(address indexed token, address indexed operator, address indexed admin);

    /// @notice `operator` minted `amount` of `token` to `to`; `remainingAllowance` is left.
    event OperatorMinted(
        address indexed token, address indexed operator, address indexed to, uint256 amount, uint256 remainingAllowance
    );

    /// @notice `operator` burned `amount` of `token` it held.
    event OperatorBurned(address indexed token, address indexed operator, uint256 amount);

    /*//////////////////////////////////////////////////////////////
                                ADMIN
    //////////////////////////////////////////////////////////////*/

    /// @notice Appoints `operator` on `token` with a mint allowance of `allowance`, or sets
    ///         an existing operator's allowance (replacing it, not adding to it). Emits `OperatorSet`.
    ///
    /// @dev Reverts with `NotB20Token` when `token` was not created by the B20 factory.
    /// @dev Reverts with `NotTokenAdmin` when the caller lacks `DEFAULT_ADMIN_ROLE` on `token`.
    /// @dev Reverts with `ZeroOperator` when `operator` is `address(0)`.
    ///
    /// @param token     B20 token.
    /// @param operator  Operator account.
    /// @param allowance How much the operator may mint from now on.
    function setOperator(address token, address operator, uint256 allowance) external {
        _requireTokenAdmin(token);
        if (operator == address(0)) revert ZeroOperator();
        _operators[token][operator] = Operator({active: true, mintAllowance: allowance});
        emit OperatorSet(token, operator, allowance, msg.sender);
    }

    /// @notice Removes `operator` from `token`, with its allowance. Emits `OperatorRemoved`.
    ///
    /// @dev Reverts with `NotB20Token` when `token` was not created by the B20 factory.
    /// @dev Reverts with `NotTokenAdmin` when the caller lacks `DEFAULT_ADMIN_ROLE` on `token`.
    /// @dev Reverts with `NotOperator` when `operator` is not an operator of `token`.
    ///
    /// @param token    B20 token.
    /// @param operator Operator account.
    function removeOperator(address token, address operator) external {
        _requireTokenAdmin(token);
        if (!_operators[token][operator].active) revert NotOperator(token, operator);
        delete _operators[token][operator];
        emit OperatorRemoved(token, operator, msg.sender);
    }

    /*//////////////////////////////////////////////////////////////
                               OPERATORS
    //////////////////////////////////////////////////////////////*/

    /// @notice Mints `amount` of `token` to `to`, spending the caller's mint allowance.
    ///         Emits `OperatorMinted` (and the token its `Transfer`).
    ///
    /// @dev Reverts with `NotOperator` when the caller is not an operator of `token`.
    /// @dev Reverts with `MintAllowanceExceeded` when `amount` is above the caller's allowance.
    /// @dev Reverts with the token's own error when its `mint` reverts (e.g. the desk lacks
    ///      `MINT_ROLE`, minting is paused, the cap is reached, `to` is not allowed to receive).
    ///
    /// @param token  B20 token.
    /// @param to     Recipient.
    /// @param amount Amount to mint.
    function mint(address token, address to, uint256 amount) external {
        _spendMintAllowance(token, to, amount);
        IB20Supply(token).mint(to, amount);
    }

    /// @notice `mint` through the token's `mintWithMemo`, so the token also emits `Memo`.
    ///
    /// @param token  B20 token.
    /// @param to     Recipient.
    /// @param amount Amount to mint.
    /// @param memo   Off-chain reference.
    function mintWithMemo(address token, address to, uint256 amount, bytes32 memo) external {
        _spendMintAllowance(token, to, amount);
        IB20Supply(token).mintWithMemo(to, amount, memo);
    }

    /// @notice Burns `amount` of `token` from the caller's balance: the desk takes it with
    ///         `transferFrom` (the caller must have approved the desk) and burns it.
    ///         Emits `OperatorBurned` (and the token `Transfer` to the desk and to `address(0)`).
    ///
    /// @dev Reverts with `NotOperator` when the caller is not an operator of `token`.
    /// @dev Reverts with the token's own error when its `transferFrom` or `burn` reverts (e.g.
    ///      no allowance, the desk lacks `BURN_ROLE`, burning or transfers are paused).
    ///
    /// @param token  B20 token.
    /// @param amount Amount to burn.
    function burn(address token, uint256 amount) external {
        _pullForBurn(token, amount);
        IB20Supply(token).burn(amount);
    }

    /// @notice `burn` through the token's `burnWithMemo`, so the token also emits `Memo`.
    ///
    /// @param token  B20 token.
    /// @param amount Amount to burn.
    /// @param memo   Off-chain reference.
    function burnWithMemo(address token, uint256 amount, bytes32 memo) external {
        _pullForBurn(token, amount);
        IB20Supply(token).burnWithMemo(amount, memo);
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice Whether `account` is an operator of `token`.
    ///
    /// @param token   B20 token.
    /// @param account Account to query.
    ///
    /// @return Whether `account` is an operator.
    function isOperator(address token, address account) external view returns (bool) {
        return _operators[token][account].active;
    }

    /// @notice How much `account` may still mint of `token` (0 for a non-operator).
    ///
    /// @param token   B20 token.
    /// @param account Account to query.
    ///
    /// @return The remaining mint allowance.
    function mintAllowance(address token, address account) external view returns (uint256) {
        return _operators[token][account].mintAllowance;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _requireTokenAdmin(address token) private view {
        if (!IB20Creation(B20_FACTORY).isB20(token)) revert NotB20Token(token);
        if (!IB20Supply(token).hasRole(_DEFAULT_ADMIN_ROLE, msg.sender)) revert NotTokenAdmin(token, msg.sender);
    }

    /// @dev Effects before the token call: the allowance is spent first.
    function _spendMintAllowance(address token, address to, uint256 amount) private {
        Operator storage op = _operators[token][msg.sender];
        if (!op.active) revert NotOperator(token, msg.sender);
        uint256 allowed = op.mintAllowance;
        if (amount > allowed) revert MintAllowanceExceeded(token, msg.sender, allowed, amount);
        unchecked {
            op.mintAllowance = allowed - amount;
        }
        emit OperatorMinted(token, msg.sender, to, amount, allowed - amount);
    }

    function _pullForBurn(address token, uint256 amount) private {
        if (!_operators[token][msg.sender].active) revert NotOperator(token, msg.sender);
        emit OperatorBurned(token, msg.sender, amount);
        IB20Supply(token).transferFrom(msg.sender, address(this), amount);
    }
}
