// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title TryAggregate: the one Multicall3 function the x402 EVM facilitator reads through.
/// @notice When a payment's simulation fails, `@x402/evm`'s facilitator reads the payer's balance, the token's
/// name and version and the nonce's state in one `tryAggregate` call to Multicall3's well-known address, to say
/// why (nonce used, balance too low). A fresh local chain has no Multicall3, so the test chain places this
/// contract's code there; without it every such refusal would read as a bare simulation failure.
contract TryAggregate {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice Calls each target in turn; a failed call fails the whole only when `requireSuccess`.
    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory returnData) = calls[i].target.call(calls[i].callData);
            require(success || !requireSuccess, "TryAggregate: call failed");
            results[i] = Result(success, returnData);
        }
    }
}
