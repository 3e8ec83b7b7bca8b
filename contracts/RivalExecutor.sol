// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

interface IERC20 {
    function balanceOf(address) external view returns (uint256);
}

interface IWETH is IERC20 {
    function withdraw(uint256) external;
}

/// The executor contract of an emulated rival searcher, as mainnet searchers use one: it holds
/// the searcher's WETH, runs a route's swaps in one tx (so a MEV-Share backrun is one signed tx),
/// and pays the block's builder by a transfer to block.coinbase; a sandwicher's frontrun and
/// backrun are `trade` and `settle`, a CEX-DEX arbitrageur's trade `rebalance`. Only the searcher's operators
/// (storage slot 0: a mapping of allowed callers) may call it. Placed by bundlesim with
/// `anvil_setCode`, not deployed: WETH's address is a constant.
contract RivalExecutor {
    IWETH constant WETH = IWETH(0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2);
    mapping(address => bool) public operators;

    /// The route gained less than the payment it promised: nothing is paid, nothing traded.
    error NotProfitable(uint256 gained, uint256 payment);

    receive() external payable {}

    /// A backrun: runs `calls` on `targets` in order, each after the first taking in what the one
    /// before it brought (`tokensOut[i - 1]` received, written into `calls[i]` at each byte offset
    /// of `amountAt[i]`), then pays the coinbase `payment` wei out of the WETH gained, reverting if
    /// it gained no more than that. The legs are chained on the chain, as searchers' contracts chain
    /// them, so swaps placed before it in the block change how much it makes, not whether its legs
    /// fit: only the gain of the whole is checked.
    function run(address[] calldata targets, bytes[] calldata calls, address[] calldata tokensOut, uint256[][] calldata amountAt, uint256 payment) external {
        require(operators[msg.sender], "not an operator");
        uint256 before = WETH.balanceOf(address(this));
        _chain(targets, calls, tokensOut, amountAt);
        _pay(before, payment);
    }

    /// A sandwich's first half: runs `calls`, checks nothing (the second half, `settle`, does).
    function trade(address[] calldata targets, bytes[] calldata calls) external {
        require(operators[msg.sender], "not an operator");
        _call(targets, calls);
    }

    /// A sandwich's second half: runs `calls` chained as `run` chains them (a leg with no offsets
    /// in `amountAt` keeps its own amount: the sale of what the first half bought, then the first
    /// leg of a round trip through the pool the user moved), then pays the coinbase `payment` wei
    /// if they brought in more WETH than `cost` (what the first half spent) by more than that.
    /// Judged on this tx alone, so another trade of the executor in the same block cannot pay for it.
    function settle(address[] calldata targets, bytes[] calldata calls, address[] calldata tokensOut, uint256[][] calldata amountAt, uint256 payment, uint256 cost) external {
        require(operators[msg.sender], "not an operator");
        uint256 before = WETH.balanceOf(address(this));
        _chain(targets, calls, tokensOut, amountAt);
        _pay(before + cost, payment);
    }

    /// A CEX-DEX trade: runs `calls` out of the executor's inventory (its other leg is on the
    /// exchange, so no WETH gain is asked: each call's own minimum output guards it) and pays
    /// the coinbase `payment` wei out of its WETH.
    function rebalance(address[] calldata targets, bytes[] calldata calls, uint256 payment) external {
        require(operators[msg.sender], "not an operator");
        _call(targets, calls);
        if (payment > 0) {
            WETH.withdraw(payment);
            block.coinbase.transfer(payment);
        }
    }

    function _call(address[] calldata targets, bytes[] calldata calls) private {
        for (uint256 i = 0; i < targets.length; i++) {
            (bool ok, bytes memory data) = targets[i].call(calls[i]);
            if (!ok) {
                assembly {
                    revert(add(data, 32), mload(data))
                }
            }
        }
    }

    /// Runs `calls` on `targets` in order; each leg after the first with offsets in `amountAt`
    /// takes in what the leg before it brought (`tokensOut[i - 1]` received, written there).
    function _chain(address[] calldata targets, bytes[] calldata calls, address[] calldata tokensOut, uint256[][] calldata amountAt) private {
        uint256 received;
        for (uint256 i = 0; i < targets.length; i++) {
            bytes memory data = calls[i];
            if (i > 0) _writeAmount(data, amountAt[i], received);
            received = _swap(targets[i], data, IERC20(tokensOut[i]));
        }
    }

    /// Writes `amount` into `data` at each byte offset of `offsets` (the word of a swap's amount in).
    function _writeAmount(bytes memory data, uint256[] calldata offsets, uint256 amount) private pure {
        for (uint256 j = 0; j < offsets.length; j++) {
            uint256 at = offsets[j];
            require(at + 32 <= data.length, "amount offset out of the call");
            assembly {
                mstore(add(add(data, 32), at), amount)
            }
        }
    }

    /// Calls `target` with `data` (its revert passed on) and returns how much of `out` it brought in.
    function _swap(address target, bytes memory data, IERC20 out) private returns (uint256 received) {
        uint256 had = out.balanceOf(address(this));
        (bool ok, bytes memory result) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
        received = out.balanceOf(address(this)) - had;
    }

    function _pay(uint256 before, uint256 payment) private {
        uint256 afterwards = WETH.balanceOf(address(this));
        uint256 gained = afterwards > before ? afterwards - before : 0;
        if (gained <= payment) revert NotProfitable(gained, payment);
        if (payment > 0) {
            WETH.withdraw(payment);
            block.coinbase.transfer(payment);
        }
    }
}
