// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {B20} from "./B20.sol";

/// @title B20Stablecoin
///
/// @notice The Stablecoin variant of B20 (Base's `IB20Stablecoin`): `B20` with 6 decimals and
///         a currency code fixed at creation.
///
/// @dev    The implementation is predeployed at `0x8453…0102`; every Stablecoin token is an
///         EIP-1167 clone of it created by the B20 factory, which calls `initialize` once.
contract B20Stablecoin is B20 {
    /// @notice The decimals of every Stablecoin token.
    uint8 public constant STABLECOIN_DECIMALS = 6;

    string private _currency;

    /// @notice Initialises a freshly created token: called once, by the B20 factory only.
    ///
    /// @dev Reverts with `Unauthorized` when the caller is not the factory or the token is
    ///      already initialised.
    ///
    /// @param name_     Token name.
    /// @param symbol_   Token symbol.
    /// @param admin     Initial `DEFAULT_ADMIN_ROLE` holder, or `address(0)` for none.
    /// @param currency_ Currency code (uppercase `A`-`Z`, checked by the factory).
    function initialize(string calldata name_, string calldata symbol_, address admin, string calldata currency_)
        external
    {
        _initialize(name_, symbol_, STABLECOIN_DECIMALS, admin);
        _currency = currency_;
    }

    /// @notice The currency this stablecoin tracks, fixed at creation (e.g. `"USD"`).
    /// @return The currency code.
    function currency() external view returns (string memory) {
        return _currency;
    }
}
